"""The pack manifest: an in-toto Statement v1 with one subject per pack file and our predicate.

``statement_bytes(build_statement(...))`` is the exact signed payload; the predicate also
travels in the pack as ``predicate.json`` so that a pack can be signed after it was built.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import pydantic
from pydantic import AfterValidator, Field, model_validator

from ._atomic import atomic_write
from ._models import NonEmptyStr, Sha256Hex, StrictModel
from ._yaml import dotted
from .errors import InputError, VerificationError
from .provenance import sha256_files
from .toolchain import Toolchain

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://evidencepack.dev/pack/v1"
"""Versioned: a change to the predicate's meaning gets a new URI, never a silent edit."""
PAYLOAD_TYPE = "application/vnd.in-toto+json"
BUNDLE_NAME = "pack.sigstore.json"
PREDICATE_NAME = "predicate.json"

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}))?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"[A-Za-z]:")


def pack_path_problem(name: str) -> str | None:
    """Why ``name`` is not a safe pack path (relative POSIX, normalised), or None if it is."""
    if not name:
        return "empty path"
    if _CONTROL.search(name):
        return "control character in path"
    if "\\" in name:
        return "backslash in path"
    if name.startswith("/") or _DRIVE.match(name):
        return "absolute path"
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "path is not normalised (empty, '.' or '..' component)"
    return None


def _check_pack_path(name: str) -> str:
    problem = pack_path_problem(name)
    if problem:
        raise ValueError(f"{problem}: {name!r}")
    return name


def _check_timestamp(value: str) -> str:
    if not _TIMESTAMP.match(value):
        raise ValueError("expected an RFC 3339 date or date-time with offset, e.g. 2025-01-31")
    parse_timestamp(value)
    return value


PackPath = Annotated[str, AfterValidator(_check_pack_path)]
Timestamp = Annotated[str, AfterValidator(_check_timestamp)]


def parse_timestamp(value: str) -> dt.datetime:
    """``created_at`` as an aware datetime (a bare date means midnight UTC)."""
    try:
        if "T" not in value:
            return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), dt.UTC)
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"not a valid date: {value!r}") from exc


class Digest(StrictModel):
    sha256: Sha256Hex


class Subject(StrictModel):
    """One pack file: its path inside the pack and its digest. The name is only a label."""

    name: PackPath
    digest: Digest


class ToolInfo(StrictModel):
    name: Literal["evidencepack"] = "evidencepack"
    version: NonEmptyStr


class SpecRef(StrictModel):
    """The pack spec the pack was compiled from, as a file of the pack."""

    pack_path: PackPath
    sha256: Sha256Hex


class DecisionSummary(StrictModel):
    """The decision in one line each: what a verifier prints next to OK."""

    decision_id: NonEmptyStr
    question: NonEmptyStr
    as_of: dt.date
    recommendation: str | None = Field(description="the recommended candidate id, if any")
    chosen: str | None = Field(description="the candidate the spec chose, if any")
    verdict: Literal["PASS", "FAIL"]
    summary: str = ""


class PackPredicate(StrictModel):
    """The evidencepack predicate (``https://evidencepack.dev/pack/v1``)."""

    tool: ToolInfo
    spec: SpecRef
    decision: DecisionSummary
    toolchain: Toolchain
    created_at: Timestamp = Field(
        description="when the evidence was produced, taken from the inputs (never the clock)"
    )
    rendered: tuple[PackPath, ...] = Field(
        default=(),
        description="pack paths of the rendered report files (HTML, PDF) a rebuild must reproduce",
    )


class Statement(StrictModel):
    """An in-toto Statement v1 over every file of one pack."""

    type_: Literal["https://in-toto.io/Statement/v1"] = Field(alias="_type")
    subject: tuple[Subject, ...] = Field(min_length=1)
    predicate_type: Literal["https://evidencepack.dev/pack/v1"] = Field(alias="predicateType")
    predicate: PackPredicate

    @model_validator(mode="after")
    def _unique_subjects(self) -> Statement:
        # One pass with a set: a count per name would be quadratic in the pack's files.
        names: set[str] = set()
        duplicates: set[str] = set()
        for subject in self.subject:
            (duplicates if subject.name in names else names).add(subject.name)
        if duplicates:
            raise ValueError(f"duplicate subject names: {', '.join(sorted(duplicates))}")
        if BUNDLE_NAME in names:
            raise ValueError(f"the bundle {BUNDLE_NAME} cannot be a subject of itself")
        return self

    def digests(self) -> dict[str, str]:
        """Subject name -> sha256 hex."""
        return {s.name: s.digest.sha256 for s in self.subject}


@dataclass(frozen=True)
class PackScan:
    """The files of a pack folder: regular files by pack path, and everything else as problems."""

    root: Path
    files: dict[str, Path]
    problems: tuple[str, ...]


