"""The analysis results: checks, comparability, capacity, cost, quality, claims and the decision.

``DecisionDocument`` is written as ``decision.json`` (apiVersion ``evidencepack/decision/v1``)
and is everything the report renders: the templates read nothing else.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..intake.records import InputFile
from ..spec.models import PackSpec

# Re-exported: defined in figures.py and judgements.py, imported from here by the stages.
from .figures import Capacity as Capacity
from .figures import Cost as Cost
from .figures import LoadPoint as LoadPoint
from .figures import Quality as Quality
from .figures import Spread as Spread
from .judgements import (
    CostBases,
    EvidenceFit,
    PublicReference,
    Robustness,
    TrainingReference,
)
from .judgements import MlperfReference as MlperfReference

DECISION_API_VERSION: Literal["evidencepack/decision/v1"] = "evidencepack/decision/v1"

Status = Literal["PASS", "WARN", "FAIL"]
Verdict = Literal["PASS", "PASS WITH WAIVERS", "FAIL"]
ClaimKind = Literal["measured", "proxy", "inherited", "simulated"]
"""measured: the team's own runs/scores of the candidate; proxy: the reference model on the
candidate's hardware (MLPerf); inherited: a vendor's, MLPerf's or another publisher's figure
taken as given; simulated: a model's estimate (aiconfigurator), never a measurement."""


class EvidenceLink(StrictModel):
    """A pointer from a figure to what it rests on: a store row and the file it came from."""

    row: str = Field(description="run id, score-set id, MLPerf result key or check id")
    file_sha256: Sha256Hex | None = Field(
        default=None,
        description=(
            "sha256 hex of the file the figure comes from; None when the link names "
            "a store row only"
        ),
    )
    pack_path: str | None = Field(
        default=None,
        description="that file's path inside the pack; None when the link names a store row only",
    )


class Waived(StrictModel):
    """A current waiver that covers a check result."""

    check: str = Field(description="the id of the check waived")
    candidate: str | None = Field(
        description=(
            "the candidate whose check result is waived; None for a check of the whole decision"
        )
    )
    reason: str = Field(description="why the waiver was granted, as the spec states it")
    approver: str = Field(description="who approved the waiver, as the spec states it")
    expires: dt.date = Field(description="the last date the waiver holds (ISO date)")


