"""What an MLPerf Endpoints curve is once read: its points, its power, its re-applied rules.

MLPerf Endpoints (MLCommons' endpoint-based programme, apart from MLPerf Inference) publishes one
result as a Pareto curve of 8-32 points over concurrency for one system, model and dataset. Two
layouts with two sets of definitions are read, each under its own names (``definitions``):

- v1.0 bundles: ``tps_per_user = 1000 / tpot_p90_ms`` and TTFT at p90 (``ttft_p90_ms``);
- v0.7 results: ``tps_per_user = system_tps / concurrency`` (``tps_per_user_v07``) and TTFT at
  p99 (``ttft_p99_ms``); a v0.7 figure is never stored under a v1.0 name.

Keys: ``endpoints/<layout>/<division>/<submission>/<system>/<model>``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import StrictModel
from .models import SourceFile

Layout = Literal["v1.0", "v0.7"]
Region = Literal["ultra_low", "low", "medium", "high", "margin", "offline", "out_of_range"]
Severity = Literal["reject", "reject_points", "flag", "warn", "info"]
Verdict = Literal["pass", "fail", "skip"]
PowerTier = Literal["declared", "computed", "mlc_estimated"]


class RegionBounds(StrictModel):
    """The region boundaries of one curve (rules §5.4-5.5: log-2 thirds from C_min to C_max)."""

    c_max: int = Field(description="the declared maximum supported concurrency (C_max)")
    c_min: int = Field(description="C_min: the curve's lowest concurrency, clamped to 1-32")
    ultra_low: tuple[int, int] = Field(description="Ultra Low (low latency): 1 to C_min")
    low: tuple[int, int] = Field(description="Low Concurrency: first and last concurrency")
    medium: tuple[int, int] = Field(description="Medium Concurrency: first and last concurrency")
    high: tuple[int, int] = Field(description="High Concurrency: C_max is its last concurrency")
    margin: tuple[int, int] = Field(
        description="the 10% margin above C_max (legal, but covers no region)"
    )


class EndpointsPoint(StrictModel):
    """One measured point of a curve, as its files state it (figures never recomputed here)."""

    folder: str = Field(description="the point's folder (r<N>, or point_<N> in v0.7)")
    concurrency: int = Field(
        description="target in-flight queries (a dedicated Offline run: one pass)"
    )
    region: Region | None = Field(
        description="the region the rules place the concurrency in; None when C_max is unknown"
    )
    declared_region: str | None = Field(description="point.yaml's region, when it declares one")
    offline: str | None = Field(description="point.yaml's offline: dedicated, elected or none")
    system_tps: float | None = Field(description="output tokens per second, the whole system")
    tps_per_user: float | None = Field(
        description="v1.0 only: tps_per_user as the file states it (defined as 1000 / tpot_p90_ms)"
    )
    tps_per_user_v07: float | None = Field(
        description=(
            "v0.7 only: tps_per_user as the file states it (defined as system_tps / concurrency)"
        )
    )
    ttft_p90_ms: float | None = Field(description="v1.0: TTFT p90, ms (the v1.0 headline)")
    ttft_p99_ms: float | None = Field(description="TTFT p99, ms (the v0.7 headline `ttft`)")
    ttft_ms: dict[str, float] = Field(
        description="TTFT percentiles in ms by percentile ('50', '90', '99.9'; '50.0' read as '50')"
    )
    tpot_p90_ms: float | None = Field(description="TPOT p90, ms")
    tpot_ms: dict[str, float] = Field(description="TPOT percentiles in ms by percentile")
    issued: int | None = Field(description="n_samples_issued")
    completed: int | None = Field(description="n_samples_completed")
    failed: int | None = Field(description="n_samples_failed")
    duration_s: float | None = Field(description="the whole run's duration, seconds")
    output_tokens: float | None = Field(description="total output tokens of the run")
    accuracy: dict[str, float] = Field(
        description="accuracy scores at this point by dataset/metric; empty where not checked"
    )
    load_pattern: str | None = Field(description="runtime_settings.load_pattern")
    stream_all_chunks: bool | None = Field(description="runtime_settings.stream_all_chunks")
    min_duration_ms: int | None = Field(description="runtime_settings.min_duration_ms")
    steady_status: str | None = Field(
        description="steady_state.status (windowable, insufficient_duration, ...); None: no block"
    )
    steady_verdict: str | None = Field(
        description="steady_state.verdict (STEADY STATE, drifting_up, ...)"
    )
    window_s: float | None = Field(description="the steady-state window's issue-time span, seconds")
    window_super_passes: tuple[int, int] | None = Field(
        description="the window's first and last super-pass"
    )
    steady_official: bool = Field(
        description=(
            "true when the steady-state window is the official result (windowable and STEADY "
            "STATE); false: the whole-run figures are, and a drifting metric is a range"
        )
    )
    tps_per_kw: float | None = Field(
        description="system_tps / provisioned kW, recomputed here; None without a power figure"
    )
    dataset: str | None = Field(description="point.yaml's dataset")
    seed_set: str | None = Field(description="point.yaml's seed_set")


class EndpointsPower(StrictModel):
    """The curve's provisioned power: one figure for the whole curve, with its tier."""

    watts: float | None = Field(description="provisioned power, W; None when none can be derived")
    tier: PowerTier | None = Field(
        description=(
            "declared (a stated total), computed (component TDPs x (1 + cooling overhead)) or "
            "mlc_estimated (MLCommons fills groups in: 'MLC Estimated Power')"
        )
    )
    cooling: str | None = Field(description="liquid or air, as the file states it")
    overhead_fraction: float | None = Field(description="0.30 liquid, 0.50 air, or as stated")
    components_w: dict[str, float] = Field(
        description="each component group's watts before overhead (cpu, accelerator, ...)"
    )
    problems: tuple[str, ...] = Field(description="why no total could be derived, if none")
    path: str | None = Field(description="system_power.json as imported; None when absent")


