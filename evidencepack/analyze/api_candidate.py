"""A hosted API candidate (``candidates[].api``): sized by its rate limits and the team's own
``measure`` runs against its endpoint, costed from the traffic's token mix.

Sizing: the required rate (peak x (1 + headroom)) in requests and tokens per minute at the
traffic's mean input and output tokens, against each limit one account states:
accounts = the largest of ceil(needed / limit) per limit and ceil(required / X*), X* being
the highest measured per-account rate within the SLO (a 429 is a failed request, so a load past
the limit misses the error bound). The lowest stated tier on which one account carries the
peak is named too.

Cost: per request = input tokens x ((1 - cache hit ratio) x input price + cache hit ratio x
cached-input price) / 1e6 + output tokens x output price / 1e6; per 1M output tokens = per
request / output tokens x 1e6; per year = per request x requests per year, the year's average
traffic being peak x utilisation (what the hardware candidates' per-request cost assumes of
their paid capacity) x 8,760 h.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..spec.api import HostedApi, RateLimits
from ..spec.models import Candidate, PackSpec
from .figures import ApiCost, ApiSizing, Capacity, Cost

HOURS_PER_YEAR = 8760
LIMITS = (
    "requests_per_minute",
    "tokens_per_minute",
    "input_tokens_per_minute",
    "output_tokens_per_minute",
)


def _needed(spec: PackSpec, required_rps: float) -> dict[str, float]:
    per_minute = required_rps * 60
    tokens_in = per_minute * spec.traffic.input_tokens.mean
    tokens_out = per_minute * spec.traffic.output_tokens.mean
    return {
        "requests_per_minute": per_minute,
        "tokens_per_minute": tokens_in + tokens_out,
        "input_tokens_per_minute": tokens_in,
        "output_tokens_per_minute": tokens_out,
    }


def _accounts(needed: dict[str, float], limits: RateLimits) -> dict[str, int]:
    out = {}
    for name in LIMITS:
        limit = getattr(limits, name)
        if limit is not None:
            out[name] = max(1, math.ceil(needed[name] / limit - 1e-9))
    return out


def size_api(spec: PackSpec, api: HostedApi, measured: Capacity) -> Capacity:
    """``measured`` (the load points and X* per account, sized as for hardware) with its
    accounts taken from the rate limits as well."""
    needed = _needed(spec, measured.required_rate_rps)
    by_limit = _accounts(needed, api.rate_limits)
    x_star = measured.operating_point_rps
    by_latency = math.ceil(measured.required_rate_rps / x_star - 1e-9) if x_star else None
    tier = next(
        (t.name for t in api.tiers if max(_accounts(needed, t).values()) == 1),
        None,
    )
    shown = "; ".join(
        f"{name.replace('_', ' ')}: ceil({needed[name]:,.0f} / "
        f"{getattr(api.rate_limits, name):,.0f}) = {count}"
        for name, count in by_limit.items()
    )
    if by_latency is None:
        return measured.model_copy(
            update={
                "arithmetic": f"{measured.arithmetic}; rate limits per account: {shown}",
                "accelerators_per_server": 1,
            }
        )
    accounts = max(by_latency, *by_limit.values())
    arithmetic = (
        f"X* = {x_star:.3f} req/s per account ({measured.operating_point_run}); required = "
        f"{spec.traffic.peak_requests_per_s:g} x (1 + {spec.headroom:g}) = "
        f"{measured.required_rate_rps:.3f} req/s = {needed['requests_per_minute']:,.0f} "
        f"requests and {needed['tokens_per_minute']:,.0f} tokens per minute; accounts by "
        f"latency = ceil({measured.required_rate_rps:.3f} / {x_star:.3f}) = {by_latency}; "
        f"rate limits per account: {shown}; accounts = {accounts}"
    )
    if tier is not None:
        arithmetic += f"; or one account on tier {tier}"
    sizing = ApiSizing(
        requests_per_minute=needed["requests_per_minute"],
        input_tokens_per_minute=needed["input_tokens_per_minute"],
        output_tokens_per_minute=needed["output_tokens_per_minute"],
        accounts_by_limit=by_limit,
        accounts_by_latency=by_latency,
        accounts=accounts,
        tier=tier,
    )
    return measured.model_copy(
        update={
            "replicas": accounts,
            "accelerators_per_replica": 1,
            "accelerators": accounts,
            "accelerators_per_server": 1,
            "servers": None,
            "arithmetic": arithmetic,
            "api": sizing,
        }
    )


Convert = Callable[[PackSpec, float, str], tuple[float | None, str, str | None]]
"""``price.convert``: an amount in the decision's currency (value or None, currency, why not)."""