class CheckResult(StrictModel):
    """One check: a stable id, PASS/WARN/FAIL, a one-line reason and the evidence it used."""

    id: str = Field(description="C1..C5, SLO-MET, QUALITY, PROV-*, DECISION")
    title: str = Field(description="the check's title in words")
    candidate: str | None = Field(
        default=None,
        description="the candidate checked; None for a check of the whole decision (DECISION)",
    )
    status: Status = Field(
        description=(
            "PASS, WARN or FAIL (before any waiver: a waived FAIL stays FAIL, with waived set)"
        )
    )
    hard: bool = Field(description="a FAIL of a hard check blocks the candidate (unless waived)")
    reason: str = Field(description="one line saying why the check has this status")
    evidence: tuple[EvidenceLink, ...] = Field(
        default=(), description="the store rows and files the result rests on"
    )
    waived: Waived | None = Field(
        default=None,
        description="the current waiver that covers this FAIL or WARN; None when none does",
    )
    basis: Literal["observed", "declared", "mixed"] | None = Field(
        default=None,
        description="for checks of which model and stack the evidence is of: declared when the "
        "result rests only on the spec's declared values, mixed when partly (shown as "
        "'PASS (declared)'); None when the files record it",
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description="findings expected by design, said but never counted as warnings: a load "
        "sweep's top point its tool judged INVALID for latency above a valid point, a lone load "
        "point, an MLPerf result the spec cites by its no-round key, identity declared where the "
        "spec allows it; a check with notes only is a PASS",
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
    detail log), or about a sweep (mixed tools or definitions); or with a score set's items (a
    score outside the metric's range, an item the dataset does not hold). PROV-DATA reads
    these."""

    check: str = Field(description="the check that reports it (PROV-DATA)")
    candidate: str = Field(description="the candidate whose evidence it concerns")
    subject: str = Field(
        description="the run or score set (spec path, #index within a file) or the sweep"
    )
    model: str | None = Field(default=None, description="the run's model, recorded or declared")
    kind: Literal[
        "summary-disagrees",
        "duplicate-key",
        "impossible-value",
        "invalid-run",
        "invalid-run-latency",
        "empty-output",
        "unaccounted-requests",
        "mixed-sweep",
        "unknown-item",
    ] = Field(
        description=(
            "what was found: a summary disagreeing with its rows, a repeated log "
            "key, an impossible value (also a score outside its metric's range), an "
            "invalid run (invalid-run-latency: judged so for a latency limit), empty "
            "outputs, requests not accounted for, a sweep mixing tools or definitions, or a "
            "scored item the dataset does not hold"
        )
    )
    severity: Literal["FAIL", "WARN", "NOTE"] = Field(
        description="the status the finding gives the PROV-DATA check: FAIL or WARN; NOTE for a "
        "finding expected by design (a sweep's top point judged INVALID for latency above a "
        "valid point), listed in the check's notes, never counted as a warning"
    )
    figure: str | None = Field(default=None, description="the figure concerned")
    detail: str = Field(description="what was found, in one line")
    evidence: tuple[EvidenceLink, ...] = Field(
        default=(), description="the store rows and files it was found in"
    )


class FieldDifference(StrictModel):
    """One field on which a run or score set differs from the envelope."""

    field: str = Field(
        description=(
            "the run condition that differs (model_name, model_digest, precision, "
            "runtime, runtime_version, concurrency, hardware, input_tokens_mean, "
            "output_tokens_mean)"
        )
    )
    envelope: str | None = Field(description="the frozen envelope's value, as text")
    observed: str | None = Field(
        description="the evidence's value, as text (from the file, or declared in the spec)"
    )
    detail: str = Field(description="how much, or why it could not be compared")


class ComparabilityRow(StrictModel):
    """One run, score set or MLPerf reference against the frozen envelope."""

    subject: str = Field(description="run id, score-set id or MLPerf result key")
    kind: Literal["run", "scores", "mlperf", "reference"] = Field(
        description=(
            "what the evidence is: a serving run, a quality score set, an MLPerf "
            "result or a public reference"
        )
    )
    candidate: str = Field(description="the candidate the evidence is cited for")
    like_for_like: bool = Field(
        description=(
            "true when no field differs from the envelope and none of model, model "
            "digest, precision, runtime and runtime version is unknown"
        )
    )
    differences: tuple[FieldDifference, ...] = Field(
        default=(),
        description="each field on which the evidence differs from the envelope, with how much",
    )
    unknown: tuple[str, ...] = Field(default=(), description="envelope fields nobody states")
    declared: tuple[str, ...] = Field(
        default=(), description="fields taken from the spec's declared conditions, not the file"
    )


class Claim(StrictModel):
    """A figure the report shows, typed by where it comes from, linked to its evidence."""

    id: str = Field(
        description="a stable id: <area>.<candidate>.<figure> (e.g. capacity.h200-vllm.xstar)"
    )
    kind: ClaimKind = Field(
        description=(
            "where the figure comes from: measured (the team's own runs or scores), "
            "proxy (MLPerf on the candidate's hardware), inherited (taken as given) "
            "or simulated (a model's estimate)"
        )
    )
    candidate: str | None = Field(
        description="the candidate the figure is of; None for a figure of the whole decision"
    )
    statement: str = Field(description="what the figure is, in words")
    value: float | None = Field(description="the figure, in unit; None when it has no value")
    unit: str = Field(description="the figure's unit (e.g. req/s, USD/accelerator-hour)")
    evidence: tuple[EvidenceLink, ...] = Field(
        description="the store rows and files the figure rests on"
    )


class CandidateVerdict(StrictModel):
    """One candidate's standing: eligibility, capacity, cost, quality and the checks it failed."""

    id: str = Field(description="the candidate id")
    accelerator: str = Field(description="the candidate's accelerator, as the spec names it")
    stack: str = Field(
        description="runtime, version and precision in one line, as the spec states them"
    )
    eligible: bool = Field(
        description=(
            "true when no check failed for the candidate without a waiver and its "
            "capacity could be sized"
        )
    )
    accelerators_needed: int | None = Field(
        description=(
            "accelerators the capacity needs (Capacity.accelerators); None without "
            "an operating point"
        )
    )
    servers_needed: int | None = Field(
        description="servers the capacity needs (Capacity.servers); None without an operating point"
    )
    cost_per_million_output_tokens: float | None = Field(
        description=(
            "cost per 1M output tokens on the spec's cost basis, in currency; None "
            "when it cannot be computed"
        )
    )
    cost_per_month: float | None = Field(
        description=(
            "cost per month on the spec's cost basis, in currency; None when it cannot be computed"
        )
    )
    cost_per_year: float | None = Field(
        default=None,
        description=(
            "cost per year on the spec's cost basis, in currency; None when it cannot be computed"
        ),
    )
    accelerators_billed: int | None = Field(
        default=None, description="accelerators paid for (whole servers unless billed singly)"
    )
    currency: str = Field(description="ISO 4217 code of the cost figures")
    quality_estimate: float | None = Field(
        description="the quality estimate (Quality.estimate); None without scores"
    )
    quality_meets_bar: bool = Field(
        description="whether the quality meets the spec's bar (Quality.meets_bar)"
    )
    failed_checks: tuple[str, ...] = Field(
        description="ids of the checks that failed for the candidate and are not waived, sorted"
    )
    reasons: tuple[str, ...] = Field(
        description=(
            "why the candidate is not eligible: each unwaived failed check's id and "
            "reason, and the sizing's reason when capacity could not be sized"
        )
    )
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
        default=DECISION_API_VERSION,
        alias="apiVersion",
        description="document version, always evidencepack/decision/v1",
    )
    tool_version: str = Field(description="the evidencepack version that computed the decision")
    spec_sha256: Sha256Hex = Field(description="sha256 hex of the pack spec's bytes")
    decision_id: str = Field(description="the spec's decision id")
    question: str = Field(description="the question the decision answers, as the spec states it")
    owner: str = Field(description="who owns the decision, as the spec states it")
    as_of: dt.date = Field(
        description="the date waivers are judged as of: --as-of, else the spec's decision date"
    )
    objective: str = Field(description="the spec's objective the eligible candidates are ranked by")
    recommendation: str | None = Field(
        description=(
            "the best eligible candidate by the objective; None when no candidate is eligible"
        )
    )
    chosen: str | None = Field(
        description="the candidate the spec says the team chose; None when it names none"
    )
    chosen_agrees: bool | None = Field(description="None when the spec names no chosen candidate")
    verdict: Verdict = Field(
        description="FAIL when a hard check blocks the decision or no candidate is eligible; "
        "PASS WITH WAIVERS when the recommended or chosen candidate (or the decision) rests on "
        "a waived failure"
    )
    summary: str = Field(
        description=(
            "the decision in a few sentences: the recommendation with its "
            "accelerators and cost, the chosen candidate, the blocking checks"
        )
    )
    candidates: tuple[CandidateVerdict, ...] = Field(
        description="each candidate's standing, in the spec's order"
    )
    checks: tuple[CheckResult, ...] = Field(
        description="every check result, per candidate and for the whole decision"
    )
    comparability: tuple[ComparabilityRow, ...] = Field(
        description="each piece of evidence against the frozen envelope"
    )
    fit: tuple[EvidenceFit, ...] = Field(
        default=(),
        description="per candidate, each run and score set: whether it fits, and why not",
    )
    capacity: tuple[Capacity, ...] = Field(
        description="each candidate's operating point and sizing"
    )
    cost: tuple[Cost, ...] = Field(
        description="each candidate's cost at its operating point on the quoted price"
    )
    quality: tuple[Quality, ...] = Field(
        description="each candidate's quality estimate and verdict against the bar"
    )
    references: tuple[MlperfReference, ...] = Field(
        description="MLPerf inference results cited beside the candidates"
    )
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
    claims: tuple[Claim, ...] = Field(
        description=(
            "every figure the report shows, typed by where it comes from and linked to its evidence"
        )
    )
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
    waivers_applied: tuple[Waived, ...] = Field(
        description="the current waivers that cover a check result"
    )
    waivers_rejected: tuple[str, ...] = Field(
        description=(
            "waivers not applied, each with why (expired, matching no check, or on "
            "the decision itself)"
        )
    )
    inputs: tuple[InputFile, ...] = Field(description="every input file of the pack, by pack path")
    spec: PackSpec = Field(description="the pack spec the decision was compiled from")

    def waived_failures(self) -> list[CheckResult]:
        """Every failed check a waiver covers (what ``check --no-waivers`` refuses)."""
        return [c for c in self.checks if c.status == "FAIL" and c.waived is not None]

    def gate_passes(self, *, allow_waivers: bool = True) -> bool:
        """The release gate: PASS, or PASS WITH WAIVERS unless waivers are not allowed."""
        if self.verdict == "PASS WITH WAIVERS":
            return allow_waivers
        return self.verdict == "PASS" and (allow_waivers or not self.waived_failures())
