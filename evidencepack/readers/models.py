"""The normalised models every input format is read into: serving runs and score sets.

A number is only comparable with another when both say what they measure: every latency
distribution carries its ``definition``, ``weighting`` and ``source`` (see ``DEFINITIONS``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..staging.figures import CANONICAL as CANONICAL
from ..staging.figures import DEFINITIONS as DEFINITIONS
from ..staging.figures import AggregateCheck as AggregateCheck
from ..staging.figures import Definition as Definition
from ..staging.figures import LatencyMetric as LatencyMetric
from ..staging.figures import LatencyStats as LatencyStats
from ..staging.figures import StatsSource as StatsSource
from ..staging.figures import Weighting as Weighting


class Load(StrictModel):
    """The load a run was measured under.

    ``open_loop``: requests arrive at ``request_rate_per_s`` (``arrival`` process), possibly
    capped at ``concurrency`` in flight; ``closed_loop``: ``concurrency`` users each send the
    next request when the last one finished; ``offline``: everything at once (max throughput).
    """

    kind: Literal["open_loop", "closed_loop", "offline"] | None = None
    request_rate_per_s: float | None = Field(default=None, gt=0)
    arrival: Literal["poisson", "constant", "gamma", "trace"] | None = None
    burstiness: float | None = None
    concurrency: int | None = Field(default=None, gt=0)


class Identity(StrictModel):
    """What a file states about the model and the run conditions; None where it says nothing."""

    model_name: str | None = None
    model_digest: Sha256Hex | None = None
    model_revision: str | None = None
    precision: str | None = None
    runtime_name: str | None = None
    runtime_version: str | None = None
    batch_size: int | None = None
    concurrency: int | None = None
    settings: dict[str, str | int | float | bool | None] = Field(default_factory=dict)


class TokenStats(StrictModel):
    """Token counts of a run: means and totals of input and output tokens."""

    input_mean_tokens: float | None = None
    output_mean_tokens: float | None = None
    input_total_tokens: int | None = None
    output_total_tokens: int | None = None


FindingKind = Literal[
    "summary-disagrees",
    "duplicate-key",
    "impossible-value",
    "invalid-run",
    "invalid-run-latency",
    "empty-output",
    "unaccounted-requests",
]


class RunFinding(StrictModel):
    """Something wrong with a run's data that a reader or a cross-check found.

    ``FAIL`` findings keep the run from being an operating point (unless waived) and fail the
    PROV-DATA check; ``WARN`` findings are shown. ``figure`` names the figure concerned.
    """

    kind: FindingKind
    severity: Literal["FAIL", "WARN"]
    figure: str | None = None
    detail: str


class Goodput(StrictModel):
    """The requests that met every SLO the tool was given, per second: a figure of its own with
    the SLOs that define it, never a throughput (``goodput_per_s`` is its rate, for SQL)."""

    requests_per_s: float | None = Field(
        default=None, ge=0, description="good requests per second, as the tool computed it"
    )
    tokens_per_s: float | None = Field(
        default=None,
        ge=0,
        description="tokens per second of the good requests (inference-perf's token_goodput, "
        "guidellm's output_token_goodput), where the file states it",
    )
    good_requests: int | None = Field(
        default=None, ge=0, description="how many requests met every SLO, where stated"
    )
    judged_requests: int | None = Field(
        default=None, ge=0, description="how many requests were judged against the SLOs"
    )
    slos: dict[str, float] = Field(
        default_factory=dict,
        description="each SLO as the file states it: the tool's metric name (with its unit where "
        "the name carries one) -> the limit, in ms for latencies; empty when the file does not "
        "state them",
    )
    slo_source: str | None = Field(
        default=None,
        description="where the file states the SLOs (a JSON path), or why they are unknown",
    )


class ServingRun(StrictModel):
    """One serving-benchmark run (one load point) from any tool, normalised.

    ``run_id`` is ``<first 12 hex of the file's sha256>#<index in the file>``: stable for the
    same bytes. ``role`` and ``candidate`` are set when the run is loaded into a store.
    """

    run_id: str
    index: int = Field(ge=0)
    format_id: str
    tool: str
    tool_version: str | None = None
    layout: str | None = None
    label: str | None = None
    timestamp: str | None = None
    identity: Identity = Field(default_factory=Identity)
    backend: str | None = None
    load: Load = Field(default_factory=Load)
    requests_sent: int | None = Field(default=None, ge=0)
    requests_completed: int | None = Field(default=None, ge=0)
    requests_failed: int | None = Field(default=None, ge=0)
    duration_s: float | None = Field(default=None, ge=0)
    request_throughput_per_s: float | None = Field(default=None, ge=0)
    output_token_throughput_per_s: float | None = Field(default=None, ge=0)
    total_token_throughput_per_s: float | None = Field(default=None, ge=0)
    goodput_per_s: float | None = Field(default=None, ge=0)
    goodput: Goodput | None = Field(
        default=None, description="the goodput with its SLOs, where the file states one"
    )
    tokens: TokenStats = Field(default_factory=TokenStats)
    ttft: LatencyStats | None = None
    tpot: LatencyStats | None = None
    itl: LatencyStats | None = None
    e2e: LatencyStats | None = None
    per_request_rows: int = Field(default=0, ge=0)
    verdict: Literal["VALID", "INVALID"] | None = Field(
        default=None, description="the tool's own judgement of the run (LoadGen's result_validity)"
    )
    verdict_reasons: tuple[str, ...] = ()
    checks: tuple[AggregateCheck, ...] = ()
    findings: tuple[RunFinding, ...] = ()
    warnings: tuple[str, ...] = ()
    role: str | None = None
    candidate: str | None = None

    def latency(self, metric: LatencyMetric) -> LatencyStats | None:
        """The run's latency stats for one metric (TTFT, TPOT, ITL or end-to-end), if measured."""
        stats: LatencyStats | None = getattr(self, metric)
        return stats


