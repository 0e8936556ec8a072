"""The signed statement: an in-toto Statement v1 with one subject per pack file and our predicate.

``statement_bytes(build_statement(...))`` is the exact signed payload. The predicate and the
pack's file names come from ``evidencepack.pack``; this module only hashes and wraps them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import Field, model_validator

from ..core._models import Sha256Hex, StrictModel
from ..core.provenance import sha256_files
from ..errors import InputError, VerificationError
from ..pack.layout import PACK_PATH, SIGNATURE_NAMES, PackPath, scan_pack
from ..pack.predicate import PREDICATE_TYPE, PackPredicate, predicate_problems, validation_problems

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"


class Digest(StrictModel):
    """A subject's digests: sha256 only."""

    sha256: Sha256Hex = Field(description="lowercase hex sha256 of the file's bytes")


class Subject(StrictModel):
    """One pack file: its path inside the pack and its digest. The name is only a label."""

    name: PackPath = Field(
        description=(
            "the file's relative POSIX path inside the pack (a label: the digest "
            "identifies the file)"
        )
    )
    digest: Digest = Field(description="the file's digests (sha256 only)")


class Statement(StrictModel):
    """An in-toto Statement v1 over every file of one pack."""

    type_: Literal["https://in-toto.io/Statement/v1"] = Field(
        alias="_type",
        description="the in-toto statement type, always https://in-toto.io/Statement/v1",
    )
    subject: tuple[Subject, ...] = Field(
        min_length=1,
        description=(
            "one entry per file of the pack (the bundle excepted), each by pack "
            "path and sha256; names are unique"
        ),
    )
    predicate_type: Literal["https://evidencepack.dev/pack/v1"] = Field(
        alias="predicateType",
        description="the predicate's type URI, always https://evidencepack.dev/pack/v1",
    )
    predicate: PackPredicate = Field(
        description=(
            "the evidencepack predicate: the tool, spec, decision summary and "
            "rendering toolchain the signature attests"
        )
    )

    @model_validator(mode="after")
    def _unique_subjects(self) -> Statement:
        # One pass with a set: a count per name would be quadratic in the pack's files.
        names: set[str] = set()
        duplicates: set[str] = set()
        for subject in self.subject:
            (duplicates if subject.name in names else names).add(subject.name)
        if duplicates:
            raise ValueError(f"duplicate subject names: {', '.join(sorted(duplicates))}")
        signatures = sorted(names.intersection(SIGNATURE_NAMES))
        if signatures:
            raise ValueError(f"the bundle {signatures[0]} cannot be a subject of itself")
        return self

    def digests(self) -> dict[str, str]:
        """Subject name -> sha256 hex."""
        return {s.name: s.digest.sha256 for s in self.subject}


def hash_files(files: dict[str, str]) -> dict[str, str]:
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


def statement_bytes(statement: Statement) -> bytes:
    """The signed payload: compact JSON with sorted keys, UTF-8 (stable for the same pack)."""
    data = statement.model_dump(mode="json", by_alias=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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
        problems = validation_problems(exc, "statement: ")
        raise VerificationError(
            f"the signed statement is not an evidencepack v1 statement: {problems[0]}", problems
        ) from exc


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SignedStatement:
    """A signed statement as verification reads it: its predicate, and each subject's sha256 by
    name in one dict (no model per subject: a ``Subject`` and its ``Digest`` cost about 1.4 KiB
    per pack file, a dict entry a fifth of that)."""

    predicate_type: str
    predicate: PackPredicate
    subjects: dict[str, str]

    def digests(self) -> dict[str, str]:
        """Subject name -> sha256 hex."""
        return self.subjects


def read_signed_statement(payload: bytes) -> SignedStatement:
    """``parse_statement`` for verifying a pack: the same checks and the same errors, the
    subjects kept as a name -> sha256 dict.

    The statement's header and predicate are validated by the model (with the first subject);
    the subjects by one pass of the same rules (a pack path, a lowercase hex sha256, nothing
    else, names unique, no signature bundle among them). Anything else goes to ``parse_statement``,
    whose error names the JSON path.
    """
    try:
        data = json.loads(payload)
    except ValueError:
        data = None
    subjects = _plain_subjects(data)
    if subjects is None:
        full = parse_statement(payload)
        return SignedStatement(full.predicate_type, full.predicate, full.digests())
    head = parse_statement(json.dumps({**data, "subject": data["subject"][:1]}).encode())
    return SignedStatement(head.predicate_type, head.predicate, subjects)


def _plain_subjects(data: Any) -> dict[str, str] | None:
    """Each subject's name -> sha256 when every subject is well formed and the names are
    unique; else None (the model then says what is wrong, and where)."""
    subject = data.get("subject") if isinstance(data, dict) else None
    if not isinstance(subject, list) or not subject:
        return None
    digests: dict[str, str] = {}
    sha256_hex, pack_path = _SHA256_HEX.fullmatch, PACK_PATH.fullmatch
    for item in subject:
        # json.loads makes only dict, list, str, int, float, bool and None: exact type checks
        if type(item) is not dict or len(item) != 2:
            return None
        name, digest = item.get("name"), item.get("digest")
        if type(name) is not str or type(digest) is not dict or len(digest) != 1:
            return None
        sha = digest.get("sha256")
        if type(sha) is not str or not sha256_hex(sha) or not pack_path(name):
            return None
        digests[name] = sha
    if len(digests) != len(subject):  # a name twice
        return None
    return None if any(name in digests for name in SIGNATURE_NAMES) else digests
