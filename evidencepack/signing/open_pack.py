"""One reader of a built pack for every command: ``open_pack`` (``verify``, ``diff``,
``warehouse add/verify`` and ``export`` all open a pack with it, so one pack gets one answer).

The pack (a folder, copied once into a private folder, or a ``.tar.gz`` extracted once with the
pack's bounded, safe extraction) is checked as ``verify`` checks it: the signature against the
policy, every file against the signed statement, every input digest ``manifest.json`` (and each
check's evidence link) records against the file, and the documents against each other. Without
a policy the signature and the verdict statements are not checked (and the result says so);
everything else is. What is returned are the bytes read and checked, parsed into typed
documents; nothing of the original is read again.

A caller that needs only the documents (``diff``) asks for ``in_place``: a folder is then
checked where it lies, exactly as ``verify`` checks it, with no private copy; each document's
bytes are read once and kept only if their sha256 is the one checked, and no folder is handed
out, so nothing else of the pack can be read afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

import pydantic

from ..pack.layout import DECISION_NAME, MANIFEST_NAME
from ..pack.predicate import PackPredicate, validation_problems

if TYPE_CHECKING:
    from ..analyze.models import DecisionDocument
    from ..pack.archive import ArchiveLimits
    from ..pack.manifest import EvidenceManifest
    from .verify import VerifyPolicy
    from .verify_outcome import VerifiedPack
    from .verify_report import VerifyReport

M = TypeVar("M", bound=pydantic.BaseModel)


def report_problems(report: VerifyReport) -> tuple[str, ...]:
    """Every problem ``report`` found, one line each, each naming the pack path it is about."""
    lines = list(report.problems)
    lines += [
        f"{m.path}: changed after signing: signed sha256 {m.expected_sha256}, the file's is "
        f"{m.actual_sha256}"
        for m in report.changed
    ]
    lines += [f"{m.path}: signed but missing (sha256 {m.expected_sha256})" for m in report.missing]
    lines += [
        f"{m.path}: in the pack but not signed (sha256 {m.actual_sha256})" for m in report.extra
    ]
    lines += [c.message for c in report.contradictions]
    lines += [p for v in report.verdicts for p in v.problems]
    if not lines and not report.ok:
        lines.append(f"{report.target}: did not verify")
    return tuple(lines)


@dataclass(frozen=True)
class OpenedPack:
    """A built pack as checked: the verify report, every problem, the typed documents.

    ``folder`` is the private copy that was checked (alive inside ``open_pack``'s ``with``);
    read pack files from it, never from the original. The documents are None when the pack
    does not hold them or (``document_problems``) they are not the models this version reads.
    """

    source: Path
    kind: Literal["pack", "archive"]
    report: VerifyReport
    problems: tuple[str, ...]
    folder: Path | None = None
    documents: Mapping[str, bytes] = field(default_factory=dict)
    """The verified bytes of decision.json, manifest.json, the reports and the spec copy."""
    predicate: PackPredicate | None = None
    signed_digests: Mapping[str, str] = field(default_factory=dict)
    """Each file's sha256 as checked against the signed statement, by pack path."""
    decision: DecisionDocument | None = None
    manifest: EvidenceManifest | None = None
    document_problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Every check asked for passed (the signature too, when a policy was given)."""
        return self.report.ok

    @property
    def signature_checked(self) -> bool:
        """Whether a policy was given and the signature held."""
        return self.report.checks.signature == "passed"

    @property
    def evidence_digest(self) -> str | None:
        """sha256 of ``manifest.json`` (the digest on the report's first page), if read."""
        raw = self.documents.get(MANIFEST_NAME)
        return hashlib.sha256(raw).hexdigest() if raw is not None else None


def _parse(model: type[M], raw: bytes | None, name: str) -> tuple[M | None, list[str]]:
    if raw is None:
        return None, []
    try:
        return model.model_validate_json(raw), []
    except pydantic.ValidationError as exc:
        return None, validation_problems(exc, f"{name}: ")


@contextmanager
def open_pack(
    path: Path,
    policy: VerifyPolicy | None,
    *,
    bundle: Path | None = None,
    limits: ArchiveLimits | None = None,
    in_place: bool = False,
) -> Iterator[OpenedPack]:
    """Open, copy once, check and parse the pack at ``path`` (folder or ``.tar.gz``).

    Never raises for a pack that fails a check (``problems`` lists each); raises for a path
    that is not a pack at all (InputError, InvalidRequest) or a machine that cannot copy it.
    ``in_place``: a folder is checked where it lies and ``folder`` is None (see above).
    """
    from ..analyze.models import DecisionDocument
    from ..pack.manifest import EvidenceManifest
    from .verify import verified_copy, verify_pack_documents

    copied: AbstractContextManager[tuple[VerifiedPack, Path | None]]
    if in_place and path.is_dir():
        checked_here = verify_pack_documents(path, policy, bundle=bundle, limits=limits)
        copied = nullcontext((checked_here, None))
    else:
        copied = verified_copy(path, policy, bundle=bundle, limits=limits)
    with copied as (checked, folder):
        report = checked.report
        kind: Literal["pack", "archive"] = "pack" if report.target_kind == "pack" else "archive"
        decision, decision_problems = _parse(
            DecisionDocument, checked.documents.get(DECISION_NAME), DECISION_NAME
        )
        manifest, manifest_problems = _parse(
            EvidenceManifest, checked.documents.get(MANIFEST_NAME), MANIFEST_NAME
        )
        yield OpenedPack(
            source=path,
            kind=kind,
            report=report,
            problems=report_problems(report),
            folder=folder if report.ok else None,
            documents=checked.documents,
            predicate=checked.predicate if report.ok else None,
            signed_digests=checked.digests if report.ok else {},
            decision=decision,
            manifest=manifest,
            document_problems=(*decision_problems, *manifest_problems),
        )