class DatasetRef(StrictModel):
    """The dataset a score set names: name, version, digest, split."""

    name: str | None = None
    version: str | None = None
    digest: Sha256Hex | None = None
    split: str | None = None


class ScoreSet(StrictModel):
    """One metric of one task scored over items (or only its aggregate, when items are absent).

    ``kind`` is ``binary`` when every item score is 0/1 (pass/fail), ``continuous`` otherwise.
    ``value`` and ``stderr`` are the tool's own aggregate; ``mean_item_score`` is recomputed
    from the items. ``set_id`` is ``<first 12 hex of the file's sha256>#<index>``.
    """

    set_id: str
    index: int = Field(ge=0)
    format_id: str
    tool: str
    tool_version: str | None = None
    task: str | None = None
    task_hash: str | None = None
    scorer: str | None = None
    metric: str
    filter: str | None = None
    direction: Literal["higher_is_better", "lower_is_better"] | None = None
    kind: Literal["binary", "continuous"] | None = None
    value: float | None = None
    stderr: float | None = None
    n_items: int = Field(default=0, ge=0)
    n_passed: int | None = Field(default=None, ge=0)
    mean_item_score: float | None = None
    identity: Identity = Field(default_factory=Identity)
    dataset: DatasetRef | None = None
    judge_model: str | None = None
    """The model that graded the items (an LLM judge), when the file names one."""
    timestamp: str | None = None
    warnings: tuple[str, ...] = ()
    role: str | None = None
    candidate: str | None = None


# -- reference points: public results to compare against (not the team's own runs) ------------

Provenance = Literal["measured_elsewhere", "simulated"]
"""``measured_elsewhere``: measured by someone else and published (InferenceX, an llm-d
benchmark report, MLCommons' endpoint tool); ``simulated``: modelled, never measured
(aiconfigurator). A simulated point never sizes capacity."""


EnergyMethod = Literal["wall", "accelerator", "rated", "estimate"]
"""How an energy figure was obtained: the whole system at the wall (MLPerf Power), the
accelerators' own counters (ML.ENERGY, DCGM, AIPerf GPU telemetry), a rated or design figure
(TDP, ``power.watts_per_server``), or an estimate. Figures of different methods differ by 2-3x
for the same work: they are never compared or summed without saying so."""


