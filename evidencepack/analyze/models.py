"""The analysis results: checks, comparability, capacity, cost, quality, claims and the decision.

``DecisionDocument`` is written as ``decision.json`` (apiVersion ``evidencepack/decision/v1``)
and is everything the report renders: the templates read nothing else.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from .._models import Sha256Hex, StrictModel
from ..provenance import FileRecord
from ..spec import PackSpec
from .judgements import (
    CostBases,
    EvidenceFit,
    PublicReference,
    Robustness,
    TrainingReference,
)

DECISION_API_VERSION: Literal["evidencepack/decision/v1"] = "evidencepack/decision/v1"

Status = Literal["PASS", "WARN", "FAIL"]
Verdict = Literal["PASS", "PASS WITH WAIVERS", "FAIL"]
ClaimKind = Literal["measured", "proxy", "inherited", "simulated"]
"""measured: the team's own runs/scores of the candidate; proxy: the reference model on the
candidate's hardware (MLPerf); inherited: a vendor's, MLPerf's or another publisher's figure
taken as given; simulated: a model's estimate (aiconfigurator), never a measurement."""


class InputFile(StrictModel):
    """One input file of the pack: where it sits in the pack, what it is, its digest."""

    pack_path: str = Field(description="relative POSIX path inside the pack (inputs/...)")
    spec_path: str = Field(description="the path as the spec names it")
    role: Literal["spec", "dataset", "mlperf", "runs", "scores", "references", "prices"]
    candidate: str | None = None
    sha256: Sha256Hex
    size_bytes: int = Field(ge=0)
    format: str | None = Field(default=None, description="detected format id")
    tool: str | None = None
    tool_version: str | None = None
    warnings: tuple[str, ...] = ()
    plugin: str | None = Field(
        default=None,
        description="name and version of the plug-in whose format read the file (None: a "
        "built-in reader)",
    )

    def as_read(self) -> FileRecord:
        """The file as a reader is handed it: named by its pack path, with the digest and size
        of the one read the collector made (a reader never hashes a pack input again)."""
        return FileRecord(path=self.pack_path, size_bytes=self.size_bytes, sha256=self.sha256)


def in_spec(file: InputFile) -> str:
    """A file's own path relative to the spec (inside a cited folder, the file, not the folder)."""
    return file.pack_path.removeprefix("inputs/")


@dataclass(frozen=True)
class FileProblem:
    """A PROV-FILES finding about one cited input: missing, unreadable, not matching its pinned
    digest, or holding nothing the spec cites it for. ``file`` is the input concerned once it is
    in the pack (None for a file that could not be read at all)."""

    reason: str
    file: InputFile | None = None


class EvidenceLink(StrictModel):
    """A pointer from a figure to what it rests on: a store row and the file it came from."""

    row: str = Field(description="run id, score-set id, MLPerf result key or check id")
    file_sha256: Sha256Hex | None = None
    pack_path: str | None = None


class Waived(StrictModel):
    """A current waiver that covers a check result."""

    check: str
    candidate: str | None
    reason: str
    approver: str
    expires: dt.date


class CheckResult(StrictModel):
    """One check: a stable id, PASS/WARN/FAIL, a one-line reason and the evidence it used."""

    id: str = Field(description="C1..C5, SLO-MET, QUALITY, PROV-*, DECISION")
    title: str
    candidate: str | None = None
    status: Status
    hard: bool = Field(description="a FAIL of a hard check blocks the candidate (unless waived)")
    reason: str
    evidence: tuple[EvidenceLink, ...] = ()
    waived: Waived | None = None
    basis: Literal["observed", "declared", "mixed"] | None = Field(
        default=None,
        description="for checks of which model and stack the evidence is of: declared when the "
        "result rests only on the spec's declared values, mixed when partly (shown as "
        "'PASS (declared)'); None when the files record it",
    )

    @property
    def shown(self) -> str:
        """The status as the report and ``check`` print it: ``PASS (declared)`` where the
        result rests on declared values only."""
        return f"{self.status} (declared)" if self.basis == "declared" else self.status

    @property
    def blocking(self) -> bool:
        """Whether this result fails the release gate: a hard FAIL no waiver covers."""
        return self.hard and self.status == "FAIL" and self.waived is None


