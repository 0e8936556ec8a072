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

from .._models import Sha256Hex, StrictModel
from .stack import StackComponent
from .system import AcceleratorType

CheckStatus = Literal["pass", "fail", "skip"]


class CheckRow(StrictModel):
    """One re-applied checker rule: what it expects, what the files say, and the verdict."""

    rule: str
    round: str | None
    expected: str
    actual: str
    status: CheckStatus
    source: str = ""


class SourceFile(StrictModel):
    """A file a result was read from, by role (detail, summary, system, measurements, ...)."""

    role: str
    path: str
    sha256: Sha256Hex
    size_bytes: int = Field(ge=0)


POWER_SCOPE = "whole system: the system under test's AC wall power, as MLPerf Power measures it"


class MlperfPower(StrictModel):
    """A result's power figure: measured from its files, or only the official table's row.

    ``average_watts`` for every scenario (the mean of the readings); ``metric_value`` and
    ``metric_unit`` are the official figure (W, or mJ per query for SingleStream/MultiStream);
    ``joules_per_token`` and ``joules_per_sample`` divide the watts by the result's throughput.
    """

    source: Literal["measured", "table"]
    scope: str = POWER_SCOPE
    average_watts: float | None
    metric_value: float | None
    metric_unit: str | None
    joules_per_token: float | None = None
    joules_per_sample: float | None = None
    window_begin: str | None = None
    window_end: str | None = None
    window_s: float | None = None
    readings: int | None = None
    readings_path: str | None = None
    table_value: float | None = None
    table_unit: str | None = None
    table_row: str | None = None
    design_power_watts: float | None = None


class MlperfResult(StrictModel):
    """One MLPerf result, validated and normalised. Times in ms, throughput per second."""

    key: str
    round: str | None
    round_source: Literal["argument", "folder", "table", "seeds"] | None
    division: str | None
    submitter: str | None
    system: str | None
    system_name: str | None
    location: str
    benchmark: str | None
    benchmark_dir: str
    model_family: str | None
    scenario: Literal["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
    validity: Literal["VALID", "INVALID"]
    invalid_reasons: tuple[str, ...]
    checks_ok: bool
    headline_value: float | None
    headline_unit: str | None
    tokens_per_s: float | None
    tokens_inferred: bool
    samples_per_s: float | None
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    latency_ms: dict[str, float]
    ttft_ms: dict[str, float]
    tpot_ms: dict[str, float]
    target_qps: float | None
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    min_duration_ms: int | None
    query_count: int | None
    loadgen_version: str | None
    test_datetime: str | None
    log_source: Literal["detail", "summary", "endpoint"]
    seed_round: str | None
    accelerator: str | None
    accelerators_per_node: int | None
    nodes: int | None
    accelerators_total: int | None
    precision: str | None
    precision_raw: str | None
    runtime: tuple[StackComponent, ...]
    platform: tuple[StackComponent, ...]
    stack_raw: str
    accuracy: dict[str, float]
    accuracy_hash: str | None
    test06: Literal["pass", "fail"] | None
    checks: tuple[CheckRow, ...]
    sources: tuple[SourceFile, ...]
    notes: tuple[str, ...] = ()
    power: MlperfPower | None = None
    design_power_watts: float | None = None
    accelerator_types: tuple[AcceleratorType, ...] = ()

    @property
    def primary_runtime(self) -> StackComponent | None:
        """The first runtime the submitter named, if any."""
        return self.runtime[0] if self.runtime else None


class Rejection(StrictModel):
    """A result that could not be imported, with the ``file:line`` problems that say why."""

    location: str
    reason: str
    problems: tuple[str, ...]


class ImportReport(StrictModel):
    """What one ``import_path`` did: keys imported, already present, rejected and skipped.

    Skipped runs are not errors: accuracy-mode LoadGen runs carry no performance result, and
    non-LLM benchmarks (resnet, yolo, ...) are out of scope.
    """

    path: str
    round: str | None
    imported: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    skipped: tuple[Rejection, ...] = ()

    @property
    def ok(self) -> bool:
        """True when no result was rejected."""
        return not self.rejected
