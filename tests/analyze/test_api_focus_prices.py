"""An API candidate whose token prices are read from a FinOps FOCUS export (issue 40, point 3):
``candidates[].api.prices.focus`` cites the export, its token rows give the price per 1M input,
cached-input and output tokens, and PRICE names the pricing category and commitment they came
from. The export is packed and hashed like evidence; one that cannot price both directions fails
PRICE and sizes nothing.

The export is a LABELLED SAMPLE made here (FOCUS 1.3 columns as AI providers write token usage;
the figures are made up to match ``samples/pack-api.yaml``'s stated prices)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import SpecError
from evidencepack.spec.load import load_spec

from .test_api_candidate import _check

STATED = (
    "        input_per_million: 0.30\n"
    "        cached_input_per_million: 0.075\n"
    "        output_per_million: 1.20\n"
    "        currency: USD\n"
    "        source: SAMPLE price page of example-ai (made up)\n"
    "        as_of: 2026-11-16\n"
)
CITED = (
    "        focus:\n"
    "          path: evidence/hosted-api/focus-tokens.csv\n"
    "          provider: example-ai\n"
)
HEADER = (
    "BillingAccountId,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,"
    "ChargeCategory,PricingCategory,ServiceProviderName,HostProviderName,SkuId,SkuMeter,"
    "ConsumedQuantity,ConsumedUnit,PricingUnit,ListUnitPrice,ContractedUnitPrice,BilledCost,"
    "EffectiveCost,BillingCurrency,CommitmentDiscountId"
)


def _row(day: int, meter: str, millions: float, cost: float, commitment: str = "cd-2026") -> str:
    return (
        f"acct-7,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,2026-10-{day:02d}T00:00:00Z,"
        f"2026-10-{day + 1:02d}T00:00:00Z,Usage,Committed,example-ai,example-ai,sku-{meter[:3]},"
        f"{meter},{millions},1M Tokens,1M Tokens,{cost / millions},{cost / millions},{cost},"
        f"{cost},USD,{commitment}"
    )


def _export(samples: Path, *rows: str) -> None:
    """SAMPLE DATA (made up): the committed token rows of one account in October 2026."""
    path = samples / "evidence" / "hosted-api" / "focus-tokens.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")


def _cite(samples: Path) -> Path:
    spec = samples / "pack-api.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count(STATED) == 1
    spec.write_text(text.replace(STATED, CITED), encoding="utf-8")
    return spec


def _mine(rows: list[dict[str, Any]], key: str = "candidate") -> dict[str, Any]:
    (row,) = [r for r in rows if r[key] == "hosted-api"]
    return row


def _price(doc: dict[str, Any]) -> tuple[str, str]:
    (found,) = [c for c in doc["checks"] if c["id"] == "PRICE" and c["candidate"] == "hosted-api"]
    return found["status"], found["reason"]


def test_prices_read_from_a_focus_export_cost_as_the_same_figures_stated(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stated = _mine(_check(samples / "pack-api.yaml", capsys)["cost"])
    _export(
        samples,
        _row(1, "Input Tokens", 40, 12.0),
        _row(2, "Input Tokens", 60, 18.0),
        _row(2, "Cached Input Tokens", 80, 6.0),
        _row(3, "Output Tokens", 25, 30.0),
    )
    doc = _check(_cite(samples), capsys)
    cost = _mine(doc["cost"])
    assert cost["per_year"] == pytest.approx(stated["per_year"])
    assert cost["per_million_output_tokens"] == pytest.approx(stated["per_million_output_tokens"])
    assert cost["api"]["input_per_million"] == pytest.approx(0.30)
    assert cost["api"]["cached_input_per_million"] == pytest.approx(0.075)
    status, reason = _price(doc)
    assert status == "PASS", reason
    # The rate says which pricing category and commitment it came from, and which file.
    assert "PricingCategory Committed" in reason
    assert "commitment cd-2026" in reason
    assert "focus-tokens.csv (sha256 " in reason
    # The export is evidence: packed, hashed, its format named.
    (record,) = [i for i in doc["inputs"] if i["pack_path"].endswith("focus-tokens.csv")]
    assert (record["format"], record["role"]) == ("focus-1.3", "prices")
    assert doc["recommendation"] == "hosted-api"


def test_an_export_without_output_token_rows_fails_price_and_sizes_nothing(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(samples, _row(1, "Input Tokens", 40, 12.0))
    doc = _check(_cite(samples), capsys)
    status, reason = _price(doc)
    assert status == "FAIL"
    assert "focus-tokens.csv" in reason
    assert "no output token row is kept" in reason
    assert _mine(doc["cost"])["per_year"] is None
    assert doc["recommendation"] != "hosted-api"


def test_rows_of_two_commitments_are_never_one_price(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(
        samples,
        _row(1, "Input Tokens", 40, 12.0),
        _row(2, "Output Tokens", 10, 12.0, commitment="cd-2026"),
        _row(3, "Output Tokens", 15, 18.0, commitment="cd-2027"),
    )
    doc = _check(_cite(samples), capsys)
    status, reason = _price(doc)
    assert status == "FAIL"
    assert "output tokens:" in reason
    assert "cd-2026" in reason
    assert "cd-2027" in reason


def test_prices_are_given_one_way(samples: Path) -> None:
    _export(samples, _row(1, "Input Tokens", 40, 12.0))
    spec = samples / "pack-api.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace(STATED, STATED + CITED), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    (problem,) = info.value.problems
    assert "give the prices one way" in problem
    assert "candidates[0].api.prices" in problem
    spec.write_text(text.replace(STATED, "        currency: USD\n"), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    (problem,) = info.value.problems
    assert "give input_per_million and output_per_million, or focus" in problem