class Finding(StrictModel):
    """One thing found wrong with a run's data: by a reader (impossible values, a repeated log
    key, an INVALID verdict, empty outputs) or by a cross-check (a summary against its rows or
    detail log), or about a sweep (mixed tools or definitions). PROV-DATA reads these."""

    check: str = Field(description="the check that reports it (PROV-DATA)")
    candidate: str
    subject: str = Field(description="the run (spec path, #index within a file) or the sweep")
    model: str | None = Field(default=None, description="the run's model, recorded or declared")
    kind: Literal[
        "summary-disagrees",
        "duplicate-key",
        "impossible-value",
        "invalid-run",
        "empty-output",
        "unaccounted-requests",
        "mixed-sweep",
    ]
    severity: Literal["FAIL", "WARN"]
    figure: str | None = Field(default=None, description="the figure concerned")
    detail: str
    evidence: tuple[EvidenceLink, ...] = ()


class FieldDifference(StrictModel):
    """One field on which a run or score set differs from the envelope."""

    field: str
    envelope: str | None
    observed: str | None
    detail: str = Field(description="how much, or why it could not be compared")


class ComparabilityRow(StrictModel):
    """One run, score set or MLPerf reference against the frozen envelope."""

    subject: str = Field(description="run id, score-set id or MLPerf result key")
    kind: Literal["run", "scores", "mlperf", "reference"]
    candidate: str
    like_for_like: bool
    differences: tuple[FieldDifference, ...] = ()
    unknown: tuple[str, ...] = Field(default=(), description="envelope fields nobody states")
    declared: tuple[str, ...] = Field(
        default=(), description="fields taken from the spec's declared conditions, not the file"
    )


class LoadPoint(StrictModel):
    """One measured load level of a candidate (per replica)."""

    run: str
    offered_rate_rps: float | None = Field(description="open-loop target rate, if any")
    concurrency: int | None = None
    achieved_rate_rps: float = Field(
        description="completed requests per second (Little's law for closed loop)"
    )
    output_tokens_per_s: float
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    e2e_p99_ms: float | None = None
    latency_requests: int | None = Field(
        default=None,
        description="how many requests the p99 latencies rest on (below fit.min_requests_for_p99 "
        "the maximum stands in, and notes say so)",
    )
    error_rate: float
    meets_slo: bool
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

    candidate: str
    load_points: tuple[LoadPoint, ...]
    method: Literal["open_loop", "measured", "littles_law", "offline", "none"] = Field(
        description="how rates were obtained: open-loop or measured rates, Little's law for a "
        "closed-loop run without one, an offline run, or none"
    )
    confidence: Literal["sweep", "single_point", "none"]
    operating_point_rps: float | None = Field(
        description="X*: highest per-replica rate meeting the SLO"
    )
    operating_point_run: str | None
    output_tokens_per_s_at_op: float | None
    required_rate_rps: float = Field(description="peak_requests_per_s x (1 + headroom)")
    replicas: int | None
    accelerators_per_replica: int
    accelerators: int | None
    accelerators_per_server: int
    servers: int | None
    arithmetic: str = Field(description="the sizing arithmetic written out for the report")
    reason: str


class Spread(StrictModel):
    """The range of a figure over repeated runs at the operating load."""

    runs: int
    minimum: float
    maximum: float


class Cost(StrictModel):
    """One candidate's cost at the operating point: per 1M output tokens, per request, per month."""

    candidate: str
    currency: str
    price_per_accelerator_hour: float | None
    utilisation: float
    per_million_output_tokens: float | None
    per_request: float | None
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
    arithmetic: str
    reason: str


class Quality(StrictModel):
    """One candidate's quality: the estimate, its interval and whether it meets the bar."""

    candidate: str
    score_sets: tuple[str, ...]
    metric: str
    binary: bool
    n_items: int
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    confidence_level: float
    method: Literal["wilson", "bootstrap", "none"]
    bootstrap_seed: int | None = None
    bar_threshold: float
    judged_on: Literal["point_estimate", "confidence_bound"]
    judged_value: float | None
    meets_bar: bool
    reason: str
    judged_set: str | None = Field(
        default=None, description="tool/task/scorer/metric of the score set the bar is judged on"
    )
    other_sets: tuple[str, ...] = Field(
        default=(), description="score sets of the candidate not judged (never pooled)"
    )


class MlperfReference(StrictModel):
    """An MLPerf result cited for a candidate, beside the candidate's own stack."""

    candidate: str
    key: str
    round: str | None
    scenario: str
    benchmark: str
    validity: str
    system: str
    accelerator: str
    accelerators_total: int | None
    headline_value: float | None
    headline_unit: str | None
    per_accelerator_value: float | None
    stack_runtime: str | None
    stack_precision: str | None
    stack_matches: bool
    discount: float
    discounted_per_accelerator_value: float | None
    measured_ratio: float | None = Field(
        description="reference per-accelerator output tokens/s over the candidate's measured value"
    )
    accuracy: dict[str, float] = Field(default_factory=dict)
    average_watts: float | None = Field(
        default=None, description="MLPerf Power: the average system watts over the run"
    )
    kwh_per_million_output_tokens: float | None = Field(
        default=None,
        description="MLPerf Power: energy per 1M output tokens, watts / tokens per s x 1e6 / "
        "3.6e6 (inherited, whole system)",
    )
    energy_scope: str | None = Field(
        default=None, description="what the wattage covers (MLPerf Power: the whole system)"
    )
    design_power_watts: float | None = Field(
        default=None, description="the system's rated (design) power, where stated"
    )