def scan_pack(pack_dir: Path) -> PackScan:
    """List every regular file under ``pack_dir`` (sorted), never following links.

    The bundle at the top (``pack.sigstore.json``) is left out: it signs the others.
    Symlinks, devices, sockets and names that are not UTF-8 are reported, not followed.
    """
    if not pack_dir.is_dir():
        raise InputError(f"{pack_dir}: not a folder")
    files: dict[str, Path] = {}
    problems: list[str] = []

    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            raise InputError(f"{folder}: cannot list: {exc}") from exc
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(f"{rel!r}: file name is not UTF-8")
                continue
            if entry.is_symlink():
                problems.append(f"{rel}: symbolic link (packs hold regular files only)")
            elif entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), f"{rel}/")
            elif not entry.is_file(follow_symlinks=False):
                problems.append(f"{rel}: not a regular file")
            elif (problem := pack_path_problem(rel)) is not None:
                problems.append(f"{rel!r}: {problem}")
            elif rel != BUNDLE_NAME:
                files[rel] = Path(entry.path)

    walk(pack_dir, "")
    return PackScan(root=pack_dir, files=files, problems=tuple(problems))


def hash_files(files: dict[str, Path]) -> dict[str, str]:
    """Pack path -> sha256 hex of every file, streamed and hashed on all available cores."""
    return sha256_files(files)


def build_statement(pack_dir: Path, predicate: PackPredicate) -> Statement:
    """The statement over every file in ``pack_dir``; refuses links and special files."""
    scan = scan_pack(pack_dir)
    if scan.problems:
        raise InputError(
            f"{pack_dir}: {len(scan.problems)} file(s) cannot be signed", list(scan.problems)
        )
    if not scan.files:
        raise InputError(f"{pack_dir}: the pack holds no files to sign")
    digests = hash_files(scan.files)
    problems = list(predicate_problems(predicate, digests))
    if problems:
        raise InputError(f"{pack_dir}: the predicate does not match the pack", problems)
    return Statement.model_validate(
        {
            "_type": STATEMENT_TYPE,
            # plain dicts: validated once, by the statement
            "subject": [{"name": n, "digest": {"sha256": d}} for n, d in digests.items()],
            "predicateType": PREDICATE_TYPE,
            "predicate": predicate,
        }
    )


def predicate_problems(predicate: PackPredicate, digests: dict[str, str]) -> Iterable[str]:
    """Files the predicate names that the pack lacks, and a spec whose digest differs."""
    spec = predicate.spec
    if spec.pack_path not in digests:
        yield f"predicate.spec.pack_path: {spec.pack_path} is not a file of the pack"
    elif digests[spec.pack_path] != spec.sha256:
        yield (
            f"predicate.spec.sha256: {spec.pack_path} has sha256 {digests[spec.pack_path]}, "
            f"the predicate says {spec.sha256}"
        )
    for i, name in enumerate(predicate.rendered):
        if name not in digests:
            yield f"predicate.rendered[{i}]: {name} is not a file of the pack"


def statement_bytes(statement: Statement) -> bytes:
    """The signed payload: compact JSON with sorted keys, UTF-8 (stable for the same pack)."""
    data = statement.model_dump(mode="json", by_alias=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _problems(exc: pydantic.ValidationError, prefix: str) -> list[str]:
    return [f"{prefix}{dotted(tuple(e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)]


def parse_statement(payload: bytes) -> Statement:
    """Read a signed payload back; raise VerificationError naming each bad JSON path."""
    try:
        kind = json.loads(payload).get("predicateType")
    except (ValueError, AttributeError):
        kind = None
    if isinstance(kind, str) and kind != PREDICATE_TYPE:
        raise VerificationError(
            f"the signed statement has predicateType {kind!r}, not {PREDICATE_TYPE!r}: "
            "it is not an evidence pack"
        )
    try:
        return Statement.model_validate_json(payload)
    except pydantic.ValidationError as exc:
        problems = _problems(exc, "statement: ")
        raise VerificationError(
            f"the signed statement is not an evidencepack v1 statement: {problems[0]}", problems
        ) from exc


def write_predicate(pack_dir: Path, predicate: PackPredicate) -> Path:
    """Write ``predicate.json`` into the pack (indented, sorted keys), atomically."""
    text = json.dumps(predicate.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
    return atomic_write(pack_dir / PREDICATE_NAME, text.encode())


def load_predicate(pack_dir: Path) -> PackPredicate:
    """Read ``predicate.json`` from a pack; errors name the file and the JSON path."""
    path = pack_dir / PREDICATE_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(
            f"{path}: no such file; packs built by `evidencepack build` carry their predicate"
        ) from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    try:
        return PackPredicate.model_validate_json(raw)
    except pydantic.ValidationError as exc:
        problems = _problems(exc, f"{path}: ")
        raise InputError(f"{path}: {len(problems)} problem(s) in the predicate", problems) from exc


def source_date_epoch(created_at: str) -> int:
    """``created_at`` as Unix seconds: for SOURCE_DATE_EPOCH and archive member times."""
    return int(parse_timestamp(created_at).timestamp())
