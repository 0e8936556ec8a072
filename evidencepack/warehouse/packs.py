"""Open a pack folder or archive for the warehouse and verify it with the library's verification."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import VerificationError
from ..pack.archive import extract_archive, is_archive
from ..pack.layout import MANIFEST_NAME
from .rows import evidence_digest

if TYPE_CHECKING:
    from ..signing.verify import VerifyPolicy, VerifyReport


@dataclass(frozen=True)
class OpenedPack:
    """A verified (or refused) pack: its folder on disk, what it is, and the verify report."""

    source: Path
    kind: Literal["pack", "archive"]
    folder: Path | None
    report: VerifyReport | None
    problems: tuple[str, ...]
    digest: str | None

    @property
    def ok(self) -> bool:
        """Whether the pack verified against the policy."""
        return not self.problems


def _report_problems(report: VerifyReport) -> tuple[str, ...]:
    problems = list(report.problems)
    problems += [f"{m.path}: missing" for m in report.missing]
    problems += [f"{m.path}: not signed (extra file)" for m in report.extra]
    problems += [f"{m.path}: changed since signing" for m in report.changed]
    return tuple(problems) or (("did not verify",) if not report.ok else ())


@contextmanager
def opened_pack(path: Path, policy: VerifyPolicy) -> Iterator[OpenedPack]:
    """Verify the pack at ``path``; an archive is extracted once into a private temp folder."""
    from ..signing.verify import verify_pack

    source = path.resolve()
    if not path.exists():
        yield OpenedPack(source, "pack", None, None, (f"{path}: no such file or folder",), None)
        return
    with tempfile.TemporaryDirectory(prefix="evidencepack-warehouse-") as tmp:
        kind: Literal["pack", "archive"] = "pack"
        folder = source
        if not path.is_dir():
            if not is_archive(path):
                problem = f"{path}: not a pack folder or .tar.gz archive"
                yield OpenedPack(source, "archive", None, None, (problem,), None)
                return
            kind = "archive"
            try:
                folder = extract_archive(path, Path(tmp))
            except VerificationError as exc:
                yield OpenedPack(source, kind, None, None, tuple(exc.problems), None)
                return
        report = verify_pack(folder, policy)
        problems = _report_problems(report)
        digest = evidence_digest(folder) if (folder / MANIFEST_NAME).is_file() else None
        yield OpenedPack(source, kind, folder, report, problems, digest)
