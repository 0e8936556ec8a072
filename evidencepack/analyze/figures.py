"""The per-candidate figures of ``decision.json``: the measured load points, the capacity sized
from them, the cost at the operating point and the quality judged against the bar.

Part of the decision document (``analyze/models.py`` imports them into ``DecisionDocument``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import StrictModel


class LoadPoint(StrictModel):
    """One measured load level of a candidate (per replica)."""

    run: str = Field(description="the run id")
    offered_rate_rps: float | None = Field(description="open-loop target rate, if any")
    concurrency: int | None = Field(
        default=None,
        description=(
            "requests kept in flight (closed loop), as the run records it; None when not recorded"
        ),
    )
    achieved_rate_rps: float = Field(
        description="completed requests per second (Little's law for closed loop)"
    )
    output_tokens_per_s: float = Field(
        description="output tokens per second of one replica at this load (0 when not measured)"
    )
    ttft_p99_ms: float | None = Field(
        description=(
            "p99 time to first token, milliseconds (the maximum when too few "
            "requests); None when not measured"
        )
    )
    tpot_p99_ms: float | None = Field(
        description=(
            "p99 time per output token, milliseconds (the maximum when too few "
            "requests); None when not measured"
        )
    )
    e2e_p99_ms: float | None = Field(
        default=None,
        description="p99 end-to-end request latency, milliseconds; None when not measured",
    )
    latency_requests: int | None = Field(
        default=None,
        description="how many requests the p99 latencies rest on (below fit.min_requests_for_p99 "
        "the maximum stands in, and notes say so)",
    )
    error_rate: float = Field(
        description="failed over sent requests, a fraction (1.0 when nothing was sent)"
    )
    meets_slo: bool = Field(
        description="true when every SLO term holds at this load (and at every repeat of it)"
    )
    misses: tuple[str, ...] = Field(
        default=(), description="which SLO terms were missed, with values"
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description="what to know about the figures: a p99 from few requests replaced by the "
        "maximum, Little's law against the measured rate, a repeat not used",
    )
    repeat_not_used: bool = Field(
        default=False,
        description="a repeat at a load whose slower repeat stands for it (never the operating "
        "point)",
    )


class Capacity(StrictModel):
    """The operating point X* and the accelerators needed for peak x (1 + headroom)."""

    candidate: str = Field(description="the candidate id")
    load_points: tuple[LoadPoint, ...] = Field(
        description="every measured load of the candidate, lowest achieved rate first"
    )
    method: Literal["open_loop", "measured", "littles_law", "offline", "none"] = Field(
        description="how rates were obtained: open-loop or measured rates, Little's law for a "
        "closed-loop run without one, an offline run, or none"
    )
    confidence: Literal["sweep", "single_point", "none"] = Field(
        description="sweep: several loads measured; single_point: one load only; none: no load"
    )
    operating_point_rps: float | None = Field(
        description="X*: highest per-replica rate meeting the SLO"
    )
    operating_point_run: str | None = Field(
        description="the run at the operating point X*; None when no load met the SLO"
    )
    output_tokens_per_s_at_op: float | None = Field(
        description="output tokens per second per replica at X*; None without an operating point"
    )
    required_rate_rps: float = Field(description="peak_requests_per_s x (1 + headroom)")
    replicas: int | None = Field(
        description=(
            "ceil(required rate / X*): replicas needed for the required rate; None "
            "without an operating point"
        )
    )
    accelerators_per_replica: int = Field(
        description="accelerators one replica uses (the spec's hardware)"
    )
    accelerators: int | None = Field(
        description="replicas x accelerators per replica; None without an operating point"
    )
    accelerators_per_server: int = Field(
        description="accelerators in one server (the spec's accelerators per node)"
    )
    servers: int | None = Field(
        description="ceil(accelerators / accelerators per server); None without an operating point"
    )
    arithmetic: str = Field(description="the sizing arithmetic written out for the report")
    reason: str = Field(
        description=(
            "what to know about the sizing (a single point, a lower bound), or why "
            "it could not be sized"
        )
    )
    api: ApiSizing | None = Field(
        default=None,
        description="a hosted API candidate's sizing by its rate limits (None: hardware); "
        "its replicas and accelerators then count accounts",
    )


class ApiSizing(StrictModel):
    """A hosted API candidate sized by its rate limits: the peak's requests and tokens per
    minute against one account's limits, and the accounts (or the tier) that carry them."""

    requests_per_minute: float = Field(description="required rate x 60: requests per minute")
    input_tokens_per_minute: float = Field(
        description="requests per minute x the traffic's mean input tokens"
    )
    output_tokens_per_minute: float = Field(
        description="requests per minute x the traffic's mean output tokens"
    )
    accounts_by_limit: dict[str, int] = Field(
        description="per limit the spec states (requests_per_minute, tokens_per_minute, ...): "
        "ceil(needed / one account's limit)"
    )
    accounts_by_latency: int | None = Field(
        description="ceil(required rate / X*): accounts at the highest measured per-account "
        "rate within the SLO (None without one)"
    )
    accounts: int = Field(description="the largest of the above: the accounts the peak needs")
    tier: str | None = Field(
        description="the lowest stated tier on which one account carries the peak (None: no "
        "tier does, or none is stated)"
    )


class Spread(StrictModel):
    """The range of a figure over repeated runs at the operating load."""

    runs: int = Field(
        description="how many repeated runs at the operating load the range covers (at least 2)"
    )
    minimum: float = Field(description="the lowest value over those runs, in the figure's unit")
    maximum: float = Field(description="the highest value over those runs, in the figure's unit")