class Claim(StrictModel):
    """A figure the report shows, typed by where it comes from, linked to its evidence."""

    id: str
    kind: ClaimKind
    candidate: str | None
    statement: str
    value: float | None
    unit: str
    evidence: tuple[EvidenceLink, ...]


class CandidateVerdict(StrictModel):
    """One candidate's standing: eligibility, capacity, cost, quality and the checks it failed."""

    id: str
    accelerator: str
    stack: str
    eligible: bool
    accelerators_needed: int | None
    servers_needed: int | None
    cost_per_million_output_tokens: float | None
    cost_per_month: float | None
    cost_per_year: float | None = None
    accelerators_billed: int | None = Field(
        default=None, description="accelerators paid for (whole servers unless billed singly)"
    )
    currency: str
    quality_estimate: float | None
    quality_meets_bar: bool
    failed_checks: tuple[str, ...]
    reasons: tuple[str, ...]
    waived_checks: tuple[str, ...] = Field(
        default=(), description="checks that failed for this candidate and are waived"
    )
    waivers: tuple[str, ...] = Field(
        default=(),
        description="each waived failure in words: who waived it, until when, why, and (for "
        "the quality bar) the measured figure beside the bar",
    )


class DecisionDocument(StrictModel):
    """decision.json: the complete analysis result and decision."""

    api_version: Literal["evidencepack/decision/v1"] = Field(
        default=DECISION_API_VERSION, alias="apiVersion"
    )
    tool_version: str
    spec_sha256: Sha256Hex
    decision_id: str
    question: str
    owner: str
    as_of: dt.date
    objective: str
    recommendation: str | None
    chosen: str | None
    chosen_agrees: bool | None = Field(description="None when the spec names no chosen candidate")
    verdict: Verdict = Field(
        description="FAIL when a hard check blocks the decision or no candidate is eligible; "
        "PASS WITH WAIVERS when the recommended or chosen candidate (or the decision) rests on "
        "a waived failure"
    )
    summary: str
    candidates: tuple[CandidateVerdict, ...]
    checks: tuple[CheckResult, ...]
    comparability: tuple[ComparabilityRow, ...]
    fit: tuple[EvidenceFit, ...] = Field(
        default=(),
        description="per candidate, each run and score set: whether it fits, and why not",
    )
    capacity: tuple[Capacity, ...]
    cost: tuple[Cost, ...]
    quality: tuple[Quality, ...]
    references: tuple[MlperfReference, ...]
    training_references: tuple[TrainingReference, ...] = Field(
        default=(),
        description="MLPerf Training results cited as situational references: never serving "
        "capacity",
    )
    public_references: tuple[PublicReference, ...] = Field(
        default=(),
        description="public results (measured elsewhere) and estimates (simulated) cited beside "
        "the candidates; they never size capacity",
    )
    claims: tuple[Claim, ...]
    findings: tuple[Finding, ...] = Field(
        default=(), description="every data finding the PROV-DATA checks rest on"
    )
    cost_bases: CostBases | None = Field(
        default=None,
        description="every cost basis each candidate states (rent, own), the energy, the "
        "ranking under each basis and owning's break-even",
    )
    robustness: Robustness | None = Field(
        default=None, description="how close the call is and what would flip it"
    )
    waivers_applied: tuple[Waived, ...]
    waivers_rejected: tuple[str, ...]
    inputs: tuple[InputFile, ...]
    spec: PackSpec = Field(description="the pack spec the decision was compiled from")

    def waived_failures(self) -> list[CheckResult]:
        """Every failed check a waiver covers (what ``check --no-waivers`` refuses)."""
        return [c for c in self.checks if c.status == "FAIL" and c.waived is not None]

    def gate_passes(self, *, allow_waivers: bool = True) -> bool:
        """The release gate: PASS, or PASS WITH WAIVERS unless waivers are not allowed."""
        if self.verdict == "PASS WITH WAIVERS":
            return allow_waivers
        return self.verdict == "PASS" and (allow_waivers or not self.waived_failures())
