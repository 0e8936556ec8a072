"""The diff of two packs (``evidencepack diff --json``, apiVersion ``evidencepack/diff/v1``).

Everything here is read from the two packs' ``decision.json`` and ``manifest.json``: what changed
in the evidence, the run conditions and the figures, and whether the decision still holds.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ..analyze.models import Status
from ..core._models import Sha256Hex, StrictModel
from ..signing.signer import SignerInfo

DIFF_API_VERSION: Literal["evidencepack/diff/v1"] = "evidencepack/diff/v1"

Presence = Literal["added", "removed", "changed"]


class PackSide(StrictModel):
    """One of the two packs compared: where it came from, whether it was verified, its decision."""

    source: str = Field(description="the path given on the command line")
    kind: Literal["folder", "archive", "spec"] = Field(
        description="a pack folder, a PACK.tar.gz, or a spec built into a temporary pack"
    )
    verified: bool = Field(description="the signature and every file digest verified")
    verification: str = Field(description="how it was verified, or why it was not")
    signer: SignerInfo | None = Field(
        default=None,
        description=(
            "who signed the pack, as its verified bundle proves it; None when the "
            "pack was not verified"
        ),
    )
    problems: tuple[str, ...] = Field(default=(), description="what failed verification")
    decision_id: str | None = Field(default=None, description="unset when not read")
    as_of: dt.date | None = Field(
        default=None,
        description="the decision's as-of date (decision.json as_of); None when not read",
    )
    tool_version: str | None = Field(
        default=None,
        description=(
            "the evidencepack version that computed the pack's decision; None when not read"
        ),
    )
    spec_sha256: Sha256Hex | None = Field(
        default=None,
        description="sha256 hex of the pack's spec (decision.json spec_sha256); None when not read",
    )
    decision_sha256: Sha256Hex | None = Field(
        default=None, description="sha256 of the pack's decision.json"
    )
    evidence_digest: Sha256Hex | None = Field(
        default=None, description="sha256 of the pack's manifest.json"
    )
    verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] | None = Field(
        default=None, description="the pack's verdict (decision.json verdict); None when not read"
    )
    recommendation: str | None = Field(
        default=None,
        description=(
            "the pack's recommended candidate; None when it recommends none or was not read"
        ),
    )
    chosen: str | None = Field(
        default=None,
        description="the candidate the pack's spec chose; None when it names none or was not read",
    )


class InputChange(StrictModel):
    """An input file present in one pack only, or in both with different bytes."""

    change: Presence = Field(
        description=(
            "added: only in the new pack; removed: only in the old; changed: in "
            "both with another sha256"
        )
    )
    role: str = Field(
        description=(
            "why the spec cites the file (spec, dataset, mlperf, runs, scores, references, prices)"
        )
    )
    candidate: str | None = Field(
        description=(
            "the candidate whose evidence cites the file; None for the spec and shared datasets"
        )
    )
    pack_path: str = Field(description="the file's path inside the pack (inputs/...)")
    old_sha256: Sha256Hex | None = Field(
        description="sha256 hex of the file in the old pack; None when it was added"
    )
    new_sha256: Sha256Hex | None = Field(
        description="sha256 hex of the file in the new pack; None when it was removed"
    )
    old_size_bytes: int | None = Field(
        default=None, description="the file's size in the old pack, bytes; None when it was added"
    )
    new_size_bytes: int | None = Field(
        default=None, description="the file's size in the new pack, bytes; None when it was removed"
    )


class FieldChange(StrictModel):
    """One spec field, old -> new (``None``: absent on that side)."""

    field: str = Field(description="dotted path, e.g. envelope.runtime.version or stack.version")
    old: str | None = Field(description="the old value as text; None when absent in the old pack")
    new: str | None = Field(description="the new value as text; None when absent in the new pack")


class StackChange(StrictModel):
    """A candidate's stack, hardware or price fields that changed (or the candidate itself)."""

    candidate: str = Field(description="the candidate id")
    change: Presence = Field(
        description="added or removed candidate, or changed stack, hardware, price or description"
    )
    old: str | None = Field(description="runtime version precision on accelerator, at price")
    new: str | None = Field(
        description=(
            "the new stack in one line (runtime version precision on accelerators, "
            "at price); None for a removed candidate"
        )
    )
    fields: tuple[FieldChange, ...] = Field(
        default=(),
        description=(
            "each stack, hardware, price or description field that changed (empty "
            "for an added or removed candidate)"
        ),
    )


