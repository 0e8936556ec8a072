"""Cost at the SLO operating point (never at saturation).

$ per 1M output tokens = (price per accelerator-hour x accelerators per replica)
                         / (output tokens/s per replica at X* x 3600) x 1e6 / utilisation
$ per request          = (price x accelerators per replica) / (X* x 3600) / utilisation
$ per month            = accelerators needed x price x 730 h
"""

from __future__ import annotations

from collections.abc import Sequence

from ..spec import Candidate, PackSpec
from .models import Capacity, Cost, LoadPoint, Spread

HOURS_PER_MONTH = 730


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
) -> Cost:
    """Cost from a candidate's capacity; ``repeats`` are repeated runs at the operating load."""
    price = candidate.price.per_accelerator_hour
    per_replica = candidate.hardware.accelerators_per_replica
    utilisation = spec.traffic.utilisation
    currency = candidate.price.currency
    x_star = capacity.operating_point_rps
    tokens = capacity.output_tokens_per_s_at_op
    per_million = per_request = per_month = None
    spread = None
    arithmetic = "no operating point: no cost at the SLO"
    reason = capacity.reason
    if x_star is not None and tokens is not None and tokens > 0:
        per_million = per_million_output_tokens(price, per_replica, tokens, utilisation)
        per_request = price * per_replica / (x_star * 3600) / utilisation
        per_month = (capacity.accelerators or 0) * price * HOURS_PER_MONTH
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
            f"{utilisation:g} = {currency} {per_request:,.6f}; per month = "
            f"{capacity.accelerators} accelerators x {price:g} x {HOURS_PER_MONTH} h = "
            f"{currency} {per_month:,.2f}"
        )
        reason = f"at the operating point {capacity.operating_point_run}"
    return Cost(
        candidate=candidate.id,
        currency=currency,
        price_per_accelerator_hour=price,
        utilisation=utilisation,
        per_million_output_tokens=per_million,
        per_request=per_request,
        per_month=per_month,
        spread_per_million_output_tokens=spread,
        arithmetic=arithmetic,
        reason=reason,
    )
