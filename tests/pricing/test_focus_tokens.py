"""FOCUS token-usage rows as an API's per-token prices (issue 40, point 3): a rate per 1M input,
cached-input and output tokens, each with the pricing category and commitment its rows carry,
never blended with an hour rate.

The FOCUS 1.2 specification's worked examples (../shared/data/pricing/focus-1.2-spec-examples)
have no token rows: one is used to show that hour rows are never read as tokens. The token
rows are a LABELLED SAMPLE made here, in FOCUS 1.3 columns (ConsumedUnit and PricingUnit ``1M
Tokens`` or ``Tokens``, SkuMeter naming the direction, as AI providers' FOCUS exports write
them); the figures are made up."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.pricing.focus import read_focus
from evidencepack.pricing.focus_tokens import read_focus_token_rates
from evidencepack.spec.cost import FocusFilter

SAMPLE = FocusFilter(provider="SampleAI")
HEADER = (
    "BillingAccountId,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,"
    "ChargeCategory,PricingCategory,ServiceProviderName,HostProviderName,SkuId,SkuMeter,"
    "ConsumedQuantity,ConsumedUnit,PricingUnit,ListUnitPrice,ContractedUnitPrice,BilledCost,"
    "EffectiveCost,BillingCurrency,CommitmentDiscountId"
)
PERIOD = "2026-10-01T00:00:00Z,2026-11-01T00:00:00Z"


def _row(day: int, category: str, meter: str, qty: str, unit: str, cost: str, c: str = "") -> str:
    start = f"2026-10-{day:02d}T00:00:00Z,2026-10-{day + 1:02d}T00:00:00Z"
    price = {"Input Tokens": "3", "Cached Input Tokens": "0.3", "Output Tokens": "15"}.get(meter)
    per = "1M Tokens" if price else "Hours"
    return (
        f"acct-1,{PERIOD},{start},Usage,{category},SampleAI,SampleAI,sku-{meter[:3]},{meter},"
        f"{qty},{unit},{per},{price or '2.5'},{price or '2.5'},{cost},{cost},USD,{c}"
    )


def sample_export(tmp_path: Path, *extra: str) -> Path:
    """SAMPLE DATA (made up): 3M input tokens at 3.00 USD per 1M, 2M cached input tokens at
    0.30, 1.5M output tokens at 15.00, and one GPU hour row of the same provider."""
    rows = [
        HEADER,
        _row(1, "Standard", "Input Tokens", "1", "1M Tokens", "3.00"),
        _row(2, "Standard", "Input Tokens", "2", "1M Tokens", "6.00"),
        _row(2, "Standard", "Cached Input Tokens", "2000000", "Tokens", "0.60"),
        _row(3, "Standard", "Output Tokens", "1.5", "1M Tokens", "22.50"),
        _row(3, "Standard", "GPU Instance", "10", "Hours", "25.00"),
        *extra,
    ]
    path = tmp_path / "focus-tokens.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_token_rows_give_a_rate_per_1m_tokens_per_direction(tmp_path: Path) -> None:
    rates = read_focus_token_rates(sample_export(tmp_path), SAMPLE)
    assert rates.currency == "USD"
    assert rates.focus_version == "1.3"
    assert [r.direction for r in rates.rates] == ["input", "cached_input", "output"]
    got = {r.direction: r for r in rates.rates}
    assert got["input"].rate_per_million_tokens == pytest.approx(3.00)
    assert got["input"].tokens == pytest.approx(3e6)
    assert got["cached_input"].rate_per_million_tokens == pytest.approx(0.30)
    assert got["output"].rate_per_million_tokens == pytest.approx(15.00)
    for rate in rates.rates:
        assert rate.pricing_category == "Standard"
        assert rate.commitment == "none"
        assert not rate.problems
    out = got["output"].list_price_per_million_tokens
    assert out is not None
    assert (out.low, out.high) == (15.0, 15.0)
    # the hour row is left out, said, never blended
    (warning,) = rates.warnings
    assert "rows not in tokens were left out (Hours (1 rows))" in warning
    assert "never blended" in warning


def test_the_hour_rate_refuses_token_rows_saying_why(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="never blended with an hour rate"):
        read_focus(sample_export(tmp_path), SAMPLE)


def test_a_commitment_is_said_and_never_blended(tmp_path: Path) -> None:
    committed = _row(4, "Committed", "Output Tokens", "1", "1M Tokens", "10.00", "commit-42")
    path = sample_export(tmp_path, committed)
    blended = read_focus_token_rates(path, SAMPLE).rate("output")
    assert blended is not None
    assert blended.pricing_category is None
    assert blended.commitment is None
    assert any(
        "several PricingCategorys (Committed (1 rows), Standard (1 rows))" in p
        for p in blended.problems
    )
    only = read_focus_token_rates(
        path, FocusFilter(provider="SampleAI", pricing_category="Committed")
    ).rate("output")
    assert only is not None
    assert only.rate_per_million_tokens == pytest.approx(10.00)
    assert (only.pricing_category, only.commitment) == ("Committed", "commit-42")
    assert not only.problems


def test_a_token_row_of_no_known_direction_is_left_out(tmp_path: Path) -> None:
    odd = _row(5, "Standard", "Embedding Tokens", "1", "1M Tokens", "0.10")
    rates = read_focus_token_rates(sample_export(tmp_path, odd), SAMPLE)
    assert any("say neither input nor output" in w and "data row 6" in w for w in rates.warnings)
    got = rates.rate("input")
    assert got is not None
    assert got.rate_per_million_tokens == pytest.approx(3.00)


def test_hour_rows_of_the_specifications_example_are_never_tokens(
    shared_data: Path, tmp_path: Path
) -> None:
    """The FOCUS 1.2 worked example of a commitment used for one hour (with the BillingCurrency
    column the specification's examples leave out)."""
    name = "commitment_discount_scenarios/commitment_discount_usage_scenario_1.csv"
    source = shared_data / "pricing/focus-1.2-spec-examples/specification/data" / name
    with source.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.reader(handle) if r]
    path = tmp_path / "example.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [rows[0] + ["BillingCurrency"], *(r + ["USD"] for r in rows[1:])]
        )
    with pytest.raises(InputError, match=r"no kept row counts tokens .*rows left: all rows: "):
        read_focus_token_rates(path, FocusFilter())
