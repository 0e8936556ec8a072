"""A supplier's quote in YAML or CSV: strict, located errors, validity, and rates per hour."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from evidencepack.core.resources import schemas_dir
from evidencepack.errors import InputError
from evidencepack.pricing.quote import (
    purchase_price_per_server,
    quote_is_current,
    rate_per_accelerator_hour,
    rate_per_server_hour,
    read_quote,
)

QUOTE_YAML = """\
supplier: Example Compute Ltd
reference: Q-2026-0117
currency: USD
issued: 2026-11-01
valid_until: 2026-12-31
lines:
  - item: 8x B200 server
    unit: server-hour
    price: 52
    accelerators_per_server: 8
  - {item: B200 GPU, unit: accelerator-hour, price: 6.5}
  - {item: B200 GPU reserved, unit: accelerator-month, price: 3650, quantity: 16,
     accelerators_per_server: 8}
  - {item: 8x B200 server bought, unit: server, price: 390000, quantity: 2}
"""

QUOTE_CSV = """\
supplier,reference,currency,issued,valid_until,item,unit,price,quantity,accelerators_per_server
Example Compute Ltd,Q-7,EUR,2026-11-01,2026-12-31,8x B200 server,server-hour,52,,8
Example Compute Ltd,Q-7,EUR,2026-11-01,2026-12-31,B200 GPU,accelerator-hour,6.5,16,
"""


def _write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_quote_and_its_rates(tmp_path: Path) -> None:
    path = _write(tmp_path, QUOTE_YAML, "quote.yaml")
    quote = read_quote(path)
    assert quote.supplier == "Example Compute Ltd"
    assert quote.currency == "USD"
    assert quote.valid_until == dt.date(2026, 12, 31)
    assert quote.file.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert rate_per_server_hour(quote, "8x B200 server") == 52
    assert rate_per_accelerator_hour(quote, "8x B200 server") == 52 / 8
    assert rate_per_accelerator_hour(quote, "B200 GPU") == 6.5
    # 3,650 a month over 730 hours is 5.00 an hour, 40.00 for a server of 8.
    assert rate_per_accelerator_hour(quote, "B200 GPU reserved") == pytest.approx(5.0)
    assert rate_per_server_hour(quote, "B200 GPU reserved") == pytest.approx(40.0)
    assert purchase_price_per_server(quote, "8x B200 server bought") == 390000
    assert quote.summary() == (
        "quote Q-2026-0117 from Example Compute Ltd, issued 2026-11-01, valid until 2026-12-31 "
        f"(quote.yaml, sha256 {quote.file.sha256[:12]})"
    )


def test_rates_that_cannot_be_derived_are_refused(tmp_path: Path) -> None:
    quote = read_quote(_write(tmp_path, QUOTE_YAML, "quote.yaml"))
    with pytest.raises(InputError, match="state its accelerators_per_server"):
        rate_per_server_hour(quote, "B200 GPU")
    with pytest.raises(InputError, match="purchase price per server, not a rate"):
        rate_per_accelerator_hour(quote, "8x B200 server bought")
    with pytest.raises(InputError, match="rate per server-hour, not a purchase price"):
        purchase_price_per_server(quote, "8x B200 server")
    with pytest.raises(InputError, match="no item 'H200'; the quote prices '8x B200 server'"):
        rate_per_server_hour(quote, "H200")


def test_validity(tmp_path: Path) -> None:
    quote = read_quote(_write(tmp_path, QUOTE_YAML, "quote.yaml"))
    assert quote_is_current(quote, dt.date(2026, 11, 1))
    assert quote_is_current(quote, dt.date(2026, 12, 31))
    assert not quote_is_current(quote, dt.date(2027, 1, 1))
    assert not quote_is_current(quote, dt.date(2026, 10, 31))


def test_csv_quote_reads_as_the_yaml_one(tmp_path: Path) -> None:
    quote = read_quote(_write(tmp_path, QUOTE_CSV, "quote.csv"))
    assert quote.reference == "Q-7"
    assert quote.currency == "EUR"
    assert [line.item for line in quote.lines] == ["8x B200 server", "B200 GPU"]
    assert quote.lines[0].quantity is None
    assert quote.lines[1].quantity == 16
    assert rate_per_accelerator_hour(quote, "8x B200 server") == 6.5


def test_yaml_errors_are_located(tmp_path: Path) -> None:
    text = (
        QUOTE_YAML.replace("currency: USD", "currency: usd")
        .replace("valid_until: 2026-12-31", "valid_until: 2026-10-31")
        .replace("unit: server-hour", "unit: server-hours")
        .replace("price: 52", "price: -52")
    )
    path = _write(tmp_path, text, "quote.yaml")
    with pytest.raises(InputError, match="4 problem") as caught:
        read_quote(path)
    problems = caught.value.problems
    assert problems[0].startswith(f"{path}:3:11: currency: ")
    assert problems[1] == (
        f"{path}:5:14: valid_until: Value error, 2026-10-31 is before the issue date 2026-11-01"
    )
    assert problems[2].startswith(f"{path}:8:11: lines[0].unit: Input should be")
    assert problems[3].startswith(f"{path}:9:12: lines[0].price: Input should be greater than 0")


def test_an_item_quoted_twice_is_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path, QUOTE_YAML.replace("{item: B200 GPU, ", "{item: 8x B200 server, "), "q.yaml"
    )
    with pytest.raises(InputError) as caught:
        read_quote(path)
    assert caught.value.problems == (
        f"{path}:7:3: lines: Value error, the item '8x B200 server' is quoted twice",
    )


def test_yaml_unknown_key_gets_a_suggestion(tmp_path: Path) -> None:
    text = QUOTE_YAML.replace("    accelerators_per_server: 8\n", "    acelerators_per_server: 8\n")
    with pytest.raises(InputError) as caught:
        read_quote(_write(tmp_path, text, "quote.yaml"))
    assert caught.value.problems == (
        f"{tmp_path / 'quote.yaml'}:10:5: lines[0].acelerators_per_server: unknown key; "
        "did you mean 'accelerators_per_server'?",
    )


def test_csv_errors_are_located(tmp_path: Path) -> None:
    text = (
        QUOTE_CSV.replace("server-hour,52,", "server-hour,lots,")
        .replace("EUR,2026-11-01,2026-12-31,B200", "EUR,2026-11-01,31/12/2026,B200")
        .replace(",16,", ",0,")
    )
    path = _write(tmp_path, text, "quote.csv")
    with pytest.raises(InputError, match="3 problem") as caught:
        read_quote(path)
    assert caught.value.problems == (
        f"{path}:2:8: lines[0].price: Input should be a valid number; write a plain number, "
        "e.g. 0.6 or 2000",
        f"{path}:3:5: valid_until: '31/12/2026' differs from '2026-12-31' on line 2; a CSV "
        "quote repeats one value on every row",
        f"{path}:3:9: lines[1].quantity: Input should be greater than or equal to 1",
    )


def test_csv_header_and_shape_problems(tmp_path: Path) -> None:
    header = "supplier,reference,currency,issued,item,unit,price,colour\n"
    path = _write(tmp_path, header, "quote.csv")
    with pytest.raises(InputError) as caught:
        read_quote(path)
    assert caught.value.problems == (
        f"{path}:1:1: the required column 'valid_until' is missing",
        f"{path}:1:8: unknown column 'colour'; expected: supplier, reference, currency, "
        "issued, valid_until, item, unit, price, quantity, accelerators_per_server",
        f"{path}:2:1: lines: no row after the header: the quote prices nothing",
    )
    short = _write(tmp_path, QUOTE_CSV + "Example Compute Ltd,Q-7\n", "short.csv")
    with pytest.raises(InputError) as caught:
        read_quote(short)
    assert caught.value.problems == (f"{short}:4:1: 2 cell(s) where the header has 10",)


def test_other_suffix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"a quote is a .yaml, .yml or .csv file, not .json"):
        read_quote(_write(tmp_path, "{}", "quote.json"))


@pytest.mark.parametrize(
    ("edit", "ok"),
    [
        (("", ""), True),
        (("currency: USD", "currency: US$"), False),
        (("price: 52", "price: 0"), False),
        (("unit: server-hour", "unit: rack"), False),
        (("reference: Q-2026-0117\n", ""), False),
    ],
)
def test_json_schema_agrees_with_the_reader(
    tmp_path: Path, edit: tuple[str, str], ok: bool
) -> None:
    text = QUOTE_YAML.replace(*edit) if edit[0] else QUOTE_YAML
    path = _write(tmp_path, text, "quote.yaml")
    schema = json.loads((schemas_dir() / "quote.v1.schema.json").read_text(encoding="utf-8"))
    data = yaml.safe_load(text)
    data = {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in data.items()}
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    assert (not list(validator.iter_errors(data))) is ok
    try:
        read_quote(path)
    except InputError:
        assert not ok
    else:
        assert ok


def test_read_from_a_private_copy_names_the_cited_path(tmp_path: Path) -> None:
    copy = _write(tmp_path, QUOTE_CSV.replace(",52,", ",lots,"), "input.csv")
    cited = Path("quotes/q7.csv")
    with pytest.raises(InputError) as caught:
        read_quote(cited, read_from=copy)
    assert caught.value.problems[0].startswith("quotes/q7.csv:2:8: lines[0].price: ")
    good = _write(tmp_path, QUOTE_YAML, "input.yaml")
    quote = read_quote(Path("quotes/q.yaml"), read_from=good)
    assert quote.file.path == "quotes/q.yaml"
    assert quote.file.sha256 == hashlib.sha256(good.read_bytes()).hexdigest()