def api_cost(spec: PackSpec, candidate: Candidate, capacity: Capacity, convert: Convert) -> Cost:
    """The API candidate's cost from the traffic's token mix, in the decision's currency."""
    assert candidate.api is not None
    prices = candidate.api.prices
    unread: str | None = None
    try:
        quoted = prices.figures()
    except ValueError as exc:
        quoted, unread = (0.0, 0.0, 0.0), str(exc)
    converted = [convert(spec, value, prices.currency) for value in quoted]
    currency = converted[0][1]
    problem = unread or next((p for _, _, p in converted if p is not None), None)
    utilisation = spec.traffic.utilisation
    base = Cost(
        candidate=candidate.id,
        currency=currency if problem is None else prices.currency,
        price_per_accelerator_hour=None,
        utilisation=utilisation,
        per_million_output_tokens=None,
        per_request=None,
        per_month=None,
        billed_per="accelerator",
        arithmetic=f"no cost in the decision's currency: {problem}",
        reason=problem or "",
    )
    if problem is not None:
        return base
    p_in, p_cached, p_out = (value or 0.0 for value, _, _ in converted)
    ratio = spec.traffic.cache_hit_ratio
    tokens_in, tokens_out = spec.traffic.input_tokens.mean, spec.traffic.output_tokens.mean
    per_request = (tokens_in * ((1 - ratio) * p_in + ratio * p_cached) + tokens_out * p_out) / 1e6
    per_million = per_request / tokens_out * 1e6
    requests = spec.traffic.peak_requests_per_s * utilisation * 3600 * HOURS_PER_YEAR
    per_year = per_request * requests
    arithmetic = (
        f"per request = ({tokens_in:g} input tokens x ({1 - ratio:g} x {currency} {p_in:g} + "
        f"{ratio:g} cached x {p_cached:g}) + {tokens_out:g} output tokens x {p_out:g}) / 1e6 = "
        f"{currency} {per_request:,.6f}; per 1M output tokens = {per_request:,.6f} / "
        f"{tokens_out:g} x 1e6 = {currency} {per_million:,.4f}; requests per year = "
        f"{spec.traffic.peak_requests_per_s:g} req/s x {utilisation:g} x {HOURS_PER_YEAR} h x "
        f"3600 = {requests:,.0f}; per year = {currency} {per_year:,.2f}; per month = per year / "
        f"12 = {currency} {per_year / 12:,.2f}"
    )
    if capacity.api is not None:
        arithmetic += f"; {capacity.api.accounts} account(s) carry the peak"
    return base.model_copy(
        update={
            "per_million_output_tokens": per_million,
            "per_request": per_request,
            "per_month": per_year / 12,
            "per_year": per_year,
            "arithmetic": arithmetic,
            "reason": f"from the traffic's token mix at {candidate.api.provider}'s prices"
            + (
                f"; latency at the operating point {capacity.operating_point_run}"
                if capacity.operating_point_run
                else ""
            ),
            "api": ApiCost(
                input_per_million=p_in,
                cached_input_per_million=p_cached,
                output_per_million=p_out,
                cache_hit_ratio=ratio,
                requests_per_year=requests,
            ),
        }
    )
