"""Open a pack for export and check that the files an export names are the files it holds.

A pack is a folder or a ``.tar.gz`` (extracted with the pack's safe extraction into a temporary
folder). ``decision.json`` and ``manifest.json`` are read as they are (``export.models``); then
every file the export will cite is hashed and held against what the pack says of it:
``decision.json`` against the manifest's digest of it, each input against its manifest entry,
each check's evidence link against the manifest, and, when the pack carries a signature
bundle, every one of them against the signed in-toto statement's subjects. Any disagreement is
an ``InputError`` listing every one, so an export never cites a digest the pack contradicts.

The signature itself is not checked here (``evidencepack verify`` does that): a bundle is only
read for the digests it names.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pydantic

from ..errors import CouldNotRun, InputError, VerificationError
from ..limits import read_limited
from ..pack.archive import extract_archive, is_archive
from ..pack.layout import (
    BUNDLE_NAME,
    DECISION_NAME,
    MANIFEST_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
    SPEC_PATH,
    scan_pack,
)
from ..provenance import sha256_files
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


def open_pack(path: Path, stack: ExitStack) -> tuple[Path, str]:
    """The pack folder for ``path`` (a folder, or an archive extracted into a temporary folder
    that ``stack`` removes) and the label errors name it by."""
    if path.is_dir():
        return path, str(path)
    if not path.exists():
        raise InputError(f"{path}: no such pack (give a pack folder or its .tar.gz)")
    if not is_archive(path):
        raise InputError(f"{path}: not an evidence pack: give a pack folder or a .tar.gz archive")
    try:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="evidencepack-export-"))
    except OSError as exc:
        raise CouldNotRun(f"cannot create a temporary folder: {exc}") from exc
    try:
        return extract_archive(path, Path(tmp)), str(path)
    except VerificationError as exc:
        raise InputError(
            f"{path}: not a readable pack archive: {exc.message}", exc.problems
        ) from exc


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


def read_pack(folder: Path, label: str) -> PackContents:
    """Read and check the pack in ``folder``; raise InputError listing every disagreement."""
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
        files[name] = PackFile(name, digest, scan.files[name].stat().st_size, "report")
    signed = (folder / BUNDLE_NAME).is_file()
    if signed:
        problems += _subject_problems(folder / BUNDLE_NAME, f"{label}/{BUNDLE_NAME}", files)
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


def _subject_problems(bundle: Path, where: str, files: dict[str, PackFile]) -> list[str]:
    """Every cited file must be a subject of the signed statement, with the same digest."""
    from ..signing.bundle import parse_bundle, read_bundle

    try:
        parsed = parse_bundle(read_bundle(bundle, where), where)
        statement = json.loads(parsed.payload or b"")
        subjects = {
            s["name"]: s["digest"]["sha256"]
            for s in statement["subject"]
            if isinstance(s, dict) and "name" in s
        }
    except VerificationError as exc:
        return [exc.message]
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{where}: its payload is not an in-toto statement with subjects: {exc!r}"]
    problems = []
    for name, item in files.items():
        signed = subjects.get(name)
        if signed is None:
            problems.append(f"{where}: {name} is not a subject of the signed statement")
        elif signed != item.sha256:
            problems.append(
                f"{where}: {name} is signed as sha256 {signed}, the pack's is {item.sha256}"
            )
    return problems
