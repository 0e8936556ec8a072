"""What ``verify`` checks once a pack's signature held, and the report it makes: files,
predicate, documents and verdict statements, whichever way the files were compared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pydantic

from ..errors import VerificationError
from ..pack.layout import DECISION_NAME, PREDICATE_NAME
from ..pack.predicate import PREDICATE_TYPE, DecisionSummary, PackPredicate, predicate_problems
from .documents import DOCUMENTS, cross_check
from .json_diff import parse_object
from .stream_verify import FileCheck
from .verify_report import CheckState, VerdictCheck, VerifyChecks, VerifyReport
from .verify_verdicts import unexpected_verdicts, verdicts_absent


@dataclass(frozen=True)
class VerifiedPack:
    """A pack's verification report, and the verified bytes of its documents.

    ``documents`` holds, by pack path, the bytes of ``decision.json``, ``manifest.json``,
    the reports and the packed spec exactly as they were read and checked against the signed
    statement; empty unless ``report.ok``. A reader (``diff``) uses these bytes, never the
    file again: a file swapped after verification is never read.
    """

    report: VerifyReport
    documents: Mapping[str, bytes] = field(default_factory=dict)
    predicate: PackPredicate | None = None
    """The signed predicate (``predicate.json`` when no signature was checked); None when the
    signature (or the predicate file) could not be read."""
    digests: Mapping[str, str] = field(default_factory=dict)
    """Each file's sha256 as hashed, by pack path (the files the documents were read from)."""


def signature_failed(report: dict[str, object], exc: VerificationError) -> VerifiedPack:
    """The report of a pack whose bundle or signature failed: nothing else is checked."""
    checks = VerifyChecks(signature="failed")
    return VerifiedPack(
        VerifyReport.model_validate(
            {**report, "ok": False, "problems": list(exc.problems), "checks": checks}
        )
    )


def finish(
    root: Path,
    report: dict[str, object],
    predicate: PackPredicate,
    files: FileCheck,
    documents: dict[str, bytes],
    copy_problems: tuple[str, ...],
    check_verdicts: Callable[[Mapping[str, bytes]], tuple[VerdictCheck, ...]],
    *,
    signature: CheckState = "passed",
) -> VerifiedPack:
    """The checks after the signature: files, predicate, documents, verdicts; the report.

    ``signature`` is "not run" when the pack was opened without a policy: its own files and
    documents are checked, its signature is not (and neither are its verdict statements)."""
    report |= {
        "predicate_type": PREDICATE_TYPE,
        "claimed_decision_id": predicate.decision.decision_id,
        "created_at": predicate.created_at,
    }
    expected, actual = files.expected, files.actual
    mismatches = {"missing": files.missing, "extra": files.extra, "changed": files.changed}
    problems = [*copy_problems, *files.problems, *predicate_problems(predicate, expected)]
    if PREDICATE_NAME in actual and actual[PREDICATE_NAME] == expected.get(PREDICATE_NAME):
        problems.extend(_predicate_file_problems(files.paths[PREDICATE_NAME], predicate))
    files_ok = not (problems or any(mismatches.values()))
    contradictions = cross_check(predicate, documents, actual) if files_ok else []
    verdicts: tuple[VerdictCheck, ...] = ()
    absent = files_ok and DECISION_NAME in expected and verdicts_absent(root)
    if files_ok and DECISION_NAME in expected and not absent:
        verdicts = check_verdicts(documents)
    elif files_ok:
        problems.extend(unexpected_verdicts(root))
        files_ok = not problems
    verdicts_ok = all(v.ok for v in verdicts)
    ok = files_ok and not contradictions and verdicts_ok
    checks = VerifyChecks(
        signature=signature,
        files="passed" if files_ok else "failed",
        documents=("failed" if contradictions else "passed") if files_ok else "not run",
        verdicts="absent"
        if absent
        else ("passed" if verdicts_ok else "failed")
        if verdicts
        else "not run",
    )
    return VerifiedPack(
        VerifyReport.model_validate(
            {
                **report,
                "ok": ok,
                "decision": _decision(predicate, documents) if ok else None,
                "files_checked": files.files_checked,
                **mismatches,
                "problems": problems,
                "checks": checks,
                "documents_checked": sorted(n for n in documents if n in DOCUMENTS)
                + [PREDICATE_NAME]
                if files_ok
                else [],
                "contradictions": contradictions,
                "verdicts": verdicts,
            }
        ),
        documents if ok else {},
        predicate,
        actual,
    )


def _decision(predicate: PackPredicate, documents: Mapping[str, bytes]) -> DecisionSummary:
    """The one-line decision as ``decision.json`` states it (the signed predicate's when the
    pack holds no decision.json, as a change note does). Called only once the documents agree."""
    summary = predicate.decision
    decision = parse_object(documents[DECISION_NAME]) if DECISION_NAME in documents else None
    if decision is None:
        return summary
    fields = ("recommendation", "chosen", "verdict", "summary", "question")
    return summary.model_copy(update={k: decision[k] for k in fields if k in decision})


def _predicate_file_problems(path: str, signed: PackPredicate) -> list[str]:
    try:
        stored = PackPredicate.model_validate_json(Path(path).read_bytes())
    except (OSError, pydantic.ValidationError) as exc:
        return [f"{PREDICATE_NAME}: not a valid predicate: {exc.__class__.__name__}"]
    if stored != signed:
        return [f"{PREDICATE_NAME} differs from the signed predicate"]
    return []
