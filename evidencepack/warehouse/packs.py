"""Open a pack (or watch) folder or archive for the warehouse with the one pack reader
(``open_pack``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..pack.archive import is_archive

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
    bundle_sha256: str | None = None
    """sha256 of the signature bundle checked (a watch's statement digest)."""

    @property
    def ok(self) -> bool:
        """Whether the pack verified against the policy."""
        return not self.problems


@contextmanager
def opened_pack(path: Path, policy: VerifyPolicy) -> Iterator[OpenedPack]:
    """Verify the pack at ``path`` with the one pack reader (``signing.open_pack``): a folder
    copied once, an archive extracted once, into a private folder that is what gets read."""
    from ..signing.open_pack import open_pack

    source = path.resolve()
    if not path.exists():
        yield OpenedPack(source, "pack", None, None, (f"{path}: no such file or folder",), None)
        return
    if not path.is_dir() and not is_archive(path):
        problem = f"{path}: not a pack folder or .tar.gz archive"
        yield OpenedPack(source, "archive", None, None, (problem,), None)
        return
    with open_pack(path, policy) as opened:
        digest = opened.evidence_digest
        yield OpenedPack(
            source,
            opened.kind,
            opened.folder,
            opened.report,
            opened.problems,
            digest,
            opened.report.bundle_sha256,
        )
