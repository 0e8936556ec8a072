"""The price a candidate's cost is computed from: in the decision's currency, dated.

Costs in different currencies are never compared: each candidate's price is taken in the
decision's currency (the spec's ``currency``, or the one every candidate prices in), converted
with a dated ``exchange_rates`` entry where it is quoted in another, and the PRICE check fails a
candidate whose price cannot be converted, or that was quoted (or converted at a rate dated)
after the decision. A quote older than ``fit.max_age_days`` is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.cost import Sourced
from ..spec.fit import ExchangeRate
from ..spec.models import Candidate, PackSpec
from .check_base import CandidateContext, Check
from .fit import time_reason
from .market import market_sentences
from .models import CheckResult, EvidenceLink


@dataclass(frozen=True)
class PriceTerms:
    """A candidate's price per accelerator-hour in the decision's currency, and how it got there.

    ``per_accelerator_hour`` is None when the price cannot be taken in the decision's currency.
    """

    currency: str
    per_accelerator_hour: float | None
    quoted: float | None
    quoted_currency: str
    rate: ExchangeRate | None
    problem: str | None
    """Why the price cannot be compared (no rate, no decision currency), if so."""


def decision_currency(spec: PackSpec) -> str | None:
    """The currency costs are compared in: the spec's, or the one all candidates share."""
    if spec.currency is not None:
        return spec.currency
    currencies = {c.price.currency for c in spec.candidates}
    return currencies.pop() if len(currencies) == 1 else None


def convert(spec: PackSpec, amount: float, currency: str) -> tuple[float | None, str, str | None]:
    """``amount`` in the decision's currency: (value or None, that currency, why not)."""
    target = decision_currency(spec)
    if target is None:
        return None, currency, "the candidates price in different currencies and the spec states "
        "no decision `currency`"
    if currency == target:
        return amount, target, None
    rate = next((r for r in spec.exchange_rates if r.currency == currency), None)
    if rate is None:
        return (
            None,
            target,
            f"quoted in {currency} but the decision compares costs in {target}, and the spec "
            f"states no exchange rate for {currency} (exchange_rates)",
        )
    return amount * rate.rate, target, None


def price_terms(spec: PackSpec, candidate: Candidate) -> PriceTerms:
    """The candidate's price in the decision's currency, converted at a stated rate if needed."""
    price = candidate.price
    currency = decision_currency(spec)
    if price.per_accelerator_hour is None:
        cited = price.focus or price.quote
        return PriceTerms(
            price.currency,
            None,
            None,
            price.currency,
            None,
            f"no rate could be read from {cited.path if cited else 'the spec'}: see PROV-FILES",
        )
    if currency is None:
        shown = ", ".join(sorted({f"{c.id} {c.price.currency}" for c in spec.candidates}))
        return PriceTerms(
            price.currency,
            None,
            price.per_accelerator_hour,
            price.currency,
            None,
            f"the candidates price in different currencies ({shown}) and the spec states no "
            "decision `currency`: costs in two currencies are never compared",
        )
    if price.currency == currency:
        return PriceTerms(
            currency, price.per_accelerator_hour, price.per_accelerator_hour, currency, None, None
        )
    rate = next((r for r in spec.exchange_rates if r.currency == price.currency), None)
    if rate is None:
        return PriceTerms(
            currency,
            None,
            price.per_accelerator_hour,
            price.currency,
            None,
            f"priced in {price.currency} but the decision compares costs in {currency}, and the "
            f"spec states no exchange rate for {price.currency} (exchange_rates)",
        )
    return PriceTerms(
        currency,
        price.per_accelerator_hour * rate.rate,
        price.per_accelerator_hour,
        price.currency,
        rate,
        None,
    )


def price_check(context: CandidateContext) -> CheckResult:
    """PRICE: the price is in the decision's currency (or converted at a dated rate) and was
    quoted before the decision; a stale quote warns."""
    spec, candidate = context.spec, context.candidate
    terms = price_terms(spec, candidate)
    link = [EvidenceLink(row=f"{candidate.id}.price")]
    if terms.problem is not None:
        return PRICE.result(candidate.id, "FAIL", terms.problem, link)
    fails: list[str] = []
    warns: list[str] = []
    price = candidate.price
    if price.as_of is not None and (late := time_reason("quoted", price.as_of, spec)):
        (fails if price.as_of > spec.decision.date else warns).append(f"the price was {late}")
    if terms.rate is not None and (late := time_reason("dated", terms.rate.as_of, spec)):
        target = fails if terms.rate.as_of > spec.decision.date else warns
        target.append(f"the exchange rate is {late}")
    for label, figure in _other_figures(spec, candidate):
        if figure.as_of is not None and figure.as_of > spec.decision.date:
            target = fails if label == spec.cost_basis else warns
            target.append(f"the {label} figures were quoted {figure.as_of}, after the decision")
        if figure.valid_until is not None and figure.valid_until < spec.decision.date:
            target = fails if label == spec.cost_basis else warns
            target.append(f"the {label} quote expired on {figure.valid_until}")
        _, _, problem = convert(spec, 1.0, figure.currency)
        if problem is not None:
            (fails if label == spec.cost_basis else warns).append(f"{label}: {problem}")
    text = f"{terms.quoted_currency} {terms.quoted or 0:g} per accelerator-hour"
    if terms.rate is not None and terms.per_accelerator_hour is not None:
        text += (
            f" = {terms.currency} {terms.per_accelerator_hour:.4g} at {terms.rate.rate:g} "
            f"{terms.currency}/{terms.rate.currency} ({terms.rate.source}, {terms.rate.as_of})"
        )
    if price.valid_until is not None and price.valid_until < spec.decision.date:
        warns.append(f"the price was valid until {price.valid_until}, before the decision")
    if price.as_of is None:
        warns.append("the price states no date (price.as_of)")
    else:
        text += f", quoted {price.as_of}"
    beside, far = market_sentences(spec, candidate, context.evidence.market)
    text += "".join(f"; {line}" for line in beside)
    warns += far
    if fails:
        return PRICE.result(candidate.id, "FAIL", f"{text}: {'; '.join(fails + warns)}", link)
    if warns:
        return PRICE.result(candidate.id, "WARN", f"{text}: {'; '.join(warns)}", link)
    return PRICE.result(candidate.id, "PASS", text, link)


def _other_figures(spec: PackSpec, candidate: Candidate) -> list[tuple[str, Sourced]]:
    """The candidate's other cost figures (rent terms, owning, the facility) by basis name."""
    out: list[tuple[str, Sourced]] = [(r.kind, r) for r in candidate.rent]
    if candidate.own is not None:
        out.append(("own", candidate.own))
        if spec.facility is not None:
            out.append(("own", spec.facility))
    return out


PRICE = Check(
    "PRICE",
    "Price in the decision's currency, quoted before the decision",
    hard=True,
    judge=price_check,
)
