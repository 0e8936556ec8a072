"""A pack's own documents checked against each other: decision, manifest, predicate, report.

Every document of a pack states part of the decision: ``decision.json`` all of it,
``manifest.json`` its id, verdict and recommendation and ``decision.json``'s sha256,
``predicate.json`` (signed) the one-line decision, ``report.html`` the manifest's sha256 (the
pack digest) and its date, ``report.pdf`` both JSON documents as attachments; ``manifest.json``
and each check's evidence link in ``decision.json`` also state every input file's sha256. A
signer who edits one (or an input) and re-signs makes them disagree; ``verify`` names both
documents (or the document and the file) and the field, with both values.

Values are compared as JSON values (strings as strings: a verdict is whatever text the pack
says, ``PASS WITH WAIVERS`` included). Only documents whose bytes match the signed statement
are compared, and only the documents a pack holds (a change note has no ``decision.json``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..core._models import StrictModel
from ..core.limits import read_limited
from ..errors import VerificationError
from ..pack.layout import (
    DECISION_NAME,
    MANIFEST_NAME,
    PREDICATE_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
)
from ..pack.predicate import PackPredicate
from .json_diff import ABSENT, first_difference, parse_object, show
from .pdf_embedded import carries_signature, embedded_documents

MAX_DOCUMENT_BYTES = 256 << 20
"""A pack document read into memory for the cross-check (the sample's PDF is 200 KiB)."""

DOCUMENTS = (DECISION_NAME, MANIFEST_NAME, REPORT_HTML_NAME, REPORT_PDF_NAME)
"""The files cross-checked besides the signed predicate."""

DECISION_API = "evidencepack/decision/v1"
MANIFEST_API = "evidencepack/manifest/v1"
_FILE_DIGEST = "sha256 of the file"


class Contradiction(StrictModel):
    """Two documents of one pack that state different values for the same thing."""

    document: str = Field(description="the first document, by pack path (decision.json first)")
    field: str = Field(description="the JSON path (or description) of the value in `document`")
    value: str = Field(description="what `document` says, as text")
    other: str = Field(description="the document that says otherwise")
    other_field: str = Field(description="the JSON path (or description) of the value in `other`")
    other_value: str = Field(description="what `other` says, as text")

    @property
    def message(self) -> str:
        """``decision.json: recommendation is h200-vllm; predicate.json: decision.recommendation
        is mi325x-vllm``."""
        return (
            f"{self.document}: {self.field} is {self.value}; "
            f"{self.other}: {self.other_field} is {self.other_value}"
        )


def read_documents(
    files: Mapping[str, Path | str],
    expected: Mapping[str, str],
    names: tuple[str, ...],
) -> dict[str, bytes]:
    """The bytes of each of ``names`` the pack holds whose sha256 is the signed one.

    Read once, into memory: what is cross-checked (and what ``diff`` compares) are these
    bytes, never the file again. A file over ``MAX_DOCUMENT_BYTES`` or unreadable is left out
    (its digest check reports it).
    """
    out: dict[str, bytes] = {}
    for name in names:
        path = files.get(name)
        if path is None or name not in expected:
            continue
        try:
            raw = read_limited(
                path, MAX_DOCUMENT_BYTES, what="pack document", label=name, error=VerificationError
            )
        except VerificationError:
            continue
        if hashlib.sha256(raw).hexdigest() == expected[name]:
            out[name] = raw
    return out


@dataclass(frozen=True)
class _Claim:
    document: str
    field: str
    value: object


_PACK_DIGEST = re.compile(rb'class="[^"]*\bpack-digest\b[^"]*">\s*([0-9a-f]{64})\s*<')
_CREATED = re.compile(rb'<meta name="dcterms\.created" content="([^"<>]{1,64})">')


def _get(document: object, path: str) -> object:
    for key in path.split("."):
        if not isinstance(document, dict) or key not in document:
            return ABSENT
        document = document[key]
    return document


def _claims(
    predicate: dict[str, object],
    docs: Mapping[str, bytes],
    objects: Mapping[str, object | None],
    files: Mapping[str, str],
) -> Iterator[list[_Claim]]:
    """For each thing several documents state, every document's claim (decision.json first).
    ``objects``: decision.json and manifest.json parsed once (None: not a JSON object)."""
    parsed = {name: {} if value is None else value for name, value in objects.items()}
    # Each field of the signed one-line decision; True where manifest.json states it too.
    in_manifest = {
        "decision_id": True,
        "recommendation": True,
        "verdict": True,
        "chosen": False,
        "question": False,
        "summary": False,
        "as_of": False,
    }
    decision, manifest = parsed.get(DECISION_NAME), parsed.get(MANIFEST_NAME)
    for key, also_in_manifest in in_manifest.items():
        claims = []
        if decision is not None:
            claims.append(_Claim(DECISION_NAME, key, _get(decision, key)))
        if manifest is not None and also_in_manifest:
            claims.append(
                _Claim(MANIFEST_NAME, f"decision.{key}", _get(manifest, f"decision.{key}"))
            )
        claims.append(_Claim(PREDICATE_NAME, f"decision.{key}", _get(predicate, f"decision.{key}")))
        yield claims
    for key, predicate_path in (("spec_sha256", "spec.sha256"), ("tool_version", "tool.version")):
        claims = [
            _Claim(n, key, _get(parsed[n], key))
            for n in (DECISION_NAME, MANIFEST_NAME)
            if n in parsed
        ]
        yield [*claims, _Claim(PREDICATE_NAME, predicate_path, _get(predicate, predicate_path))]
    if manifest is not None and DECISION_NAME in docs:
        digest = hashlib.sha256(docs[DECISION_NAME]).hexdigest()
        yield [
            _Claim(DECISION_NAME, _FILE_DIGEST, digest),
            _Claim(MANIFEST_NAME, "decision.sha256", _get(manifest, "decision.sha256")),
        ]
    if decision is not None and manifest is not None:
        yield [
            _Claim(DECISION_NAME, "inputs", _get(decision, "inputs")),
            _Claim(MANIFEST_NAME, "inputs", _get(manifest, "inputs")),
        ]
    yield from _report_claims(docs, decision, objects)
    yield from _pdf_signature_claims(predicate, docs)
    if files:
        yield from _file_claims(manifest, decision, files)


def _file_claims(
    manifest: object, decision: object, files: Mapping[str, str]
) -> Iterator[list[_Claim]]:
    """Each input's sha256 as ``manifest.json`` records it, and each check's evidence link in
    ``decision.json``, against the file's own: an input changed and the pack re-signed (by
    anyone) leaves the manifest naming the old digest."""
    inputs = _get(manifest, "inputs")
    for i, item in enumerate(inputs if isinstance(inputs, list) else []):
        path = _get(item, "pack_path")
        if isinstance(path, str):
            yield [
                _Claim(MANIFEST_NAME, f"inputs[{i}].sha256 ({path})", _get(item, "sha256")),
                _Claim(path, _FILE_DIGEST, files.get(path, ABSENT)),
            ]
    checks = _get(decision, "checks")
    seen: set[str] = set()  # one line per file, however many checks cite it
    for i, check in enumerate(checks if isinstance(checks, list) else []):
        links = _get(check, "evidence")
        for j, link in enumerate(links if isinstance(links, list) else []):
            path, digest = _get(link, "pack_path"), _get(link, "file_sha256")
            if isinstance(path, str) and isinstance(digest, str) and path not in seen:
                if files.get(path, ABSENT) != digest:
                    seen.add(path)
                yield [
                    _Claim(
                        DECISION_NAME, f"checks[{i}].evidence[{j}].file_sha256 ({path})", digest
                    ),
                    _Claim(path, _FILE_DIGEST, files.get(path, ABSENT)),
                ]


def _pdf_signature_claims(
    predicate: dict[str, object], docs: Mapping[str, bytes]
) -> Iterator[list[_Claim]]:
    """Whether report.pdf carries a PAdES signature after the rendered PDF the predicate records:
    a signature stripped, added or put on another rendering contradicts the predicate."""
    pdf = docs.get(REPORT_PDF_NAME)
    if pdf is None:
        return
    record = _get(predicate, "pdf_signature")
    if not isinstance(record, dict):
        claimed: dict[str, object] = {"signed": False}
        found: dict[str, object] = {"signed": carries_signature(pdf)}
    else:
        size = record.get("rendered_bytes")
        size = size if isinstance(size, int) else 0
        claimed = {"signed": True, "rendered_sha256": record.get("rendered_sha256")}
        found = {
            "signed": len(pdf) > size and carries_signature(pdf[size:]),
            "rendered_sha256": hashlib.sha256(pdf[:size]).hexdigest(),
        }
    yield [
        _Claim(PREDICATE_NAME, "pdf_signature", claimed),
        _Claim(REPORT_PDF_NAME, "PAdES signature", found),
    ]


def _report_claims(
    docs: Mapping[str, bytes], decision: object, objects: Mapping[str, object | None]
) -> Iterator[list[_Claim]]:
    """The reports' claims; ``objects``: decision.json and manifest.json as parsed (None where
    one is not a JSON object)."""
    html = docs.get(REPORT_HTML_NAME)
    if html is not None and MANIFEST_NAME in docs:
        digest = _PACK_DIGEST.search(html)
        if digest is not None:
            yield [
                _Claim(
                    MANIFEST_NAME, _FILE_DIGEST, hashlib.sha256(docs[MANIFEST_NAME]).hexdigest()
                ),
                _Claim(REPORT_HTML_NAME, "pack digest", digest.group(1).decode()),
            ]
    if html is not None and decision is not None:
        created = _CREATED.search(html)
        if created is not None:
            yield [
                _Claim(DECISION_NAME, "as_of", _get(decision, "as_of")),
                _Claim(REPORT_HTML_NAME, "dcterms.created", created.group(1).decode()),
            ]
    pdf = docs.get(REPORT_PDF_NAME)
    if pdf is None:
        return
    embedded = embedded_documents(pdf)
    for name, api in ((DECISION_NAME, DECISION_API), (MANIFEST_NAME, MANIFEST_API)):
        inside = parse_object(embedded[api]) if api in embedded else None
        outside = objects.get(name)
        if inside is not None and outside is not None:
            yield [
                _Claim(name, "", outside),
                _Claim(REPORT_PDF_NAME, f"attached {name}", inside),
            ]


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    return f"{prefix}: {path}" if prefix.startswith("attached ") else f"{prefix}.{path}"


def _contradiction(first: _Claim, other: _Claim) -> Contradiction | None:
    difference = first_difference(first.value, other.value)
    if difference is None:
        return None
    deep = isinstance(first.value, dict | list) and isinstance(other.value, dict | list)
    return Contradiction(
        document=first.document,
        field=_join(first.field, difference.path) if deep else first.field,
        value=show(difference.left),
        other=other.document,
        other_field=_join(other.field, difference.path) if deep else other.field,
        other_value=show(difference.right),
    )


def cross_check(
    predicate: PackPredicate, docs: Mapping[str, bytes], files: Mapping[str, str] | None = None
) -> list[Contradiction]:
    """Every contradiction between ``docs`` (verified bytes, by pack path) and the predicate;
    with ``files`` (each file's sha256 as hashed, by pack path), also every input digest that
    ``manifest.json`` or a check's evidence link records otherwise."""
    objects: dict[str, object | None] = {
        name: parse_object(docs[name]) for name in (DECISION_NAME, MANIFEST_NAME) if name in docs
    }
    signed = predicate.model_dump(mode="json")
    found: list[Contradiction] = []
    for claims in _claims(signed, docs, objects, files or {}):
        for other in claims[1:]:
            contradiction = _contradiction(claims[0], other)
            if contradiction is not None and contradiction not in found:
                found.append(contradiction)
    return found
