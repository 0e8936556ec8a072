"""The price a candidate's cost is computed from: in the decision's currency, dated.

Costs in different currencies are never compared: each candidate's price is taken in the
decision's currency (the spec's ``currency``, or the one every candidate prices in), converted
with a dated ``exchange_rates`` entry where it is quoted in another, and the PRICE check fails a
candidate whose price cannot be converted, or that was quoted (or converted at a rate dated)
after the decision. A quote older than ``fit.max_age_days`` is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.api import HostedApi
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


def exchange_rate(spec: PackSpec, currency: str, target: str) -> tuple[ExchangeRate | None, str]:
    """The rate that converts ``currency`` into ``target``, or None and why not.

    One rate per currency pair and date: the newest dated on or before the decision (else the
    earliest after it, which PRICE then fails); two different rates for the pair on one date,
    and a rate typed the wrong way round (from ``target`` to ``currency``), are refused; so is
    a pair whose only rates convert into a third currency."""
    pair = [r for r in spec.exchange_rates if r.currency == currency and r.to in (None, target)]
    reverse = [r for r in spec.exchange_rates if r.currency == target and r.to == currency]
    if reverse:
        r = reverse[0]
        return None, (
            f"the exchange rate dated {r.as_of} ({r.source}) converts {target} to {currency} "
            f"(1 {target} = {r.rate:g} {currency}), the wrong way round: the decision needs "
            f"one {currency} in {target}; state currency: {currency}, to: {target}"
        )
    by_date: dict[object, set[float]] = {}
    for r in pair:
        by_date.setdefault(r.as_of, set()).add(r.rate)
    for day, values in sorted(by_date.items(), key=lambda item: str(item[0])):
        if len(values) > 1:
            shown = " and ".join(f"{v:g}" for v in sorted(values))
            return None, (
                f"the spec states {len(values)} different rates for {currency} in {target} "
                f"dated {day} ({shown}): one rate per currency pair and date"
            )
    if not pair:
        own = [r for r in spec.exchange_rates if r.currency == target and r.to is None]
        if own:
            r = own[0]
            return None, (
                f"quoted in {currency}, and the spec's only matching rate ({r.rate:g}, dated "
                f"{r.as_of}, {r.source}) is one {target}, the decision's own currency, in an "
                f"unnamed other: ambiguous, most likely typed the wrong way round; state "
                f"currency: {currency}, to: {target}"
            )
        elsewhere = sorted({r.to for r in spec.exchange_rates if r.currency == currency and r.to})
        if elsewhere:
            return None, (
                f"quoted in {currency} but the decision compares costs in {target}, and the "
                f"spec's rates for {currency} convert it to {', '.join(map(str, elsewhere))}"
            )
        return None, (
            f"quoted in {currency} but the decision compares costs in {target}, and the spec "
            f"states no exchange rate for {currency} (exchange_rates)"
        )
    before = [r for r in pair if r.as_of <= spec.decision.date]
    if before:
        return max(before, key=lambda r: r.as_of), ""
    return min(pair, key=lambda r: r.as_of), ""


def convert(spec: PackSpec, amount: float, currency: str) -> tuple[float | None, str, str | None]:
    """``amount`` in the decision's currency: (value or None, that currency, why not)."""
    target = decision_currency(spec)
    if target is None:
        return None, currency, "the candidates price in different currencies and the spec states "
        "no decision `currency`"
    if currency == target:
        return amount, target, None
    rate, problem = exchange_rate(spec, currency, target)
    if rate is None:
        return None, target, problem
    return amount * rate.rate, target, None


def _unread(currency: str, what: str) -> PriceTerms:
    """The terms of a price its cited file could not give (``what`` says which)."""
    return PriceTerms(currency, None, None, currency, None, f"{what}: see PROV-FILES")


def price_terms(spec: PackSpec, candidate: Candidate) -> PriceTerms:
    """The candidate's price in the decision's currency, converted at a stated rate if needed."""
    price = candidate.price
    currency = decision_currency(spec)
    if candidate.api is not None:
        # Per-token prices (analyze/api_candidate.py converts each): the terms say only
        # whether the API's currency can be taken in the decision's.
        if (focus := candidate.api.prices.focus) is not None and not candidate.api.prices.known():
            return _unread(
                price.currency, f"no input and output prices could be read from {focus.path}"
            )
        _, target, problem = convert(spec, 1.0, price.currency)
        found = exchange_rate(spec, price.currency, target)[0] if target != price.currency else None
        return PriceTerms(target, None, None, price.currency, found, problem)
    if price.per_accelerator_hour is None:
        cited = price.focus or price.quote
        return _unread(
            price.currency, f"no rate could be read from {cited.path if cited else 'the spec'}"
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
    rate, problem = exchange_rate(spec, price.currency, currency)
    if rate is None:
        return PriceTerms(currency, None, price.per_accelerator_hour, price.currency, None, problem)
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
        reason = "; ".join([terms.problem, *context.evidence.price_failures])
        return PRICE.result(candidate.id, "FAIL", reason, link)
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
    if candidate.api is not None:
        text = api_price_text(candidate.api)
    if terms.rate is not None and terms.per_accelerator_hour is not None:
        text += (
            f" = {terms.currency} {terms.per_accelerator_hour:.4g} at {terms.rate.rate:g} "
            f"{terms.currency}/{terms.rate.currency} ({terms.rate.source}, {terms.rate.as_of})"
        )
        dates = sorted(
            {
                r.as_of
                for r in spec.exchange_rates
                if r.currency == terms.rate.currency and r.to in (None, terms.currency)
            }
        )
        if len(dates) > 1:
            older = ", ".join(str(d) for d in dates if d != terms.rate.as_of)
            text += f", the newest rate on or before the decision (not used: {older})"
    if price.valid_until is not None and price.valid_until < spec.decision.date:
        # The quoted price is what the decision ranks on unless cost_basis names another.
        expired = f"the price expired on {price.valid_until}, before the decision"
        if spec.cost_basis == "price":
            fails.append(f"{expired} {spec.decision.date}, which ranks on it (cost_basis: price)")
        else:
            warns.append(f"{expired} (the decision ranks on {spec.cost_basis})")
    fails += context.evidence.price_failures
    warns += context.evidence.price_notes
    if (short := _short_of_the_quote(context)) is not None:
        fails.append(short)
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


def api_price_text(api: HostedApi) -> str:
    """A hosted API's token prices in one phrase."""
    p = api.prices
    if not p.known():
        return f"{api.provider} {api.model} {api.version}: no token prices could be read"
    cached = f", cached input {p.cached_input_per_million:g}" if p.cached_input_per_million else ""
    source = f" ({p.source})" if p.source else ""
    return (
        f"{api.provider} {api.model} {api.version}: {p.currency} {p.input_per_million:g} per 1M "
        f"input tokens{cached}, {p.output_per_million:g} per 1M output tokens{source}"
    )


def _short_of_the_quote(context: CandidateContext) -> str | None:
    """Why the quote's stated quantity cannot supply the capacity needed, or None."""
    offered = context.evidence.price_offered
    capacity = context.capacity
    if offered is None or capacity.accelerators is None:
        return None
    quantity, kind, line = offered
    if kind == "server":
        needed = capacity.servers
    elif context.candidate.price.billed_per == "accelerator" or capacity.servers is None:
        needed = capacity.accelerators
    else:
        needed = capacity.servers * capacity.accelerators_per_server
    if needed is None or needed <= quantity:
        return None
    return (
        f"{line} offers {quantity} {kind}(s) at this price (quantity), but the candidate needs "
        f"{needed}: the quote does not price what is bought"
    )


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