class ReferenceLoad(StrictModel):
    """The load a reference point was measured (or modelled) under, as its source states it.

    ``kind``: ``fixed_concurrency`` (a fixed number of requests in flight), ``open_loop`` (a
    request rate), ``multi_turn`` (users replaying sessions, agentic or chat traces),
    ``single_stream`` (one request at a time), ``modelled`` (a simulator's operating point).
    ``random_prompts`` and ``ignore_eos`` are True where the source's method forces synthetic
    prompts or output lengths (not comparable with real traffic unless a report says so);
    ``from_method`` names what is known only from the publisher's documented method, not the file.
    """

    kind: (
        Literal["fixed_concurrency", "open_loop", "multi_turn", "single_stream", "modelled"] | None
    ) = None
    concurrency: int | None = Field(default=None, gt=0)
    request_rate_per_s: float | None = Field(default=None, ge=0)
    input_tokens: float | None = Field(default=None, ge=0)
    output_tokens: float | None = Field(default=None, ge=0)
    workload: str | None = None
    random_prompts: bool | None = None
    ignore_eos: bool | None = None
    from_method: tuple[str, ...] = ()


class ReferenceFigures(StrictModel):
    """What a reference point reports. Throughputs in tokens (or requests) per second;
    ``*_per_accelerator`` divides by the accelerators the point used; ``interactivity`` is output
    tokens per second per user (a distribution: mean, p50, p90, p99 where stated)."""

    throughput_per_accelerator: float | None = Field(default=None, ge=0)
    output_throughput_per_accelerator: float | None = Field(default=None, ge=0)
    input_throughput_per_accelerator: float | None = Field(default=None, ge=0)
    total_throughput: float | None = Field(default=None, ge=0)
    output_throughput: float | None = Field(default=None, ge=0)
    request_throughput_per_s: float | None = Field(default=None, ge=0)
    interactivity: dict[str, float] = Field(default_factory=dict)
    ttft: LatencyStats | None = None
    tpot: LatencyStats | None = None
    itl: LatencyStats | None = None
    e2e: LatencyStats | None = None
    requests_completed: int | None = Field(default=None, ge=0)
    requests_failed: int | None = Field(default=None, ge=0)
    duration_s: float | None = Field(default=None, ge=0)
    energy_per_output_token_joules: float | None = Field(default=None, ge=0)
    average_power_watts: float | None = Field(default=None, ge=0)
    energy_method: EnergyMethod | None = None
    """How the energy was measured: ``wall`` (the whole system at the wall, e.g. MLPerf Power),
    ``accelerator`` (the accelerators' own counters, e.g. ML.ENERGY, DCGM), ``rated`` (a
    design or nameplate figure) or ``estimate``; None when the point reports no energy."""
    energy_scope: str | None = None
    """What the energy covers, in words (e.g. "the GPUs only, average over the run")."""


class ReferencePoint(StrictModel):
    """One public result to compare against: a row, a report or an estimate, normalised.

    ``point_id`` is ``<first 12 hex of the file's sha256>#<index>``. ``source_tool`` names what
    wrote the file (``inferencex``, ``llm-d-benchmark``, ``inference-endpoint``,
    ``aiconfigurator``); ``publisher``/``date`` are set only where the file states them. The
    stack version comes from the container image tag where that is all the file says.
    """

    point_id: str
    index: int = Field(ge=0)
    format_id: str
    source_tool: str
    tool_version: str | None = None
    provenance: Provenance
    publisher: str | None = None
    date: str | None = None
    label: str | None = None
    accelerator: str | None = None
    accelerator_count: int | None = Field(default=None, gt=0)
    model_name: str | None = None
    precision: str | None = None
    runtime_name: str | None = None
    runtime_version: str | None = None
    image: str | None = None
    parallelism: dict[str, int | str | bool] = Field(default_factory=dict)
    load: ReferenceLoad = Field(default_factory=ReferenceLoad)
    figures: ReferenceFigures = Field(default_factory=ReferenceFigures)
    settings: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()