class Cost(StrictModel):
    """One candidate's cost at the operating point: per 1M output tokens, per request, per month."""

    candidate: str = Field(description="the candidate id")
    currency: str = Field(
        description=(
            "ISO 4217 code of the figures: the decision's currency, or the quoted "
            "one when it cannot be converted"
        )
    )
    price_per_accelerator_hour: float | None = Field(
        description=(
            "the price per accelerator-hour used, in currency (converted where the "
            "quote is in another currency)"
        )
    )
    utilisation: float = Field(
        description=(
            "the share of paid capacity expected to do useful work (the spec's "
            "traffic.utilisation); the per-token and per-request costs divide by it"
        )
    )
    per_million_output_tokens: float | None = Field(
        description=(
            "price x accelerators per replica / (output tok/s at X* x 3600) x 1e6 / "
            "utilisation; None without an operating point or a price in the "
            "decision's currency"
        )
    )
    per_request: float | None = Field(
        description=(
            "price x accelerators per replica / (X* x 3600) / utilisation; None "
            "without an operating point or a price in the decision's currency"
        )
    )
    per_month: float | None = Field(description="accelerators billed x price x 730 h")
    billed_per: Literal["server", "accelerator"] = Field(
        default="server", description="the spec's rule for a partly used server"
    )
    accelerators_billed: int | None = Field(
        default=None,
        description="accelerators paid for: whole servers x accelerators per server, or the "
        "accelerators needed when they are billed one by one",
    )
    idle_accelerators: int | None = Field(
        default=None, description="accelerators billed beyond those the capacity needs"
    )
    per_month_idle: float | None = Field(
        default=None, description="the part of per_month paid for idle accelerators"
    )
    per_year: float | None = Field(default=None, description="per_month x 12")
    spread_per_million_output_tokens: Spread | None = Field(
        default=None, description="across repeated runs at the operating load; None: one run"
    )
    arithmetic: str = Field(description="the cost arithmetic written out for the report")
    reason: str = Field(
        description="where the figures come from (the operating point's run), or why there are none"
    )
    api: ApiCost | None = Field(
        default=None, description="a hosted API candidate's token prices (None: hardware)"
    )


class ApiCost(StrictModel):
    """A hosted API candidate's cost from the traffic's token mix."""

    input_per_million: float = Field(description="the input price per 1M tokens, in currency")
    cached_input_per_million: float = Field(
        description="the cached-input price per 1M tokens, in currency"
    )
    output_per_million: float = Field(description="the output price per 1M tokens, in currency")
    cache_hit_ratio: float = Field(description="the traffic's share of cached input tokens")
    requests_per_year: float = Field(
        description="peak requests/s x utilisation x 8,760 h x 3,600 s: the average traffic "
        "of a year"
    )


class Quality(StrictModel):
    """One candidate's quality: the estimate, its interval and whether it meets the bar."""

    candidate: str = Field(description="the candidate id")
    score_sets: tuple[str, ...] = Field(
        description=(
            "ids of the score sets (of the one judged tool/task/scorer/metric) "
            "whose item scores the estimate rests on"
        )
    )
    metric: str = Field(description="the spec's quality metric")
    binary: bool = Field(
        description="true when every item score is 0 or 1 (a pass/fail set: Wilson interval)"
    )
    n_items: int = Field(
        description=(
            "how many item scores the estimate rests on (each item counted once, at "
            "its repeats' mean; missing dataset items counted as failed included; 0 "
            "when the set was refused)"
        )
    )
    estimate: float | None = Field(description="the mean item score; None without scores")
    ci_low: float | None = Field(
        description="the interval's lower bound at confidence_level; None without scores"
    )
    ci_high: float | None = Field(
        description="the interval's upper bound at confidence_level; None without scores"
    )
    confidence_level: float = Field(
        description="the interval's confidence level, a fraction (the spec's bar)"
    )
    method: Literal["wilson", "bootstrap", "none"] = Field(
        description=(
            "wilson for binary scores, a seeded percentile bootstrap of the mean "
            "otherwise, none without scores"
        )
    )
    bootstrap_seed: int | None = Field(
        default=None, description="the bootstrap's random seed; None unless method is bootstrap"
    )
    bar_threshold: float = Field(description="the spec's quality bar, in the metric's unit")
    judged_on: Literal["point_estimate", "confidence_bound"] = Field(
        description=(
            "what is compared with the bar: the estimate, or the interval's "
            "conservative end (lower bound when higher is better)"
        )
    )
    judged_value: float | None = Field(
        description="the value compared with the bar; None without scores"
    )
    meets_bar: bool = Field(
        description="true when judged_value is on the right side of the bar (false without scores)"
    )
    reason: str = Field(
        description=(
            "the estimate, interval and comparison with the bar in one line, or why there is none"
        )
    )
    judged_set: str | None = Field(
        default=None, description="tool/task/scorer/metric of the score set the bar is judged on"
    )
    other_sets: tuple[str, ...] = Field(
        default=(), description="score sets of the candidate not judged (never pooled)"
    )
    items_scored: int | None = Field(
        default=None,
        description=(
            "dataset items the judged set scored, each once (repeats averaged); None when "
            "no set was matched with the dataset"
        ),
    )
    dataset_items: int | None = Field(
        default=None,
        description="the items the dataset holds (its file's ids, else dataset.size_items)",
    )
    missing_counted_as_failed: int = Field(
        default=0,
        description="dataset items the set does not score, counted at the metric's worst score",
    )
    scored_rows: int | None = Field(
        default=None, description="the item scores read, repeats of one item included"
    )
    coverage: str | None = Field(
        default=None,
        description="the coverage in words, shown beside every quality figure "
        "('350 of 400 items scored')",
    )
    judge_model: str | None = Field(
        default=None, description="the model that graded the items, when the set names one"
    )
    self_judged: bool = Field(
        default=False,
        description="true when the grading model is the candidate's own model (a finding)",
    )
