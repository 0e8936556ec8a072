"""The diff of two packs (``evidencepack diff --json``, apiVersion ``evidencepack/diff/v1``).

Everything here is read from the two packs' ``decision.json`` and ``manifest.json``: what changed
in the evidence, the run conditions and the figures, and whether the decision still holds.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from .._models import Sha256Hex, StrictModel
from ..analyze.models import Status
from ..signing.bundle import SignerInfo

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
    signer: SignerInfo | None = None
    problems: tuple[str, ...] = Field(default=(), description="what failed verification")
    decision_id: str | None = Field(default=None, description="unset when not read")
    as_of: dt.date | None = None
    tool_version: str | None = None
    spec_sha256: Sha256Hex | None = None
    decision_sha256: Sha256Hex | None = Field(
        default=None, description="sha256 of the pack's decision.json"
    )
    evidence_digest: Sha256Hex | None = Field(
        default=None, description="sha256 of the pack's manifest.json"
    )
    verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] | None = None
    recommendation: str | None = None
    chosen: str | None = None


class InputChange(StrictModel):
    """An input file present in one pack only, or in both with different bytes."""

    change: Presence
    role: str
    candidate: str | None
    pack_path: str
    old_sha256: Sha256Hex | None
    new_sha256: Sha256Hex | None
    old_size_bytes: int | None = None
    new_size_bytes: int | None = None


class FieldChange(StrictModel):
    """One spec field, old -> new (``None``: absent on that side)."""

    field: str = Field(description="dotted path, e.g. envelope.runtime.version or stack.version")
    old: str | None
    new: str | None


class StackChange(StrictModel):
    """A candidate's stack, hardware or price fields that changed (or the candidate itself)."""

    candidate: str
    change: Presence
    old: str | None = Field(description="runtime version precision on accelerator, at price")
    new: str | None
    fields: tuple[FieldChange, ...] = ()


class CheckChange(StrictModel):
    """A check whose status changed (or that exists in one pack only), with both reasons."""

    id: str
    candidate: str | None
    hard: bool
    old_status: Status | None
    new_status: Status | None
    old_reason: str | None
    new_reason: str | None
    old_waived: bool = False
    new_waived: bool = False
    newly_blocking: bool = Field(description="a hard FAIL without a waiver now, not before")


class Change(StrictModel):
    """A figure old -> new; ``absolute`` = new - old, ``relative`` = (new - old) / |old|."""

    old: float | None
    new: float | None
    absolute: float | None
    relative: float | None = Field(description="None when either side is missing or old is 0")


class CandidateDiff(StrictModel):
    """One candidate's figures and eligibility in both packs."""

    id: str
    presence: Literal["both", "added", "removed"]
    currency: str | None
    operating_point_rps: Change = Field(description="X*, per replica")
    accelerators: Change
    servers: Change
    cost_per_month: Change
    cost_per_million_output_tokens: Change
    quality_estimate: Change
    quality_ci_low: Change
    quality_ci_high: Change
    old_eligible: bool | None
    new_eligible: bool | None


class Threshold(StrictModel):
    """A ``--fail-on-*`` limit and what the chosen candidate did against it."""

    name: Literal["cost_increase", "capacity_loss"]
    limit: float = Field(description="a fraction: 0.1 is 10%")
    figure: str = Field(description="the figure compared: cost_per_month or operating_point_rps")
    candidate: str | None
    change: float | None = Field(description="the relative change seen (a loss is negative)")
    breached: bool


class Outcome(StrictModel):
    """Whether the decision holds: same recommendation, chosen still eligible, no new hard FAIL,
    no threshold breached."""

    holds: bool
    reasons: tuple[str, ...] = Field(description="why it does not hold (empty when it holds)")
    old_recommendation: str | None
    new_recommendation: str | None
    old_chosen: str | None
    new_chosen: str | None
    chosen_eligible: bool | None = Field(
        description="the new pack's chosen (else recommended) candidate is eligible in it"
    )
    old_verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"]
    new_verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"]
    newly_blocking: tuple[str, ...] = Field(description="hard checks newly failing, id[candidate]")
    thresholds: tuple[Threshold, ...] = ()
    old_margin: float | None = Field(
        default=None,
        description="how close the old call was: the runner-up's cost per month over the "
        "recommendation's, minus 1 (decision.json robustness.margin)",
    )
    new_margin: float | None = Field(default=None, description="the same of the new pack")
    new_holds_unless: str | None = Field(
        default=None, description="the new pack's robustness sentence: what would flip it"
    )


class DiffDocument(StrictModel):
    """``evidencepack diff --json``: what changed between two packs, and whether it matters."""

    api_version: Literal["evidencepack/diff/v1"] = Field(
        default=DIFF_API_VERSION, alias="apiVersion"
    )
    old: PackSide
    new: PackSide
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
    inputs: tuple[InputChange, ...] = ()
    spec: tuple[FieldChange, ...] = Field(
        default=(), description="other spec fields that changed (SLO, traffic, objective, ...)"
    )
    envelope: tuple[FieldChange, ...] = ()
    stacks: tuple[StackChange, ...] = ()
    checks: tuple[CheckChange, ...] = ()
    candidates: tuple[CandidateDiff, ...] = ()
    outcome: Outcome | None = None