class CheckChange(StrictModel):
    """A check whose status changed (or that exists in one pack only), with both reasons."""

    id: str = Field(description="the check id")
    candidate: str | None = Field(
        description="the candidate checked; None for a check of the whole decision"
    )
    hard: bool = Field(
        description=(
            "whether the check is hard (its FAIL blocks the candidate unless "
            "waived), as the new pack (else the old) says"
        )
    )
    old_status: Status | None = Field(
        description="the status in the old pack; None when the old pack has no such result"
    )
    new_status: Status | None = Field(
        description="the status in the new pack; None when the new pack has no such result"
    )
    old_reason: str | None = Field(
        description="the one-line reason in the old pack; None when absent"
    )
    new_reason: str | None = Field(
        description="the one-line reason in the new pack; None when absent"
    )
    old_waived: bool = Field(
        default=False, description="a waiver covered the result in the old pack"
    )
    new_waived: bool = Field(
        default=False, description="a waiver covers the result in the new pack"
    )
    newly_blocking: bool = Field(description="a hard FAIL without a waiver now, not before")


class Change(StrictModel):
    """A figure old -> new; ``absolute`` = new - old, ``relative`` = (new - old) / |old|."""

    old: float | None = Field(description="the figure in the old pack; None when absent there")
    new: float | None = Field(description="the figure in the new pack; None when absent there")
    absolute: float | None = Field(
        description="new - old, in the figure's unit; None when either side is missing"
    )
    relative: float | None = Field(description="None when either side is missing or old is 0")


class CandidateDiff(StrictModel):
    """One candidate's figures and eligibility in both packs."""

    id: str = Field(description="the candidate id")
    presence: Literal["both", "added", "removed"] = Field(
        description="both: in both packs; added: only in the new; removed: only in the old"
    )
    currency: str | None = Field(
        description="ISO 4217 code of the cost figures (the new pack's, else the old's)"
    )
    operating_point_rps: Change = Field(description="X*, per replica")
    accelerators: Change = Field(description="accelerators needed for the required rate")
    servers: Change = Field(description="servers needed for the required rate")
    cost_per_month: Change = Field(
        description="cost per month on the spec's cost basis, in currency"
    )
    cost_per_million_output_tokens: Change = Field(
        description="cost per 1M output tokens on the spec's cost basis, in currency"
    )
    quality_estimate: Change = Field(description="the quality estimate, in the metric's unit")
    quality_ci_low: Change = Field(description="the quality interval's lower bound")
    quality_ci_high: Change = Field(description="the quality interval's upper bound")
    old_eligible: bool | None = Field(
        description="eligible in the old pack; None when it is not there"
    )
    new_eligible: bool | None = Field(
        description="eligible in the new pack; None when it is not there"
    )


class Threshold(StrictModel):
    """A ``--fail-on-*`` limit and what the chosen candidate did against it."""

    name: Literal["cost_increase", "capacity_loss"] = Field(
        description=(
            "which --fail-on-* limit: cost_increase (cost per month rose) or "
            "capacity_loss (X* fell)"
        )
    )
    limit: float = Field(description="a fraction: 0.1 is 10%")
    figure: str = Field(description="the figure compared: cost_per_month or operating_point_rps")
    candidate: str | None = Field(
        description=(
            "the candidate judged: the new pack's chosen, else recommended "
            "candidate; None when there is none"
        )
    )
    change: float | None = Field(description="the relative change seen (a loss is negative)")
    breached: bool = Field(
        description=(
            "true when the change is beyond the limit (a rise for cost, a fall for capacity)"
        )
    )


