"""What an export reads of a pack's ``decision.json`` and ``manifest.json``, read as they are.

These models are readers, not the documents' owners (``analyze.models``, ``pack.manifest``):
they take only the fields an export uses and ignore the rest, so a pack written by a newer
evidencepack (another verdict word, more detail on a waiver) still exports. Every field read
is typed; a missing or mistyped one is an error naming the file and the field.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..core._models import Sha256Hex


class ReadModel(BaseModel):
    """Base of the readers: immutable, unknown keys ignored (the writer owns the schema)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class EvidenceRef(ReadModel):
    """One evidence link of a check: a store row and, when it rests on a file, that file."""

    row: str
    file_sha256: Sha256Hex | None = None
    pack_path: str | None = None


class CheckRecord(ReadModel):
    """One check result for one candidate (or for the decision as a whole)."""

    id: str = Field(min_length=1)
    title: str
    candidate: str | None = None
    status: str = Field(min_length=1)
    hard: bool
    reason: str
    evidence: tuple[EvidenceRef, ...] = ()
    waived: dict[str, Any] | None = None
    """The waiver covering this result, as the pack records it (approver, expires, reason)."""


class CandidateRecord(ReadModel):
    """A candidate configuration: its id and what it runs on."""

    id: str = Field(min_length=1)
    accelerator: str = ""
    stack: str = ""
    eligible: bool | None = None


class DecisionRecord(ReadModel):
    """The parts of ``decision.json`` an export reads."""

    tool_version: str
    spec_sha256: Sha256Hex
    decision_id: str = Field(min_length=1)
    question: str
    owner: str
    as_of: dt.date
    recommendation: str | None = None
    chosen: str | None = None
    verdict: str = Field(min_length=1)
    summary: str = ""
    candidates: tuple[CandidateRecord, ...] = ()
    checks: tuple[CheckRecord, ...] = Field(min_length=1)


class ManifestInput(ReadModel):
    """One input file as the manifest lists it."""

    pack_path: str = Field(min_length=1)
    role: str
    candidate: str | None = None
    sha256: Sha256Hex
    size_bytes: int = Field(ge=0)
    format: str | None = None
    tool: str | None = None
    tool_version: str | None = None


class ManifestDecision(ReadModel):
    """The manifest's record of ``decision.json``."""

    decision_id: str
    pack_path: str
    sha256: Sha256Hex


class ManifestRecord(ReadModel):
    """The parts of ``manifest.json`` an export reads."""

    spec_sha256: Sha256Hex
    decision: ManifestDecision
    inputs: tuple[ManifestInput, ...]
