"""What an export cites of a pack, read from the pack ``signing.open_pack`` checked.

``export oscal`` opens a pack with the one pack reader (``signing.open_pack``: the signature
with a policy, every file against the signed statement and the manifest, the documents against
each other); the pack being built (``build --oscal``) is read here directly. ``decision.json``
and ``manifest.json`` are then read as they are (``export.models``) and every file the export
will cite is listed with the digest the pack agrees on. Any disagreement is an ``InputError``
listing every one, so an export never cites a digest the pack contradicts.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pydantic

from ..core.limits import read_limited
from ..core.provenance import sha256_files
from ..errors import InputError
from ..pack.layout import (
    DECISION_NAME,
    MANIFEST_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
    SPEC_PATH,
    scan_pack,
)
from ..spec.located import dotted
from .models import DecisionRecord, ManifestRecord

MAX_DOCUMENT_BYTES = 256 << 20
"""decision.json and manifest.json are a few hundred KiB; refuse anything absurdly large."""

REPORTS = (REPORT_HTML_NAME, REPORT_PDF_NAME)
"""The rendered report: cited when present (a rebuild reproduces it byte for byte)."""


@dataclass(frozen=True)
class PackFile:
    """A file of the pack that the export cites, with the digest the pack agrees on."""

    pack_path: str
    sha256: str
    size_bytes: int
    role: str
    candidate: str | None = None
    tool: str | None = None


@dataclass(frozen=True)
class PackContents:
    """A pack checked for export: its decision, manifest, evidence digest and cited files."""

    label: str
    folder: Path
    decision: DecisionRecord
    manifest: ManifestRecord
    evidence_digest: str
    """sha256 of ``manifest.json``: the digest on the report's first page."""
    files: dict[str, PackFile]
    """Every cited file by pack path: the spec, the inputs, decision, manifest, report."""
    signed: bool


M = TypeVar("M", bound=pydantic.BaseModel)


def _document(folder: Path, name: str, label: str, model: type[M]) -> tuple[M, bytes]:
    where = f"{label}/{name}"
    if not (folder / name).exists():
        raise InputError(f"{label}: not an evidence pack: it holds no {name}")
    raw = read_limited(folder / name, MAX_DOCUMENT_BYTES, what=name, label=where)
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: not JSON: {exc}") from exc
    try:
        return model.model_validate(data), raw
    except pydantic.ValidationError as exc:
        problems = [
            f"{where}: {dotted(tuple(e['loc'])) or '(top)'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        ]
        raise InputError(
            f"{where}: not a pack's {name} ({len(problems)} problem(s))", problems
        ) from exc


def read_pack(folder: Path, label: str, *, signed: bool = False) -> PackContents:
    """Read and check the pack in ``folder`` (the private copy ``signing.open_pack`` checked,
    or the pack being built); raise InputError listing every disagreement."""
    decision, decision_raw = _document(folder, DECISION_NAME, label, DecisionRecord)
    manifest, manifest_raw = _document(folder, MANIFEST_NAME, label, ManifestRecord)
    scan = scan_pack(folder)
    problems = [f"{label}: {p}" for p in scan.problems]
    man = f"{label}/{MANIFEST_NAME}"
    decision_sha = hashlib.sha256(decision_raw).hexdigest()
    if manifest.decision.sha256 != decision_sha:
        problems.append(
            f"{man}: decision.sha256 is {manifest.decision.sha256} but {DECISION_NAME} hashes "
            f"to {decision_sha}"
        )
    if manifest.decision.decision_id != decision.decision_id:
        problems.append(
            f"{man}: decision.decision_id is {manifest.decision.decision_id!r} but "
            f"{DECISION_NAME} is {decision.decision_id!r}"
        )
    if manifest.spec_sha256 != decision.spec_sha256:
        problems.append(
            f"{man}: spec_sha256 {manifest.spec_sha256} differs from {DECISION_NAME}'s "
            f"{decision.spec_sha256}"
        )
    files: dict[str, PackFile] = {}
    for i, item in enumerate(manifest.inputs):
        if item.pack_path in files:
            problems.append(f"{man}: inputs[{i}]: {item.pack_path} is listed twice")
        files[item.pack_path] = PackFile(
            item.pack_path, item.sha256, item.size_bytes, item.role, item.candidate, item.tool
        )
    spec = files.get(SPEC_PATH)
    if spec is None:
        problems.append(f"{man}: inputs: the spec {SPEC_PATH} is not listed")
    elif spec.sha256 != manifest.spec_sha256:
        problems.append(
            f"{man}: inputs: {SPEC_PATH} has sha256 {spec.sha256}, spec_sha256 says "
            f"{manifest.spec_sha256}"
        )
    present = [n for n in files if n not in scan.files]
    problems += [f"{man}: {n}: listed in the manifest but not in the pack" for n in present]
    actual = sha256_files({n: scan.files[n] for n in files if n in scan.files})
    problems += [
        f"{man}: {n}: the manifest says sha256 {files[n].sha256}, the file's is {digest}"
        for n, digest in actual.items()
        if digest != files[n].sha256
    ]
    problems += _evidence_problems(decision, files, f"{label}/{DECISION_NAME}")
    extra = {DECISION_NAME: decision_raw, MANIFEST_NAME: manifest_raw}
    for name, raw in extra.items():
        files[name] = PackFile(name, hashlib.sha256(raw).hexdigest(), len(raw), "record")
    reports = sha256_files({n: scan.files[n] for n in REPORTS if n in scan.files})
    for name, digest in reports.items():
        files[name] = PackFile(name, digest, os.stat(scan.files[name]).st_size, "report")
    if problems:
        raise InputError(
            f"{label}: the pack's files disagree with its records ({len(problems)} problem(s)); "
            "nothing was exported",
            problems,
        )
    return PackContents(
        label=label,
        folder=folder,
        decision=decision,
        manifest=manifest,
        evidence_digest=hashlib.sha256(manifest_raw).hexdigest(),
        files=files,
        signed=signed,
    )


def _evidence_problems(
    decision: DecisionRecord, files: dict[str, PackFile], where: str
) -> list[str]:
    """Each check's evidence file must be a manifest input with the same digest."""
    problems: list[str] = []
    for i, check in enumerate(decision.checks):
        for j, link in enumerate(check.evidence):
            if link.pack_path is None:
                continue
            at = f"{where}: checks[{i}].evidence[{j}] ({check.id})"
            listed = files.get(link.pack_path)
            if listed is None:
                problems.append(f"{at}: {link.pack_path} is not in the manifest")
            elif link.file_sha256 is not None and link.file_sha256 != listed.sha256:
                problems.append(
                    f"{at}: {link.pack_path} sha256 {link.file_sha256}, the manifest says "
                    f"{listed.sha256}"
                )
    return problems
