"""What an MLPerf import produces: results with their checks and sources, rejections, the report.

A result's ``key`` is stable and citable from a spec (``MlperfRef.result``):

- in a results tree: ``<round>/<division>/<submitter>/<system>/<benchmark folder>/<Scenario>``,
  e.g. ``v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_1/llama2-70b-99/Server`` (the scenario folder
  in canonical case; ``no-round`` / ``no-division`` stand in for what the tree does not say);
- a LoadGen output folder outside any tree: ``loadgen/<folder name>``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from .stack import StackComponent
from .system import AcceleratorType

CheckStatus = Literal["pass", "fail", "skip"]


class CheckRow(StrictModel):
    """One re-applied checker rule: what it expects, what the files say, and the verdict."""

    rule: str = Field(
        description=(
            "the rule's id (e.g. round.accuracy, round.test06, power.window, training.converged)"
        )
    )
    round: str | None = Field(
        description="the round whose rules it applies; None for a rule that holds in every round"
    )
    expected: str = Field(description="what the rule expects, in words")
    actual: str = Field(description="what the files say, in words")
    status: CheckStatus = Field(
        description="pass, fail, or skip when the rule cannot be judged (e.g. no round known)"
    )
    source: str = Field(
        default="",
        description="file:line the actual value was read from; empty when it has no one place",
    )


class SourceFile(StrictModel):
    """A file a result was read from, by role (detail, summary, system, measurements, ...)."""

    role: str = Field(
        description=(
            "what the file is to the result (detail, summary, system, measurements, "
            "accuracy, power files, run:<name> for a training run, ...)"
        )
    )
    path: str = Field(description="the file's path as imported")
    sha256: Sha256Hex = Field(description="sha256 hex of the file's bytes")
    size_bytes: int = Field(ge=0, description="the file's size in bytes")


POWER_SCOPE = "whole system: the system under test's AC wall power, as MLPerf Power measures it"


class MlperfPower(StrictModel):
    """A result's power figure: measured from its files, or only the official table's row.

    ``average_watts`` for every scenario (the mean of the readings); ``metric_value`` and
    ``metric_unit`` are the official figure (W, or mJ per query for SingleStream/MultiStream);
    ``joules_per_token`` and ``joules_per_sample`` divide the watts by the result's throughput.
    """

    source: Literal["measured", "table"] = Field(
        description=(
            "measured: computed from the result's power readings; table: only the "
            "official results table's power row"
        )
    )
    scope: str = Field(
        default=POWER_SCOPE,
        description="what the watts cover: the whole system under test at the wall",
    )
    average_watts: float | None = Field(
        description=(
            "mean of the positive readings inside LoadGen's power window, watts "
            "(table: the row's value when in watts); None when unknown"
        )
    )
    metric_value: float | None = Field(
        description=(
            "the official power figure: watts for Offline, Server and Interactive, "
            "millijoules per query for SingleStream and MultiStream"
        )
    )
    metric_unit: str | None = Field(
        description="metric_value's unit (Watts or millijoules; the table's unit for a table row)"
    )
    joules_per_token: float | None = Field(
        default=None,
        description="average_watts / tokens per second: joules per output token; None without both",
    )
    joules_per_sample: float | None = Field(
        default=None,
        description="average_watts / samples per second: joules per sample; None without both",
    )
    window_begin: str | None = Field(
        default=None, description="LoadGen's power_begin as logged (UTC); None for a table figure"
    )
    window_end: str | None = Field(
        default=None, description="LoadGen's power_end as logged (UTC); None for a table figure"
    )
    window_s: float | None = Field(
        default=None, description="the power window's length, seconds; None for a table figure"
    )
    readings: int | None = Field(
        default=None,
        description="how many readings fell inside the window; None for a table figure",
    )
    readings_path: str | None = Field(
        default=None,
        description="the analyzer's readings file (spl.txt) as imported; None for a table figure",
    )
    table_value: float | None = Field(
        default=None,
        description=(
            "the official table's power figure for the result; None when the table has no row"
        ),
    )
    table_unit: str | None = Field(
        default=None, description="that figure's unit; None when the table has no row"
    )
    table_row: str | None = Field(
        default=None,
        description=(
            "the table row the figure comes from, as file and index; None when the table has no row"
        ),
    )
    design_power_watts: float | None = Field(
        default=None,
        description=(
            "the system's rated (design) power, watts: its system description's, "
            "else the table's; None when neither states it"
        ),
    )


class MlperfResult(StrictModel):
    """One MLPerf result, validated and normalised. Times in ms, throughput per second."""

    key: str = Field(
        description=(
            "the result's stable key, citable from a spec: "
            "<round>/<division>/<submitter>/<system>/<benchmark folder>/<Scenario>, "
            "or loadgen/<folder> for a run outside a results tree"
        )
    )
    round: str | None = Field(
        description="the MLPerf round (e.g. v5.1); None when it cannot be told"
    )
    round_source: Literal["argument", "folder", "table", "seeds"] | None = Field(
        description=(
            "where the round comes from: --round, the tree's folder name, the "
            "official table, or the run's seeds; None when unknown"
        )
    )
    division: str | None = Field(
        description="closed or open; None when not known (a run outside a tree)"
    )
    submitter: str | None = Field(description="the submitting organisation; None when not known")
    system: str | None = Field(
        description="the system's folder name (its id in the submission); None outside a tree"
    )
    system_name: str | None = Field(
        description="the system's name from its description; None when not stated"
    )
    location: str = Field(
        description="the result's folder relative to the imported tree's root (a LoadGen "
        "folder's own name outside a tree)"
    )
    benchmark: str | None = Field(
        description="the canonical benchmark name (e.g. llama2-70b-99); None when not recognised"
    )
    benchmark_dir: str = Field(description="the benchmark folder's name as on disk")
    model_family: str | None = Field(
        description="the benchmark's model family; None when the benchmark is not recognised"
    )
    scenario: Literal["Offline", "Server", "Interactive", "SingleStream", "MultiStream"] = Field(
        description="the scenario (an Interactive result is logged by LoadGen as Server)"
    )
    validity: Literal["VALID", "INVALID"] = Field(
        description="LoadGen's own verdict on the run: VALID or INVALID"
    )
    invalid_reasons: tuple[str, ...] = Field(
        description="why LoadGen found the run INVALID (unmet constraints); empty when VALID"
    )
    checks_ok: bool = Field(description="true when no re-applied checker rule failed (checks)")
    headline_value: float | None = Field(
        description=(
            "the figure the official table reports: tokens/s (Offline, Server, "
            "Interactive), a latency percentile in ms (SingleStream, MultiStream), "
            "or samples/s without a token count; None when not logged"
        )
    )
    headline_unit: str | None = Field(description="headline_value's unit; None when not logged")
    official_unit_label: str | None = Field(
        default=None,
        description=(
            "the official table's unit label for the headline, when the round's table is at hand "
            "(None otherwise); it can name a tokens/s figure Samples/s or Queries/s (v5.1 "
            "llama3.1-8b Interactive, v4.1 NeuralMagic): headline_unit is the physical unit"
        ),
    )
    tokens_per_s: float | None = Field(
        description="output tokens per second LoadGen logged; None when not logged"
    )
    tokens_inferred: bool = Field(
        description="true when tokens_per_s is LoadGen's inferred figure (gptj), not a counted one"
    )
    samples_per_s: float | None = Field(
        description="samples (queries) per second LoadGen logged; None when not logged"
    )
    ttft_p99_ms: float | None = Field(
        description="p99 time to first token, milliseconds; None when not logged"
    )
    tpot_p99_ms: float | None = Field(
        description="p99 time per output token, milliseconds; None when not logged"
    )
    latency_ms: dict[str, float] = Field(
        description=(
            "request latency by statistic (min, max, mean, p50, p90, p95, p97, p99, "
            "p99.9), milliseconds (MultiStream: per query)"
        )
    )
    ttft_ms: dict[str, float] = Field(description="time to first token by statistic, milliseconds")
    tpot_ms: dict[str, float] = Field(
        description="time per output token by statistic, milliseconds"
    )
    target_qps: float | None = Field(
        description=(
            "the target queries per second LoadGen ran with (effective setting); "
            "None when not logged"
        )
    )
    ttft_limit_ms: float | None = Field(
        description="the TTFT latency limit LoadGen ran with, milliseconds; None when not logged"
    )
    tpot_limit_ms: float | None = Field(
        description="the TPOT latency limit LoadGen ran with, milliseconds; None when not logged"
    )
    min_duration_ms: int | None = Field(
        description="the minimum run duration LoadGen ran with, milliseconds; None when not logged"
    )
    query_count: int | None = Field(
        description="queries LoadGen issued (result_query_count); None when not logged"
    )
    loadgen_version: str | None = Field(
        description="the LoadGen version that ran; None when not logged"
    )
    test_datetime: str | None = Field(
        description="the test date-time LoadGen logged; None when not logged"
    )
    log_source: Literal["detail", "summary", "endpoint"] = Field(
        description=(
            "which log the figures were read from: the detail log, the summary, or "
            "the endpoint tool's result"
        )
    )
    seed_round: str | None = Field(
        description=(
            "the round whose official seeds the run used; None for other seeds (a "
            "team's own run, LoadGen's built-in seeds)"
        )
    )
    accelerator: str | None = Field(
        description=(
            "the accelerator as the system description names it (several kinds "
            "joined by ' + '); None when not stated"
        )
    )
    accelerators_per_node: int | None = Field(
        description="accelerators per node, from the system description; None when not stated"
    )
    nodes: int | None = Field(
        description="number of nodes, from the system description; None when not stated"
    )
    accelerators_total: int | None = Field(
        description="nodes x accelerators per node; None when either is not stated"
    )
    precision: str | None = Field(
        description=(
            "the precision, lower case: from the measurements JSON, else a hint in "
            "the software stack; None when neither states it"
        )
    )
    precision_raw: str | None = Field(
        description="the precision as the measurements JSON writes it; None without one"
    )
    runtime: tuple[StackComponent, ...] = Field(
        description=(
            "the runtimes (serving or inference engines) recognised in the software "
            "stack, in the order written"
        )
    )
    platform: tuple[StackComponent, ...] = Field(
        description="the platforms (CUDA, ROCm, ...) recognised in the software stack"
    )
    stack_raw: str = Field(
        description=(
            "the system's software stack as written (framework: ...; "
            "other_software_stack: ...); empty without a system description"
        )
    )
    accuracy: dict[str, float] = Field(
        description="the accuracy run's metrics by name (accuracy.txt); empty without one"
    )
    accuracy_hash: str | None = Field(description="the hash line of accuracy.txt; None without one")
    test06: Literal["pass", "fail"] | None = Field(
        description=(
            "the TEST06 compliance verdict (verify_accuracy.txt); None when the "
            "result has no TEST06"
        )
    )
    checks: tuple[CheckRow, ...] = Field(
        description="each re-applied checker rule with its verdict"
    )
    sources: tuple[SourceFile, ...] = Field(
        description="every file the result was read from, by role, with its digest"
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description=(
            "what to know about the import: assumptions made and fields that could not be read"
        ),
    )
    power: MlperfPower | None = Field(
        default=None,
        description="the result's MLPerf Power figure; None for a result without power",
    )
    design_power_watts: float | None = Field(
        default=None, description="the system's rated (design) power, watts; None when not stated"
    )
    accelerator_types: tuple[AcceleratorType, ...] = Field(
        default=(), description="each kind of accelerator in the system, with its count per node"
    )
    availability: str | None = Field(
        default=None,
        description="the system's publication status as its description writes it (available, "
        "preview, rdi: research, development or internal); None when not stated",
    )
    available_by: str | None = Field(
        default=None,
        description="the date a preview system is to be available by, where its description "
        "states one (target_availability_date); None otherwise",
    )

    @property
    def primary_runtime(self) -> StackComponent | None:
        """The first runtime the submitter named, if any."""
        return self.runtime[0] if self.runtime else None


class Rejection(StrictModel):
    """A result that could not be imported, with the ``file:line`` problems that say why."""

    location: str = Field(
        description="the result's folder that could not be imported (or was skipped)"
    )
    reason: str = Field(description="why, in one line")
    problems: tuple[str, ...] = Field(description="each problem found, as file:line: message")


class ImportReport(StrictModel):
    """What one ``import_path`` did: keys imported, already present, rejected and skipped.

    Skipped runs are not errors: accuracy-mode LoadGen runs carry no performance result, and
    non-LLM benchmarks (resnet, yolo, ...) are out of scope.
    """

    path: str = Field(description="the folder imported, as given")
    round: str | None = Field(description="the round given with --round; None when not given")
    imported: tuple[str, ...] = Field(
        default=(), description="keys of the results added to the store"
    )
    unchanged: tuple[str, ...] = Field(
        default=(), description="keys of results already in the store from the same files"
    )
    rejected: tuple[Rejection, ...] = Field(
        default=(),
        description=(
            "results that could not be imported, with why (including a key already "
            "stored from other files)"
        ),
    )
    skipped: tuple[Rejection, ...] = Field(
        default=(),
        description="runs that are not results (accuracy-mode runs, non-LLM benchmarks), with why",
    )

    @property
    def ok(self) -> bool:
        """True when no result was rejected."""
        return not self.rejected
