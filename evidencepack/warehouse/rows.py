"""A verified pack's ``decision.json`` and ``manifest.json`` as warehouse rows, by table.

The decision's tables take the rows the pack's own ``evidence.duckdb`` holds
(``analyze/decision_rows.py``, one row model per table), the pack's key in front.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

import pydantic

from ..analyze.decision_rows import decision_rows
from ..analyze.models import DecisionDocument
from ..errors import InputError
from ..pack.layout import DECISION_NAME, MANIFEST_NAME
from ..pack.manifest import EvidenceManifest
from ..signing.signer import SignerInfo
from .models import DECISION_TABLES, TABLES, InputFileRow, PackKey, PackRow
from .per_request import RequestsSource, requests_source


class _Key(TypedDict):
    pack_digest: str
    decision_id: str
    decision_date: dt.date


@dataclass(frozen=True)
class PackRows:
    """Every row one pack contributes, by table name (see ``models.TABLES``)."""

    digest: str
    decision_id: str
    decision_date_iso: str
    tables: dict[str, list[PackKey]]
    pack: PackRow
    requests: RequestsSource | None = None
    """With ``add --requests``: the pack's per-request rows, copied in bulk when staged."""


def evidence_digest(folder: Path) -> str:
    """The pack's evidence digest: sha256 of its manifest.json."""
    return hashlib.sha256((folder / MANIFEST_NAME).read_bytes()).hexdigest()


def _read(folder: Path, label: str) -> tuple[DecisionDocument, EvidenceManifest]:
    try:
        decision = DecisionDocument.model_validate_json((folder / DECISION_NAME).read_bytes())
        manifest = EvidenceManifest.model_validate_json((folder / MANIFEST_NAME).read_bytes())
    except pydantic.ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise InputError(f"{label}: {exc.title} is not readable at {where}: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{label}: cannot read {exc.filename}: {exc.strerror}") from exc
    return decision, manifest


def signer_columns(info: SignerInfo | None) -> tuple[str, str | None, str | None]:
    """The signer's mode, identity (or key fingerprint) and issuer, as the tables hold them."""
    if info is None:
        return "unknown", None, None
    if info.mode == "key":
        return "key", f"sha256:{info.key_fingerprint or info.key_hint}", None
    return str(info.mode), info.identity, info.issuer


def pack_rows(
    folder: Path,
    *,
    label: str,
    source: str,
    source_kind: Literal["pack", "archive"],
    signer: SignerInfo | None,
    requests: bool = False,
) -> PackRows:
    """The rows of the verified pack in ``folder`` (``label`` names it in errors); with
    ``requests``, where its per-request rows are (``per_request.py`` copies them)."""
    decision, manifest = _read(folder, label)
    digest = evidence_digest(folder)
    key: _Key = {
        "pack_digest": digest,
        "decision_id": decision.decision_id,
        "decision_date": decision.spec.decision.date,
    }
    mode, who, issuer = signer_columns(signer)
    pack = PackRow(
        **key,
        verdict=str(decision.verdict),
        recommendation=decision.recommendation,
        chosen=decision.chosen,
        owner=decision.owner,
        question=decision.question,
        tool_version=decision.tool_version,
        signer_mode=mode,
        signer=who,
        signer_issuer=issuer,
        source=source,
        source_kind=source_kind,
    )
    analysed = decision_rows(decision)
    tables: dict[str, list[PackKey]] = {
        "packs": [pack],
        **{
            name: [TABLES[name].model_validate({**key, **r.model_dump()}) for r in analysed[name]]
            for name in DECISION_TABLES
        },
        "inputs": [
            InputFileRow(
                **key,
                pack_path=f.pack_path,
                role=f.role,
                candidate=f.candidate,
                tool=f.tool,
                tool_version=f.tool_version,
                sha256=f.sha256,
                size_bytes=f.size_bytes,
            )
            for f in manifest.inputs
        ],
    }
    per_request = requests_source(folder, decision, label) if requests else None
    day = key["decision_date"].isoformat()
    return PackRows(digest, decision.decision_id, day, tables, pack, per_request)
