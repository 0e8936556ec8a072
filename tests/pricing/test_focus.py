"""The effective hourly rate from a real FOCUS 1.0 export, its Parquet copy and mutated copies.

Every expected figure is computed here with the csv module over the file itself (never through
DuckDB), and the g5.4xlarge figures are also written out as counted by hand.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from pydantic import ValidationError

from evidencepack.core.provenance import file_record
from evidencepack.errors import InputError
from evidencepack.pricing.focus import read_focus
from evidencepack.pricing.focus_checks import MAX_LINE_CHARS, csv_damage
from evidencepack.pricing.focus_tokens import read_focus_token_rates
from evidencepack.spec.cost import FocusFilter
from evidencepack.spec.located import load_located
from evidencepack.spec.validation import validate_located

Row = dict[str, str]
G5 = FocusFilter(provider="AWS", region="us-east-1", instance_type="g5.4xlarge")


@pytest.fixture
def focus_csv(shared_data: Path) -> Path:
    return shared_data / "pricing" / "focus" / "focus-1.0_sample_1000rows.csv"


def _rows(path: Path) -> list[Row]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write(rows: list[Row], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _mutated(source: Path, tmp_path: Path, change: Callable[[list[Row]], list[Row]]) -> Path:
    return _write(change(_rows(source)), tmp_path / "focus.csv")


def _word(value: str, text: str) -> bool:
    pattern = rf"(^|[^a-z0-9.\-]){re.escape(value.lower())}($|[^a-z0-9.\-])"
    return re.search(pattern, text.lower()) is not None


def _expected(rows: list[Row], **want: str) -> tuple[int, float, float]:
    """(rows, sum of EffectiveCost, sum of ConsumedQuantity) of the rows a filter keeps."""
    kept = [
        row
        for row in rows
        if row["ChargeCategory"] == "Usage"
        and all(
            (key != "provider" or row["ProviderName"].lower() == value.lower())
            and (key != "region" or value in (row["RegionId"], row["RegionName"]))
            and (key != "sku" or row["SkuId"] == value)
            and (key != "instance_type" or _word(value, row["ChargeDescription"]))
            and (key != "since" or row["ChargePeriodStart"] >= value)
            and (key != "until" or row["ChargePeriodStart"] < value)
            for key, value in want.items()
        )
        # The default rules: credits, refunds and zero-cost rows are not usage to price.
        and float(row["EffectiveCost"]) > 0
        and float(row["ConsumedQuantity"]) >= 0
    ]
    return (
        len(kept),
        sum(float(row["EffectiveCost"]) for row in kept),
        sum(float(row["ConsumedQuantity"]) for row in kept),
    )


def test_g5_rate_as_counted_by_hand(focus_csv: Path) -> None:
    rate = read_focus(focus_csv, G5)
    # By hand: 5 full hours at EffectiveCost 2.00, 0.683889 h at 1.00, and two partial hours
    # (0.296111 h, 0.303056 h) at 0.00, which the zero-cost rule leaves out: 11.00 USD over
    # 5.683889 h.
    assert rate.rows == 6
    assert rate.effective_cost == pytest.approx(11.0)
    assert rate.hours == pytest.approx(5.683889)
    assert rate.rate_per_hour == pytest.approx(11.0 / 5.683889)
    assert rate.currency == "USD"
    assert rate.focus_version == "1.0"
    assert rate.list_unit_price is not None
    assert rate.list_unit_price.low == 1.624
    assert rate.contracted_unit_price is not None
    assert rate.contracted_unit_price.high == 2.0
    assert rate.period_start == dt.datetime(2024, 9, 12, 1, tzinfo=dt.UTC)
    assert rate.period_end == dt.datetime(2024, 9, 29, 22, tzinfo=dt.UTC)
    assert rate.instance_type_columns == ("ChargeDescription",)
    assert [step.rows for step in rate.kept] == [1000, 997, 941, 308, 8, 8, 6]
    assert rate.kept[-1].filter == "zero-cost rows excluded"
    assert rate.warnings[0].startswith("2 kept row(s) (first at data row ")
    assert "0 USD, 0.599167 hours) with EffectiveCost 0" in rate.warnings[0]
    assert (rate.pricing_category, rate.commitment) == ("Standard", "none")
    assert rate.billing_account == "1234567890123"
    assert rate.problems == ()
    manifest = (focus_csv.parent / "MANIFEST.tsv").read_text(encoding="utf-8")
    assert rate.file.sha256 in manifest
    assert rate.file.size_bytes == 755423
    assert rate.summary() == (
        "1.93529 USD per hour (PricingCategory Standard, no commitment, billing account "
        "1234567890123): EffectiveCost 11 USD over 5.68389 hours in 6 row(s) of the FOCUS "
        "1.0 export focus-1.0_sample_1000rows.csv (sha256 e91e5ac7edf0), charge periods "
        "2024-09-12 01:00 to 2024-09-29 22:00 UTC"
    )
    # Counting the zero-cost rows' hours at no cost is a stated choice, and warned.
    counted = read_focus(focus_csv, G5.model_copy(update={"zero_cost": "include"}))
    assert (counted.rows, counted.hours) == (8, pytest.approx(6.283056))
    assert counted.rate_per_hour == pytest.approx(11.0 / 6.283056)
    assert "2 of the 8 kept row(s) have EffectiveCost 0" in counted.warnings[0]


@pytest.mark.parametrize(
    "want",
    [
        {"provider": "aws", "instance_type": "g5.4xlarge"},
        {"instance_type": "g3.4xlarge"},
        {"instance_type": "m4.10xlarge", "region": "US East (N. Virginia)"},
        {"sku": "4GQWNPC9K2PZAY97"},
        {"instance_type": "g5.4xlarge", "since": "2024-09-20", "until": "2024-09-25"},
    ],
)
def test_rate_agrees_with_the_csv_module(focus_csv: Path, want: dict[str, str]) -> None:
    rows, cost, hours = _expected(_rows(focus_csv), **want)
    fields = {key: value for key, value in want.items() if key not in ("since", "until")}
    if "since" in want:
        fields["period_start"] = dt.datetime.fromisoformat(want["since"])  # type: ignore[assignment]
        fields["period_end"] = dt.datetime.fromisoformat(want["until"])  # type: ignore[assignment]
    rate = read_focus(focus_csv, FocusFilter.model_validate(fields))
    assert rows > 0
    assert rate.rows == rows
    assert rate.hours == pytest.approx(hours)
    assert rate.rate_per_hour == pytest.approx(cost / hours)


def test_parquet_copy_gives_the_same_rate(focus_csv: Path, tmp_path: Path) -> None:
    parquet = tmp_path / "focus.parquet"
    con = duckdb.connect()
    con.read_csv(str(focus_csv), header=True, na_values=["NULL"]).write_parquet(str(parquet))
    relation = con.read_parquet(str(parquet))
    types = dict(zip(relation.columns, (str(t) for t in relation.types), strict=True))
    con.close()
    # A typed copy, not text: the reader casts what Parquet types back to what it checks.
    assert types["EffectiveCost"] == "DOUBLE"
    assert types["ChargePeriodStart"] == "TIMESTAMP"
    from_csv = read_focus(focus_csv, G5)
    record = file_record(parquet)
    from_parquet = read_focus(parquet, G5, record=record)
    assert from_parquet.file == record
    assert record.sha256 != from_csv.file.sha256
    assert from_parquet.rows == from_csv.rows
    assert from_parquet.rate_per_hour == pytest.approx(from_csv.rate_per_hour)
    assert from_parquet.period_start == from_csv.period_start


def _g5(row: Row) -> bool:
    return "g5.4xlarge" in row["ChargeDescription"]


def test_one_row_changed_changes_the_rate(focus_csv: Path, tmp_path: Path) -> None:
    def dearer(rows: list[Row]) -> list[Row]:
        first = next(row for row in rows if _g5(row) and row["EffectiveCost"] == "2.00000000000")
        first["EffectiveCost"] = "3.00000000000"
        return rows

    changed = read_focus(_mutated(focus_csv, tmp_path, dearer), G5)
    assert changed.effective_cost == pytest.approx(12.0)
    assert changed.rate_per_hour == pytest.approx(12.0 / 5.683889)
    assert changed.file.sha256 != read_focus(focus_csv, G5).file.sha256


def _drop(*columns: str) -> Callable[[list[Row]], list[Row]]:
    def change(rows: list[Row]) -> list[Row]:
        return [{k: v for k, v in row.items() if k not in columns} for row in rows]

    return change


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (("EffectiveCost",), "not a FOCUS cost-and-usage export: the required column(s) Effect"),
        (("RegionId", "RegionName"), "filter needs: RegionId or RegionName (for region)"),
        (("ConsumedUnit",), "filter needs: ConsumedUnit (for the rate)"),
        (("ChargeDescription",), "ChargeDescription (for instance_type)"),
    ],
)
def test_missing_column_is_named(
    focus_csv: Path, tmp_path: Path, columns: tuple[str, ...], message: str
) -> None:
    path = _mutated(focus_csv, tmp_path, _drop(*columns))
    with pytest.raises(InputError, match=re.escape(message)) as caught:
        read_focus(path, G5)
    assert str(path) in str(caught.value)


def test_a_second_currency_is_refused_naming_both(focus_csv: Path, tmp_path: Path) -> None:
    rows = _rows(focus_csv)
    index = next(i for i, row in enumerate(rows) if _g5(row))
    rows[index]["BillingCurrency"] = "EUR"
    path = _write(rows, tmp_path / "focus.csv")
    with pytest.raises(InputError, match="2 currencies") as caught:
        read_focus(path, G5)
    text = str(caught.value)
    assert f"EUR (1 rows, first at data row {index + 1})" in text
    assert "USD (7 rows" in text


def test_a_non_hour_unit_is_located(focus_csv: Path) -> None:
    rows = _rows(focus_csv)
    index = next(
        i
        for i, row in enumerate(rows)
        if row["ChargeCategory"] == "Usage"
        and row["RegionId"] == "us-east-1"
        and row["ConsumedUnit"] != "Hours"
    )
    unit = rows[index]["ConsumedUnit"]
    with pytest.raises(InputError, match=rf"data row {index + 1}: ConsumedUnit '{unit}' is not"):
        read_focus(focus_csv, FocusFilter(region="us-east-1"))


def test_zero_hours_are_refused(focus_csv: Path, tmp_path: Path) -> None:
    def idle(rows: list[Row]) -> list[Row]:
        for row in rows:
            if _g5(row):
                row["ConsumedQuantity"] = "0"
        return rows

    with pytest.raises(InputError, match="sum to 0 hours"):
        read_focus(_mutated(focus_csv, tmp_path, idle), G5)


def test_only_zero_cost_rows_give_no_rate(focus_csv: Path) -> None:
    with pytest.raises(InputError, match="no usage row is left once the rules exclude"):
        read_focus(focus_csv, FocusFilter(instance_type="c5.2xlarge"))
    with pytest.raises(InputError, match="every one costs nothing"):
        read_focus(focus_csv, FocusFilter(instance_type="c5.2xlarge", zero_cost="include"))


def test_no_match_says_what_each_filter_kept(focus_csv: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_focus(focus_csv, FocusFilter(provider="AWS", instance_type="p5.48xlarge"))
    text = str(caught.value)
    assert "all rows: 1000; ChargeCategory = Usage: 997; provider = AWS: 941" in text
    assert "instance_type = p5.48xlarge: 0" in text


@pytest.mark.parametrize("partial", ["g5.4xlarg", "5.4xlarge", "g5"])
def test_instance_type_matches_whole_words_only(focus_csv: Path, partial: str) -> None:
    with pytest.raises(InputError, match="no row matches"):
        read_focus(focus_csv, FocusFilter(instance_type=partial))


def test_later_versions_and_provider_columns(focus_csv: Path, tmp_path: Path) -> None:
    def v11(rows: list[Row]) -> list[Row]:
        out = []
        for row in rows:
            g5 = _g5(row)
            row["ChargeDescription"] = "NULL"
            row["SkuPriceDetails"] = '{"InstanceType": "g5.4xlarge"}' if g5 else "NULL"
            row["x_UsageType"] = "USE1-BoxUsage:g5.4xlarge" if g5 else "NULL"
            out.append(row)
        return out

    rate = read_focus(_mutated(focus_csv, tmp_path, v11), G5)
    assert rate.focus_version == "1.1"
    assert rate.instance_type_columns == ("ChargeDescription", "SkuPriceDetails", "x_UsageType")
    assert rate.rows == 6
    assert rate.rate_per_hour == pytest.approx(11.0 / 5.683889)


def test_not_focus_at_all(tmp_path: Path) -> None:
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a FOCUS cost-and-usage export"):
        read_focus(other, G5)
    binary = tmp_path / "binary.parquet"
    binary.write_bytes(b"PAR1" + bytes(range(256)))
    with pytest.raises(InputError, match=re.escape(str(binary))):
        read_focus(binary, G5)


def test_filter_is_strict_and_its_errors_are_located(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="is not after period_start"):
        FocusFilter(period_start=dt.datetime(2024, 9, 2), period_end=dt.datetime(2024, 9, 1))
    spec = tmp_path / "price.yaml"
    spec.write_text(
        "provider: AWS\ninstance: g5.4xlarge\nperiod_start: 2024-09-30\nperiod_end: 2024-09-01\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        validate_located(FocusFilter, load_located(spec), spec)
    assert caught.value.problems == (
        f"{spec}:2:1: instance: unknown key; did you mean 'instance_type'?",
        f"{spec}:4:13: period_end: Value error, 2024-09-01 00:00:00 is not after period_start "
        "2024-09-30 00:00:00",
    )


def test_a_truncated_export_names_its_line(focus_csv: Path, tmp_path: Path) -> None:
    lines = focus_csv.read_bytes().split(b"\n")
    # Cut the sixth data row in the middle of a quoted field: the file ends inside a quote.
    cut = lines[6].index(b'"2024-09-27')
    truncated = tmp_path / "focus.csv"
    truncated.write_bytes(b"\n".join(lines[:6]) + b"\n" + lines[6][: cut + 5])
    with pytest.raises(InputError, match=r"focus.csv: not a readable CSV: line 7: unexpected end"):
        read_focus(truncated, G5)
    # A row with cells missing (no open quote) is named with its cell count.
    short = tmp_path / "short.csv"
    short.write_bytes(b"\n".join([*lines[:3], b'NULL,"0.1"', *lines[3:5]]))
    with pytest.raises(InputError, match="line 4: 2 cell\\(s\\) where the header has 44"):
        read_focus(short, G5)


def test_data_rows_are_counted_in_file_order_in_a_large_export(
    focus_csv: Path, tmp_path: Path
) -> None:
    rows = _rows(focus_csv) * 60  # 60,000 rows, 45 MB: DuckDB reads it in parallel chunks
    target = max(i for i, row in enumerate(rows) if _g5(row))
    rows[target] = {**rows[target], "BillingCurrency": "EUR"}
    path = _write(rows, tmp_path / "focus.csv")
    with pytest.raises(InputError, match=f"EUR \\(1 rows, first at data row {target + 1}\\)"):
        read_focus(path, G5)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("ConsumedQuantity", "inf", "ConsumedQuantity 'inf' is not a number"),
        ("ConsumedQuantity", "1 h", "ConsumedQuantity '1 h' is not a number"),
        ("ConsumedQuantity", "NULL", "ConsumedQuantity is empty"),
        ("EffectiveCost", "NaN", "EffectiveCost 'NaN' is not a number"),
        ("EffectiveCost", "2,00", "EffectiveCost '2,00' is not a number"),
        ("ChargePeriodEnd", "soon", "ChargePeriodStart/ChargePeriodEnd"),
        # A sum of 1e308 and more overflows to inf: the row is refused first (issue 42).
        ("EffectiveCost", "1e308", "EffectiveCost 1e308 is past any bill"),
        ("ConsumedQuantity", "-1e300", "ConsumedQuantity -1e300 is past any bill"),
    ],
)
def test_a_bad_value_on_a_kept_row_is_located(
    focus_csv: Path, tmp_path: Path, column: str, value: str, message: str
) -> None:
    rows = _rows(focus_csv)
    index = [i for i, row in enumerate(rows) if _g5(row)][3]
    rows[index][column] = value
    path = _write(rows, tmp_path / "focus.csv")
    with pytest.raises(InputError, match=re.escape(f"data row {index + 1}: {message}")):
        read_focus(path, G5)


def test_a_bad_period_start_is_located_before_a_period_filter(
    focus_csv: Path, tmp_path: Path
) -> None:
    rows = _rows(focus_csv)
    rows[499]["ChargePeriodStart"] = "2024-13-01 00:00:00"
    path = _write(rows, tmp_path / "focus.csv")
    since = FocusFilter(instance_type="g5.4xlarge", period_start=dt.datetime(2024, 9, 20))
    with pytest.raises(InputError, match="data row 500: ChargePeriodStart '2024-13-01 00:00:00'"):
        read_focus(path, since)


def test_a_file_name_with_glob_characters_reads_only_that_file(
    focus_csv: Path, tmp_path: Path
) -> None:
    rows = _rows(focus_csv)
    named = _write(rows, tmp_path / "bill [2024].csv")
    starred = _write(rows, tmp_path / "bill*.csv")
    # As globs, "bill [2024].csv" names "bill 2.csv" and "bill*.csv" names every bill.
    for row in rows:
        if _g5(row):
            row["EffectiveCost"] = "9.00000000000"
    _write(rows, tmp_path / "bill 2.csv")
    for path in (named, starred):
        rate = read_focus(path, G5)
        assert rate.rows == 6
        assert rate.effective_cost == pytest.approx(11.0)


def test_a_net_negative_quantity_is_refused(focus_csv: Path) -> None:
    # The sample's one Azure VM row is a refund: -1 hour, -0.149 USD.
    with pytest.raises(InputError, match=r"the 1 kept row\(s\) sum to -1 hours"):
        read_focus(
            focus_csv, FocusFilter(provider="Microsoft", instance_type="DS11", credits="net")
        )
    # By default the refund is not usage: nothing is left to price.
    with pytest.raises(InputError, match=r"no usage row is left .*1 kept row\(s\) \(first at"):
        read_focus(focus_csv, FocusFilter(provider="Microsoft", instance_type="DS11"))


def test_a_refund_row_is_netted(focus_csv: Path, tmp_path: Path) -> None:
    rows = _rows(focus_csv)
    refund = dict(next(row for row in rows if _g5(row) and row["EffectiveCost"] != "0.00000000000"))
    refund["ConsumedQuantity"] = "-1.0"
    refund["EffectiveCost"] = "-2.0"
    netted = G5.model_copy(update={"credits": "net", "zero_cost": "include"})
    rate = read_focus(_write([*rows, refund], tmp_path / "focus.csv"), netted)
    assert rate.rows == 9
    assert rate.hours == pytest.approx(5.283056)
    assert rate.rate_per_hour == pytest.approx(9.0 / 5.283056)
    assert "1 of the 9 kept row(s) have a negative ConsumedQuantity" in rate.warnings[1]


def test_read_from_a_private_copy_names_the_cited_path(focus_csv: Path, tmp_path: Path) -> None:
    copy = tmp_path / "input"
    copy.write_bytes(focus_csv.read_bytes())
    cited = Path("evidence/bill.csv")
    rate = read_focus(cited, G5, read_from=copy)
    assert rate.file.path == "evidence/bill.csv"
    assert rate.file.sha256 == read_focus(focus_csv, G5).file.sha256
    with pytest.raises(InputError, match=r"^evidence/bill.csv: no row matches"):
        read_focus(cited, FocusFilter(instance_type="p5.48xlarge"), read_from=copy)


@pytest.mark.parametrize("reader", [read_focus, read_focus_token_rates])
def test_a_sparse_two_gib_export_is_refused_at_once(
    tmp_path: Path, reader: Callable[[Path, FocusFilter], object]
) -> None:
    """A 2 GiB file of NUL bytes (sparse: no disk used) is refused from its first bytes, not
    scanned into a MemoryError (issue 42), nor hashed whole first (16 s, issue 45): both readers
    look at its head before anything else."""
    sparse = tmp_path / "bill.csv"
    with sparse.open("wb") as handle:
        handle.truncate(2 << 30)
    started = time.monotonic()
    with pytest.raises(InputError, match=r"bill.csv: byte 1 is a NUL: not a FOCUS export"):
        reader(sparse, G5)
    assert time.monotonic() - started < 3, "the refusal read more than the file's head"


def test_a_csv_line_past_the_bound_is_named_not_read_whole(tmp_path: Path) -> None:
    long = tmp_path / "long.csv"
    long.write_text("a,b\n1,2\n" + "x" * (MAX_LINE_CHARS + 10) + "\n", encoding="utf-8")
    assert (
        csv_damage(long) == f"line 3: longer than {MAX_LINE_CHARS:,} characters: not a CSV export"
    )


SPEC_EXAMPLES = "pricing/focus-1.2-spec-examples/specification/data"


def _spec_example(shared_data: Path, name: str, tmp_path: Path) -> Path:
    """A FOCUS 1.2 worked example with the BillingCurrency column every real export has (the
    specification's examples leave it out) and without their blank lines."""
    lines = (shared_data / SPEC_EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    rows = [lines[0] + ",BillingCurrency", *(line + ",USD" for line in lines[1:] if line.strip())]
    path = tmp_path / "example.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


FLEX = "commitment_discount_flexibility/"
COMMITTED = "commitment_discount_scenarios/"


@pytest.mark.parametrize(
    ("name", "category", "rate", "commitment"),
    [
        (
            FLEX + "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_"
            "1_resource.csv",
            "Committed",
            0.50,
            "<my-commitment-discount-id>",
        ),
        (
            FLEX + "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_"
            "1_resource.csv",
            "Standard",
            2.25,
            "none",
        ),
        (
            FLEX + "zero_percent_utilization_without_commitment_discount_flexibility.csv",
            "Committed",
            1.50,
            "<my-commitment-discount-id>",
        ),
        (
            FLEX + "zero_percent_utilization_without_commitment_discount_flexibility.csv",
            "Standard",
            2.00,
            "none",
        ),
        # 0.75 used and 0.25 unused (no hours): the commitment's whole cost per hour used
        (
            COMMITTED + "commitment_discount_usage_scenario_3.csv",
            "Committed",
            1.00,
            "<my-commitment-discount-id>",
        ),
        (
            COMMITTED + "commitment_discount_usage_scenario_4.csv",
            "Committed",
            1.00,
            "<my-commitment-discount-id>",
        ),
    ],
)
def test_focus_1_2_worked_examples_give_a_rate_per_pricing_category_and_commitment(
    shared_data: Path, tmp_path: Path, name: str, category: str, rate: float, commitment: str
) -> None:
    path = _spec_example(shared_data, name, tmp_path)
    got = read_focus(path, FocusFilter(pricing_category=category))
    assert got.rate_per_hour == pytest.approx(rate)
    assert (got.pricing_category, got.commitment, got.problems) == (category, commitment, ())
    if "scenario_3" in name:
        assert "the unused part of a commitment" in got.warnings[0]
        assert "EffectiveCost 0.25 counts at no hours" in got.warnings[0]
    # Unfiltered, on-demand and committed usage (where both are billed) blend: named.
    blended = read_focus(path, FocusFilter())
    if "scenario_3" not in name:
        assert blended.pricing_category is None
        assert any("blend 2 pricing categories: Committed (1 rows" in p for p in blended.problems)


def test_a_focus_1_2_worked_example_as_published_lacks_billing_currency(
    shared_data: Path,
) -> None:
    published = shared_data / SPEC_EXAMPLES / COMMITTED / "commitment_discount_usage_scenario_3.csv"
    with pytest.raises(InputError, match="the required column\\(s\\) BillingCurrency are missing"):
        read_focus(published, FocusFilter())
