"""The signed statement: an in-toto Statement v1 with one subject per pack file and our predicate.

``statement_bytes(build_statement(...))`` is the exact signed payload. The predicate and the
pack's file names come from ``evidencepack.pack``; this module only hashes and wraps them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pydantic
from pydantic import Field, model_validator

from .._models import Sha256Hex, StrictModel
from ..errors import InputError, VerificationError
from ..pack.layout import SIGNATURE_NAMES, PackPath, scan_pack
from ..pack.predicate import PREDICATE_TYPE, PackPredicate, predicate_problems, validation_problems
from ..provenance import sha256_files

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