class EndpointsCheck(StrictModel):
    """One re-applied Endpoints checker rule, for the curve or one point."""

    rule: str = Field(description="the checker's rule id (e.g. offline-ordering, point-duration)")
    severity: Severity = Field(
        description="what the rules assign on failure: reject, reject_points, flag, warn or info"
    )
    point: int | None = Field(description="the point's concurrency; None for a curve-wide rule")
    status: Verdict = Field(description="pass, fail, or skip when the rule cannot be judged")
    expected: str = Field(description="what the rule expects, in words")
    actual: str = Field(description="what the files say, in words")


class EndpointsCurve(StrictModel):
    """One MLPerf Endpoints result: a curve for one system, model and dataset."""

    key: str = Field(description="endpoints/<layout>/<division>/<submission>/<system>/<model>")
    layout: Layout = Field(description="v1.0 bundle or v0.7 results, which fix the definitions")
    definitions: str = Field(description="the layout's definitions of tps_per_user and TTFT")
    submission: str = Field(description="the submission folder's name")
    system: str = Field(description="the system's folder name")
    model: str = Field(description="the model folder's name")
    model_name: str | None = Field(description="the model name the files declare")
    division: str | None = Field(description="Standardized, Serviced or RDI; None when not stated")
    system_name: str | None = Field(description="system_desc's system_name")
    submitter: str | None = Field(description="system_desc's submitter_org_names")
    accelerator: str | None = Field(description="the accelerator model name")
    accelerators_total: int | None = Field(description="nodes x accelerators per node")
    serving_framework: str | None = Field(description="system_desc's serving_framework")
    precision: str | None = Field(description="model_precision")
    availability: str | None = Field(
        description="publication status: Available, Preview or RDI, as declared"
    )
    available_by: str | None = Field(
        description="a Preview's target availability date (ISO), when declared"
    )
    prices_disclosed: bool | None = Field(
        description="Serviced only: whether the description discloses prices; None elsewhere"
    )
    regions: RegionBounds | None = Field(description="the region bounds; None without C_max")
    points: tuple[EndpointsPoint, ...] = Field(description="the points, by concurrency")
    power: EndpointsPower = Field(description="the curve's provisioned power")
    checks: tuple[EndpointsCheck, ...] = Field(description="every re-applied rule's verdict")
    sources: tuple[SourceFile, ...] = Field(description="every file read, with its digest")

    @property
    def failed(self) -> tuple[EndpointsCheck, ...]:
        """The checks that failed."""
        return tuple(c for c in self.checks if c.status == "fail")
