"""The pack's evidence manifest (``manifest.json``): every input and the decision, by digest.

It is embedded in the PDF beside ``decision.json``, so a lone PDF still names every file it
rests on; its sha256 is the *evidence digest* printed on the report's first page. The signed
in-toto statement (``pack.sigstore.json``) then covers every file of the pack, this one included.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, Field

from ..analyze.models import DecisionDocument
from ..core._models import Sha256Hex, StrictModel
from ..intake.records import InputFile


class DecisionRef(StrictModel):
    """The pack's ``decision.json``: its id, digest and verdict."""

    decision_id: str = Field(
        description="the decision's id, as in decision.json (the spec's decision id)"
    )
    pack_path: Literal["decision.json"] = Field(
        default="decision.json",
        description="where the decision sits in the pack, always decision.json",
    )
    sha256: Sha256Hex = Field(description="sha256 hex of the pack's decision.json bytes")
    verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] = Field(
        description="the decision's verdict, as in decision.json"
    )
    recommendation: str | None = Field(
        description=(
            "the recommended candidate id, as in decision.json; None when no "
            "candidate is recommended"
        )
    )


class EvidenceManifest(StrictModel):
    """manifest.json, version ``evidencepack/manifest/v1``."""

    api_version: Literal["evidencepack/manifest/v1"] = Field(
        default="evidencepack/manifest/v1",
        alias="apiVersion",
        description="document version, always evidencepack/manifest/v1",
    )
    tool_version: str = Field(
        description="the evidencepack version that built the pack, as in decision.json"
    )
    spec_sha256: Sha256Hex = Field(
        description="sha256 hex of the pack spec's bytes, as in decision.json"
    )
    decision: DecisionRef = Field(
        description="the pack's decision.json: id, digest, verdict and recommendation"
    )
    inputs: tuple[InputFile, ...] = Field(
        description="every input file of the pack, by pack path and digest, as in decision.json"
    )


def manifest_bytes(decision: DecisionDocument, decision_json: bytes) -> bytes:
    """The manifest for ``decision`` whose ``decision.json`` bytes are ``decision_json``."""
    manifest = EvidenceManifest(
        tool_version=decision.tool_version,
        spec_sha256=decision.spec_sha256,
        decision=DecisionRef(
            decision_id=decision.decision_id,
            sha256=hashlib.sha256(decision_json).hexdigest(),
            verdict=decision.verdict,
            recommendation=decision.recommendation,
        ),
        inputs=decision.inputs,
    )
    return document_bytes(manifest)


def document_bytes(document: BaseModel) -> bytes:
    """A JSON document as the pack stores it: sorted keys, two-space indent, UTF-8, newline."""
    data = json.loads(document.model_dump_json(by_alias=True))
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
