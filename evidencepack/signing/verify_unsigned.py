"""A pack opened without a policy (``open_pack(path, None)``): everything but the signature.

Its files are held against ``manifest.json`` and its documents against each other and
``predicate.json``, exactly as ``verify`` does once a signature held; its signature (if any)
and its verdict statements are not checked, and the report says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pydantic

from ..core.limits import read_limited
from ..errors import VerificationError
from ..pack.layout import BUNDLE_NAME, PREDICATE_NAME, scan_pack
from ..pack.predicate import PackPredicate, validation_problems
from .documents import DOCUMENTS, MAX_DOCUMENT_BYTES, read_documents
from .statement import hash_files
from .stream_verify import FileCheck
from .verify_outcome import VerifiedPack, finish
from .verify_report import VerifyChecks, VerifyReport


def label_of(target: str, kind: str, name: str) -> str:
    """A file of the pack as the report names it: by its place in the target (a private copy
    or an extracted archive is never named)."""
    return f"{target}!{name}" if kind == "archive" else str(Path(target) / name)


def check_unsigned(
    root: Path, target: str, kind: Literal["pack", "archive"], copy_problems: tuple[str, ...]
) -> VerifiedPack:
    """A pack opened without a policy: its signature (if any) is not checked, nor its verdict
    statements; its files are held against ``manifest.json`` and its documents against each
    other and ``predicate.json``, exactly as ``verify`` does once a signature held."""
    report: dict[str, object] = {
        "target": target,
        "target_kind": kind,
        "bundle": label_of(target, kind, BUNDLE_NAME),
    }
    scan = scan_pack(root)
    actual = hash_files(scan.files)
    if not (root / PREDICATE_NAME).is_file():
        where = label_of(target, kind, PREDICATE_NAME)
        problem = f"{where}: no such file (is it a pack built by evidencepack?)"
        return _unreadable(report, copy_problems, [problem])
    try:
        raw = read_limited(
            root / PREDICATE_NAME,
            MAX_DOCUMENT_BYTES,
            what="predicate",
            label=label_of(target, kind, PREDICATE_NAME),
            error=VerificationError,
        )
        predicate = PackPredicate.model_validate_json(raw)
    except VerificationError as exc:
        return _unreadable(report, copy_problems, list(exc.problems))
    except pydantic.ValidationError as exc:
        return _unreadable(report, copy_problems, validation_problems(exc, f"{PREDICATE_NAME}: "))
    files = FileCheck(
        expected=actual,
        actual=actual,
        paths=scan.files,
        problems=list(scan.problems),
        files_checked=len(actual),
    )
    documents = read_documents(scan.files, actual, (*DOCUMENTS, predicate.spec.pack_path))
    return finish(
        root,
        report,
        predicate,
        files,
        documents,
        copy_problems,
        lambda _documents: (),
        signature="not run",
    )


def _unreadable(
    report: dict[str, object], copy_problems: tuple[str, ...], problems: list[str]
) -> VerifiedPack:
    checks = VerifyChecks(files="failed")
    return VerifiedPack(
        VerifyReport.model_validate(
            {**report, "ok": False, "problems": [*copy_problems, *problems], "checks": checks}
        )
    )
