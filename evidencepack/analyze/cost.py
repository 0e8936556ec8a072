"""Cost at the SLO operating point (never at saturation).

$ per 1M output tokens = (price per accelerator-hour x accelerators per replica)
                         / (output tokens/s per replica at X* x 3600) x 1e6 / utilisation
$ per request          = (price x accelerators per replica) / (X* x 3600) / utilisation
$ per month            = accelerators billed x price x 730 h, where accelerators billed are
                         whole servers x accelerators per server (``price.billed_per: server``,
                         the default: idle slots of the last server are paid) or the
                         accelerators needed (``billed_per: accelerator``)
$ per year             = per month x 12
"""

from __future__ import annotations

from collections.abc import Sequence

from ..spec.models import Candidate, PackSpec
from .api_candidate import api_cost
from .models import Capacity, Cost, LoadPoint, Spread
from .price import PriceTerms, convert, price_terms

HOURS_PER_MONTH = 730
MONTHS_PER_YEAR = 12


def accelerators_billed(candidate: Candidate, capacity: Capacity) -> int | None:
    """What is paid for: whole servers, or the accelerators needed when billed one by one."""
    if capacity.accelerators is None:
        return None
    if candidate.price.billed_per == "accelerator" or capacity.servers is None:
        return capacity.accelerators
    return capacity.servers * capacity.accelerators_per_server


def per_million_output_tokens(
    price_per_accelerator_hour: float,
    accelerators_per_replica: int,
    output_tokens_per_s: float,
    utilisation: float = 1.0,
) -> float | None:
    """None when the throughput is zero (no cost per token can be stated)."""
    if output_tokens_per_s <= 0 or utilisation <= 0:
        return None
    replica_per_hour = price_per_accelerator_hour * accelerators_per_replica
    return replica_per_hour / (output_tokens_per_s * 3600) * 1e6 / utilisation


def cost_of(
    spec: PackSpec,
    candidate: Candidate,
    capacity: Capacity,
    repeats: Sequence[LoadPoint] = (),
    terms: PriceTerms | None = None,
) -> Cost:
    """Cost from a candidate's capacity; ``repeats`` are repeated runs at the operating load;
    ``terms`` the price in the decision's currency (None: the price as quoted)."""
    if candidate.api is not None:
        return api_cost(spec, candidate, capacity, convert)
    terms = terms or price_terms(spec, candidate)
    if terms.per_accelerator_hour is None:
        return _uncomparable(spec, candidate, capacity, terms)
    price = terms.per_accelerator_hour
    per_replica = candidate.hardware.accelerators_per_replica
    utilisation = spec.traffic.utilisation
    currency = terms.currency
    x_star = capacity.operating_point_rps
    tokens = capacity.output_tokens_per_s_at_op
    per_million = per_request = per_month = per_month_idle = per_year = None
    billed = accelerators_billed(candidate, capacity)
    idle = billed - capacity.accelerators if billed is not None and capacity.accelerators else None
    spread = None
    arithmetic = "no operating point: no cost at the SLO"
    reason = capacity.reason
    if x_star is not None and tokens is not None and tokens > 0:
        per_million = per_million_output_tokens(price, per_replica, tokens, utilisation)
        per_request = price * per_replica / (x_star * 3600) / utilisation
        per_month = (billed or 0) * price * HOURS_PER_MONTH
        per_month_idle = (idle or 0) * price * HOURS_PER_MONTH
        per_year = per_month * MONTHS_PER_YEAR
        figures = [
            per_million_output_tokens(price, per_replica, r.output_tokens_per_s, utilisation)
            for r in repeats
        ]
        values = [f for f in figures if f is not None]
        if len(values) > 1:
            spread = Spread(runs=len(values), minimum=min(values), maximum=max(values))
        arithmetic = (
            f"per 1M output tokens = ({currency} {price:g}/h x {per_replica}) / "
            f"({tokens:.2f} tok/s x 3600) x 1e6 / {utilisation:g} = {currency} {per_million:,.4f}; "
            f"per request = ({price:g} x {per_replica}) / ({x_star:.3f} req/s x 3600) / "
            f"{utilisation:g} = {currency} {per_request:,.6f}; "
            f"{_billed_text(candidate, capacity, billed, idle)}; per month = "
            f"{billed} accelerators x {price:g} x {HOURS_PER_MONTH} h = "
            f"{currency} {per_month:,.2f}; per year = {currency} {per_month:,.2f} x "
            f"{MONTHS_PER_YEAR} = {currency} {per_year:,.2f}"
        )
        reason = f"at the operating point {capacity.operating_point_run}"
        if terms.rate is not None:
            arithmetic = (
                f"price = {terms.quoted_currency} {terms.quoted:g}/h x {terms.rate.rate:g} "
                f"{currency}/{terms.quoted_currency} ({terms.rate.source}, {terms.rate.as_of}) = "
                f"{currency} {price:.4g}/h; {arithmetic}"
            )
    return Cost(
        candidate=candidate.id,
        currency=currency,
        price_per_accelerator_hour=price,
        utilisation=utilisation,
        per_million_output_tokens=per_million,
        per_request=per_request,
        per_month=per_month,
        billed_per=candidate.price.billed_per,
        accelerators_billed=billed,
        idle_accelerators=idle,
        per_month_idle=per_month_idle,
        per_year=per_year,
        spread_per_million_output_tokens=spread,
        arithmetic=arithmetic,
        reason=reason,
    )


def _uncomparable(
    spec: PackSpec, candidate: Candidate, capacity: Capacity, terms: PriceTerms
) -> Cost:
    """A cost that cannot be stated in the decision's currency: no figures, the reason why."""
    return Cost(
        candidate=candidate.id,
        currency=terms.quoted_currency,
        price_per_accelerator_hour=terms.quoted,
        utilisation=spec.traffic.utilisation,
        per_million_output_tokens=None,
        per_request=None,
        per_month=None,
        billed_per=candidate.price.billed_per,
        accelerators_billed=accelerators_billed(candidate, capacity),
        arithmetic=f"no cost in the decision's currency: {terms.problem}",
        reason=terms.problem or "",
    )


def _billed_text(
    candidate: Candidate, capacity: Capacity, billed: int | None, idle: int | None
) -> str:
    if candidate.price.billed_per == "accelerator":
        return f"billed per accelerator: {billed} accelerators, none idle"
    return (
        f"billed per server: {capacity.servers} server(s) x {capacity.accelerators_per_server} "
        f"= {billed} accelerators, {idle} idle"
    )
