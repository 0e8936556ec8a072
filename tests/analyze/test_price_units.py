"""A price bills what it quotes (issue 37 point 6, issue 42 "Prices"), on copies of the sample:
a server-hour quote line bills whole servers, an expired price fails the basis ranked on, FOCUS
rows are taken from one account, category and commitment with credits and covered rows left
out by rule, and exchange rates are one per pair and date, in the direction they name."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evidencepack.analyze.models import CheckResult, DecisionDocument
from evidencepack.pipeline import CompileOptions, check
from evidencepack.render.plain import risk

from .test_fit import _edit

MI325X_PRICE = "      per_accelerator_hour: 2.90\n      currency: USD\n"
FOCUS = "pricing/focus/focus-1.0_sample_1000rows.csv"
G5 = "provider: AWS, region: us-east-1, instance_type: g5.4xlarge, accelerators_per_instance: 1"


def _check(doc: DecisionDocument, check_id: str, candidate: str | None) -> CheckResult:
    return next(c for c in doc.checks if c.id == check_id and c.candidate == candidate)


def _quote(samples: Path, line: str, valid_until: str = "2026-12-31") -> None:
    (samples / "quote.yaml").write_text(
        "supplier: Example Compute Ltd\nreference: Q-1\ncurrency: USD\nissued: 2026-11-20\n"
        f"valid_until: {valid_until}\nlines:\n  - {line}\n",
        encoding="utf-8",
    )
    _edit(
        samples,
        MI325X_PRICE,
        "      quote: {path: quote.yaml, item: 8x MI325X server}\n      currency: USD\n",
    )


SERVER_LINE = (
    "{item: 8x MI325X server, unit: server-hour, price: 23.20, accelerators_per_server: 8}"
)


def test_a_server_hour_quote_billed_per_accelerator_fails_price(samples: Path) -> None:
    before = check(samples / "pack.yaml", CompileOptions())
    assert before.recommendation == "mi325x-vllm"
    cost = next(c for c in before.cost if c.candidate == "mi325x-vllm")
    assert cost.accelerators_billed == 9
    assert cost.per_month == pytest.approx(9 * 2.90 * 730)  # 19,053: the wrong bill
    _quote(samples, SERVER_LINE)
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == "FAIL"
    assert (
        "inputs/quote.yaml: the line '8x MI325X server' is priced per server-hour" in price.reason
    )
    assert "23.2 USD per server of 8 accelerators" in price.reason
    assert "billed_per: accelerator" in price.reason
    cost = next(c for c in doc.cost if c.candidate == "mi325x-vllm")
    # Renting the quoted servers: 2 servers = 16 accelerators' worth, 33,872 USD a month.
    assert (cost.billed_per, cost.accelerators_billed) == ("server", 16)
    assert cost.per_month == pytest.approx(2 * 23.20 * 730)
    assert doc.verdict == "FAIL"
    assert doc.recommendation != "mi325x-vllm"


def test_a_server_hour_quote_billed_per_server_ranks_on_whole_servers(samples: Path) -> None:
    _quote(samples, SERVER_LINE)
    _edit(samples, "      billed_per: accelerator\n", "      billed_per: server\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    assert _check(doc, "PRICE", "mi325x-vllm").status == "PASS"
    cost = next(c for c in doc.cost if c.candidate == "mi325x-vllm")
    assert cost.per_month == pytest.approx(33872.0)
    # At the quoted servers' cost mi325x-vllm is no longer the cheapest.
    assert doc.recommendation != "mi325x-vllm"


def test_a_quoted_server_the_candidate_does_not_hold_fails_price(samples: Path) -> None:
    _quote(
        samples,
        "{item: 8x MI325X server, unit: server-hour, price: 11.60, accelerators_per_server: 4}",
    )
    _edit(samples, "      billed_per: accelerator\n", "      billed_per: server\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == "FAIL"
    assert "per server of 4 accelerators" in price.reason
    assert "the candidate's server holds 8 accelerator(s)" in price.reason


@pytest.mark.parametrize("cited", ["quote", "spec"])
def test_an_expired_price_fails_the_basis_ranked_on(samples: Path, cited: str) -> None:
    if cited == "quote":
        _quote(
            samples,
            "{item: 8x MI325X server, unit: accelerator-hour, price: 2.90}",
            valid_until="2026-11-25",
        )
    else:
        _edit(samples, MI325X_PRICE, MI325X_PRICE + "      valid_until: 2026-11-25\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == "FAIL"
    assert "the price expired on 2026-11-25, before the decision 2026-11-30" in price.reason
    assert doc.verdict == "FAIL"


EUR_PRICE = "      per_accelerator_hour: 2.70\n      currency: EUR\n"


@pytest.mark.parametrize(
    ("rates", "status", "words"),
    [
        (
            "  - {currency: EUR, rate: 1.00, as_of: 2026-06-01, source: old desk rate}\n"
            "  - {currency: EUR, to: USD, rate: 1.08, as_of: 2026-11-27, source: ECB}\n",
            "PASS",
            "at 1.08 USD/EUR (ECB, 2026-11-27), the newest rate on or before the decision "
            "(not used: 2026-06-01)",
        ),
        (
            "  - {currency: EUR, rate: 1.08, as_of: 2026-11-27, source: ECB}\n"
            "  - {currency: EUR, rate: 1.18, as_of: 2026-11-27, source: desk}\n",
            "FAIL",
            "2 different rates for EUR in USD dated 2026-11-27 (1.08 and 1.18)",
        ),
        (
            "  - {currency: USD, to: EUR, rate: 0.926, as_of: 2026-11-27, source: ECB}\n",
            "FAIL",
            "converts USD to EUR (1 USD = 0.926 EUR), the wrong way round",
        ),
        (
            "  - {currency: EUR, to: GBP, rate: 0.85, as_of: 2026-11-27, source: ECB}\n",
            "FAIL",
            "the spec's rates for EUR convert it to GBP",
        ),
        (
            "  - {currency: USD, rate: 0.926, as_of: 2026-11-27, source: ECB}\n",
            "FAIL",
            "is one USD, the decision's own currency, in an unnamed other: ambiguous",
        ),
    ],
    ids=["newest-used", "conflicting", "inverted", "other-pair", "ambiguous"],
)
def test_exchange_rates_are_one_per_pair_and_date_in_their_direction(
    samples: Path, rates: str, status: str, words: str
) -> None:
    _edit(samples, MI325X_PRICE, EUR_PRICE)
    _edit(
        samples,
        "stack_mismatch_discount:",
        f"currency: USD\nexchange_rates:\n{rates}stack_mismatch_discount:",
    )
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == status, price.reason
    assert words in price.reason
    if status == "PASS":
        cost = next(c for c in doc.cost if c.candidate == "mi325x-vllm")
        assert cost.price_per_accelerator_hour == pytest.approx(2.70 * 1.08)


def _bill(samples: Path, shared_data: Path, extra: list[dict[str, str]], filt: str = G5) -> None:
    """The shared FOCUS export with ``extra`` rows (copies of a g5 row with changes) appended,
    cited as b200-trtllm's price."""
    with (shared_data / FOCUS).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    g5 = next(
        r for r in rows if "g5.4xlarge" in r["ChargeDescription"] and r["EffectiveCost"] != "0"
    )
    with (samples / "bill.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([*rows, *({**g5, **change} for change in extra)])
    _edit(
        samples,
        "      per_accelerator_hour: 5.50\n",
        "      focus: {path: bill.csv, " + filt + "}\n",
    )


def _rate(doc: DecisionDocument) -> float | None:
    return next(c for c in doc.cost if c.candidate == "b200-trtllm").price_per_accelerator_hour


def test_a_focus_credit_row_does_not_cut_the_rate(samples: Path, shared_data: Path) -> None:
    refund = {"EffectiveCost": "-200", "BilledCost": "-200", "ConsumedQuantity": "0"}
    _bill(samples, shared_data, [refund])
    doc = check(samples / "pack.yaml", CompileOptions())
    assert _rate(doc) == pytest.approx(11.0 / 5.683889)  # as without the refund
    price = _check(doc, "PRICE", "b200-trtllm")
    assert price.status == "WARN"
    assert "1 kept row(s)" in price.reason
    assert "-200 USD" in price.reason
    assert "credits, refunds, corrections" in price.reason
    assert risk(price, doc).startswith("Some rows of its bill were left out of its rate by rule")


def test_zero_cost_rows_covered_by_a_commitment_do_not_halve_the_rate(
    samples: Path, shared_data: Path
) -> None:
    covered = {"EffectiveCost": "0", "ConsumedQuantity": "1", "CommitmentDiscountId": "ri-42"}
    _bill(samples, shared_data, [covered] * 6)
    doc = check(samples / "pack.yaml", CompileOptions())
    assert _rate(doc) == pytest.approx(11.0 / 5.683889)
    price = _check(doc, "PRICE", "b200-trtllm")
    assert price.status == "WARN"
    assert "8 kept row(s)" in price.reason  # the 2 of the export and the 6 covered
    assert "EffectiveCost 0 (covered by a commitment" in price.reason


@pytest.mark.parametrize(
    ("change", "words", "fix"),
    [
        (
            {"BillingAccountId": "sandbox-999", "EffectiveCost": "0.5"},
            "BillingAccountId: the kept rows blend 2 billing accounts: 1234567890123 (6 rows",
            "billing_account: '1234567890123'",
        ),
        (
            {"PricingCategory": "Dynamic", "EffectiveCost": "0.7"},
            "PricingCategory: the kept rows blend 2 pricing categories: Dynamic (1 rows",
            "pricing_category: Standard",
        ),
        (
            {"CommitmentDiscountId": "sp-7", "EffectiveCost": "1.2"},
            "CommitmentDiscountId: the kept rows blend 2 commitments (empty: none): "
            "(empty) (6 rows",
            "commitment: none",
        ),
    ],
    ids=["second-account", "spot", "commitment"],
)
def test_blended_focus_rows_fail_price_until_the_filter_chooses(
    samples: Path, shared_data: Path, change: dict[str, str], words: str, fix: str
) -> None:
    _bill(samples, shared_data, [change])
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "b200-trtllm")
    assert price.status == "FAIL"
    assert words in price.reason
    assert doc.verdict == "FAIL"
    spec = samples / "pack.yaml"
    spec.write_text(
        spec.read_text().replace(
            "accelerators_per_instance: 1}", f"accelerators_per_instance: 1, {fix}}}"
        )
    )
    chosen = check(spec, CompileOptions())
    assert _check(chosen, "PRICE", "b200-trtllm").status in ("PASS", "WARN")
    assert _rate(chosen) == pytest.approx(11.0 / 5.683889)
    source = next(c for c in chosen.claims if c.id == "cost.b200-trtllm.price_file").statement
    assert "PricingCategory Standard, no commitment, billing account 1234567890123" in source


@pytest.mark.parametrize(("quantity", "status"), [(1, "FAIL"), (2, "PASS")])
def test_a_quote_prices_only_the_quantity_it_offers(
    samples: Path, quantity: int, status: str
) -> None:
    _quote(
        samples,
        "{item: 8x MI325X server, unit: server-hour, price: 23.20, accelerators_per_server: 8, "
        f"quantity: {quantity}}}",
    )
    _edit(samples, "      billed_per: accelerator\n", "      billed_per: server\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == status, price.reason
    if status == "FAIL":
        assert (
            "inputs/quote.yaml: the line '8x MI325X server' offers 1 server(s) at this price "
            "(quantity), but the candidate needs 2"
        ) in price.reason
