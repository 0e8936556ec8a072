"""The evidencepack predicate (``https://evidencepack.dev/pack/v1``): what a signature attests.

It travels in the pack as ``predicate.json`` so that a pack can be signed after it was built;
``signing.statement`` wraps it in the in-toto statement with one subject per pack file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

import pydantic
from pydantic import AfterValidator, Field

from ..core._atomic import atomic_write
from ..core._models import NonEmptyStr, Sha256Hex, StrictModel
from ..errors import InputError
from ..spec.located import dotted
from .layout import PREDICATE_NAME, PackPath
from .toolchain import Toolchain

PREDICATE_TYPE = "https://evidencepack.dev/pack/v1"
"""Versioned: a change to the predicate's meaning gets a new URI, never a silent edit."""

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}))?$")


def _check_timestamp(value: str) -> str:
    if not _TIMESTAMP.match(value):
        raise ValueError("expected an RFC 3339 date or date-time with offset, e.g. 2025-01-31")
    parse_timestamp(value)
    return value


Timestamp = Annotated[str, AfterValidator(_check_timestamp)]


def parse_timestamp(value: str) -> dt.datetime:
    """``created_at`` as an aware datetime (a bare date means midnight UTC)."""
    try:
        if "T" not in value:
            return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), dt.UTC)
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"not a valid date: {value!r}") from exc


class ToolInfo(StrictModel):
    """The program that built the pack."""

    name: Literal["evidencepack"] = Field(
        default="evidencepack", description="the program that built the pack, always evidencepack"
    )
    version: NonEmptyStr = Field(description="its version (the package version)")


class SpecRef(StrictModel):
    """The pack spec the pack was compiled from, as a file of the pack."""

    pack_path: PackPath = Field(description="the spec's path inside the pack")
    sha256: Sha256Hex = Field(
        description="sha256 hex of the spec file's bytes; must equal the signed subject's digest"
    )


class DecisionSummary(StrictModel):
    """The decision in one line each: what a verifier prints next to OK."""

    decision_id: NonEmptyStr = Field(description="the decision's id (the spec's decision id)")
    question: NonEmptyStr = Field(
        description="the question the decision answers, as the spec states it"
    )
    as_of: dt.date = Field(description="the date the decision is made as of (the spec's as_of)")
    recommendation: str | None = Field(description="the recommended candidate id, if any")
    chosen: str | None = Field(description="the candidate the spec chose, if any")
    verdict: Literal["PASS", "PASS WITH WAIVERS", "FAIL"] = Field(
        description="the decision's verdict: PASS, PASS WITH WAIVERS or FAIL"
    )
    summary: str = Field(
        default="", description="the decision's one-paragraph summary, as in decision.json"
    )


class PdfSignatureRecord(StrictModel):
    """The PAdES signature ``build --pdf-sign-key`` put inside the report PDF, and by whom.

    The signature is an incremental update appended to the rendered PDF, so the rendered PDF is
    the signed file's first ``rendered_bytes`` bytes: a rebuild reproduces those, and the rest is
    the signature, checked with pyHanko. A stripped or an added signature contradicts this record.
    """

    file: PackPath = Field(description="the signed PDF's pack path (report.pdf)")
    subfilter: Literal["ETSI.CAdES.detached"] = Field(
        description="the signature's /SubFilter: PAdES (ETSI.CAdES.detached)"
    )
    level: Literal["B-B", "B-T", "B-LT"] = Field(
        description="the PAdES baseline level: B-B offline, B-T with a time-stamp authority's "
        "token, B-LT with the chain's revocation data embedded too"
    )
    signer_subject: NonEmptyStr = Field(
        description="the signing certificate's subject (RFC 4514), as the certificate states it"
    )
    signer_cert_sha256: Sha256Hex = Field(
        description="sha256 hex of the signing certificate (DER): the signer, exactly"
    )
    rendered_bytes: int = Field(
        gt=0, description="the rendered (unsigned) PDF's length: where the signed revision starts"
    )
    rendered_sha256: Sha256Hex = Field(
        description="sha256 hex of those first rendered_bytes bytes: the PDF a rebuild reproduces"
    )
    timestamp_authority: str | None = Field(
        default=None, description="the time-stamp authority's URL (level B-T), or null"
    )


class PackPredicate(StrictModel):
    """The evidencepack predicate (``https://evidencepack.dev/pack/v1``)."""

    tool: ToolInfo = Field(description="the program and version that built the pack")
    spec: SpecRef = Field(
        description="the pack spec the decision was compiled from, by pack path and digest"
    )
    decision: DecisionSummary = Field(
        description="the decision in one line each, as in decision.json"
    )
    toolchain: Toolchain = Field(
        description=(
            "the rendering toolchain (library versions and fonts) that produced the report's PDF"
        )
    )
    created_at: Timestamp = Field(
        description="when the evidence was produced, taken from the inputs (never the clock)"
    )
    rendered: tuple[PackPath, ...] = Field(
        default=(),
        description="pack paths of the rendered report files (HTML, PDF) a rebuild must reproduce",
    )
    pdf_signature: PdfSignatureRecord | None = Field(
        default=None,
        description=(
            "the PAdES signature inside the report PDF (`build --pdf-sign-key`); absent when the "
            "PDF carries none"
        ),
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
    signed = predicate.pdf_signature
    if signed is not None and signed.file not in digests:
        yield f"predicate.pdf_signature.file: {signed.file} is not a file of the pack"


def validation_problems(exc: pydantic.ValidationError, prefix: str) -> list[str]:
    """One ``<prefix><json.path>: <message>`` line per error of a JSON document's validation."""
    return [f"{prefix}{dotted(tuple(e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)]


def write_predicate(pack_dir: Path, predicate: PackPredicate) -> Path:
    """Write ``predicate.json`` into the pack (indented, sorted keys), atomically."""
    document = predicate.model_dump(mode="json")
    if document["pdf_signature"] is None:
        del document["pdf_signature"]  # a pack without one keeps the predicate it always had
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
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
        problems = validation_problems(exc, f"{path}: ")
        raise InputError(f"{path}: {len(problems)} problem(s) in the predicate", problems) from exc


def source_date_epoch(created_at: str) -> int:
    """``created_at`` as Unix seconds: for SOURCE_DATE_EPOCH and archive member times."""
    return int(parse_timestamp(created_at).timestamp())