class Outcome(StrictModel):
    """Whether the decision holds: same recommendation, chosen still eligible, no new hard FAIL,
    no threshold breached."""

    holds: bool = Field(
        description=(
            "true when the decision holds: same recommendation and chosen "
            "candidate, chosen still eligible, no hard check newly failing, no "
            "threshold breached"
        )
    )
    reasons: tuple[str, ...] = Field(description="why it does not hold (empty when it holds)")
    old_recommendation: str | None = Field(
        description="the old pack's recommended candidate; None when none"
    )
    new_recommendation: str | None = Field(
        description="the new pack's recommended candidate; None when none"
    )
    old_chosen: str | None = Field(description="the old pack's chosen candidate; None when none")
    new_chosen: str | None = Field(description="the new pack's chosen candidate; None when none")
    chosen_eligible: bool | None = Field(
        description="the new pack's chosen (else recommended) candidate is eligible in it"
    )
    old_verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] = Field(
        description="the old pack's verdict"
    )
    new_verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] = Field(
        description="the new pack's verdict"
    )
    newly_blocking: tuple[str, ...] = Field(description="hard checks newly failing, id[candidate]")
    thresholds: tuple[Threshold, ...] = Field(
        default=(),
        description="each --fail-on-* limit given, and what the chosen candidate did against it",
    )
    old_margin: float | None = Field(
        default=None,
        description="how close the old call was: the runner-up's cost per month over the "
        "recommendation's, minus 1 (decision.json robustness.margin)",
    )
    new_margin: float | None = Field(default=None, description="the same of the new pack")
    new_holds_unless: str | None = Field(
        default=None, description="the new pack's robustness sentence: what would flip it"
    )
    basis_flips: tuple[str, ...] = Field(
        default=(),
        description="cost bases (quoted price, rent terms, own) whose cheapest eligible "
        "candidate changed between the packs, and cost bases that flip the new call and did "
        "not flip the old one (decision.json cost_bases.rankings and robustness.flips)",
    )


class DiffDocument(StrictModel):
    """``evidencepack diff --json``: what changed between two packs, and whether it matters."""

    api_version: Literal["evidencepack/diff/v1"] = Field(
        default=DIFF_API_VERSION,
        alias="apiVersion",
        description="document version, always evidencepack/diff/v1",
    )
    old: PackSide = Field(
        description="the old pack: where it came from, its verification and decision"
    )
    new: PackSide = Field(
        description="the new pack: where it came from, its verification and decision"
    )
    compared: bool = Field(
        description="False when a pack failed verification or the packs are of different "
        "decisions: then nothing else is filled in"
    )
    not_compared_because: Literal["verification failed", "different decisions"] | None = Field(
        default=None,
        description="why nothing was compared: a pack failed verification, or the two packs "
        "decide different questions (another decision_id) and --allow-other-decision was not given",
    )
    other_decision: bool = Field(
        default=False,
        description="the packs are of different decisions (another decision_id), compared "
        "because --allow-other-decision was given",
    )
    problems: tuple[str, ...] = Field(default=(), description="why the packs were not compared")
    identical: bool = Field(
        default=False, description="both packs rest on the same evidence and reach the same result"
    )
    inputs: tuple[InputChange, ...] = Field(
        default=(),
        description=(
            "input files added, removed or changed, matched by pack path, role and candidate"
        ),
    )
    spec: tuple[FieldChange, ...] = Field(
        default=(), description="other spec fields that changed (SLO, traffic, objective, ...)"
    )
    envelope: tuple[FieldChange, ...] = Field(
        default=(), description="fields of the frozen envelope that changed (envelope.*)"
    )
    stacks: tuple[StackChange, ...] = Field(
        default=(),
        description=(
            "candidates added or removed, or whose stack, hardware, price or description changed"
        ),
    )
    checks: tuple[CheckChange, ...] = Field(
        default=(),
        description="checks whose status or waiver changed, or that one pack has and the other not",
    )
    candidates: tuple[CandidateDiff, ...] = Field(
        default=(), description="each candidate's figures and eligibility, old -> new"
    )
    outcome: Outcome | None = Field(
        default=None,
        description=(
            "whether the decision holds, and every reason it does not; None when not compared"
        ),
    )
