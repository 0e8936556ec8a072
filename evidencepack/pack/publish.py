"""Publish a finished pack (and its archive) beside OUTDIR all together or not at all.

A pack is built in a staging folder beside OUTDIR (same file system), fsynced, then moved
into place by a short list of renames recorded first in a journal (``.OUTDIR.publish.json``).
A crash at any point leaves the old outputs, or the journal from which the next run finishes
the move; staging folders of dead processes are removed by the next run. ``--force`` replaces
only a folder that is an evidencepack pack, and never one that holds the spec or an input.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .._atomic import atomic_write
from ..errors import CouldNotRun, UsageError
from .layout import MANIFEST_NAME, PREDICATE_NAME

ARCHIVE_SUFFIX = ".tar.gz"
PACK_MARKERS = (MANIFEST_NAME, PREDICATE_NAME)
"""A folder is a pack (which ``--force`` may replace) only if it holds both."""


def archive_path(out_dir: Path) -> Path:
    """``OUTDIR.tar.gz``, the archive published beside the pack."""
    return out_dir.with_name(out_dir.name + ARCHIVE_SUFFIX)


def _journal(out_dir: Path) -> Path:
    return out_dir.with_name(f".{out_dir.name}.publish.json")


def check_target(
    out_dir: Path,
    *,
    force: bool,
    protected: Iterable[Path] = (),
    markers: tuple[str, ...] = PACK_MARKERS,
) -> None:
    """Refuse to build into ``out_dir`` unless it is new, or (with ``force``) a pack folder
    (it holds every file of ``markers``) that holds none of ``protected`` (the spec, the
    inputs). Raises UsageError."""
    out_dir = Path(os.path.abspath(out_dir))
    archive = archive_path(out_dir)
    exists = out_dir.exists() or out_dir.is_symlink()
    if (exists or archive.exists()) and not force:
        what = out_dir if exists else archive
        raise UsageError(f"{what} exists: choose another folder or pass --force to replace it")
    real_out = out_dir.resolve()
    for path in protected:
        if Path(os.path.abspath(path)).resolve().is_relative_to(real_out):
            raise UsageError(
                f"{out_dir} holds {path}, which this build reads: choose an OUTDIR outside "
                "the spec's and the inputs' folders"
            )
    if exists:
        if out_dir.is_symlink() or not out_dir.is_dir():
            raise UsageError(
                f"{out_dir} is not a folder: --force replaces only an evidencepack pack folder"
            )
        if not all((out_dir / name).is_file() for name in markers):
            raise UsageError(
                f"{out_dir} is not an evidencepack pack (it lacks {' and '.join(markers)}):"
                " --force replaces only a pack folder; choose another OUTDIR"
            )
    if archive.is_symlink() or (archive.exists() and not archive.is_file()):
        raise UsageError(f"{archive} is not a regular file: it cannot be replaced")


_TEMP = re.compile(r"^\.{1,2}(?P<name>.+)\.(?P<pid>\d+)-[A-Za-z0-9_]+\.(tmp|old|tar\.gz\.)")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def recover(out_dir: Path) -> None:
    """Finish an interrupted publish of ``out_dir`` and remove stale temporaries beside it."""
    out_dir = Path(os.path.abspath(out_dir))
    journal = _journal(out_dir)
    if journal.is_file():
        try:
            plan = json.loads(journal.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CouldNotRun(f"{journal}: an interrupted publish cannot be read: {exc}") from exc
        _roll_forward(out_dir, plan)
    parent = out_dir.parent
    if not parent.is_dir():
        return
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match or match["name"] != out_dir.name or _alive(int(match["pid"])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def staging_dir(out_dir: Path) -> Path:
    """A fresh folder beside ``out_dir`` (same file system, so the final rename is atomic),
    named after this process so that a later run knows when it is stale."""
    parent = Path(os.path.abspath(out_dir)).parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        recover(out_dir)
        staging = Path(
            tempfile.mkdtemp(prefix=f".{out_dir.name}.{os.getpid()}-", suffix=".tmp", dir=parent)
        )
        # mkdtemp makes 0700; a finished pack gets the permissions any new folder would.
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        return staging
    except OSError as exc:
        raise CouldNotRun(f"cannot create a working folder beside {out_dir}: {exc}") from exc


def staged_archive(staging: Path) -> Path:
    """Where the archive of the pack in ``staging`` is written before it is published."""
    return staging.with_name(staging.name[: -len(".tmp")] + ".tar.gz.tmp")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for folder, _dirs, files in os.walk(root):
        for name in files:
            _fsync(Path(folder, name))
        _fsync(Path(folder))


def publish(
    staging: Path,
    out_dir: Path,
    *,
    force: bool,
    archive: Path | None = None,
    protected: Iterable[Path] = (),
    markers: tuple[str, ...] = PACK_MARKERS,
) -> None:
    """Move ``staging`` to ``out_dir`` and ``archive`` (if any) to ``OUTDIR.tar.gz``, together.

    The old pack and its archive are replaced only with ``force`` (see ``check_target``), and
    only once the new ones are complete on disk. Without a new archive, an old one is removed
    with the pack it belonged to, so a new pack never sits beside an old archive.
    """
    out_dir = Path(os.path.abspath(out_dir))
    try:
        check_target(out_dir, force=force, protected=protected, markers=markers)
    except UsageError:
        shutil.rmtree(staging, ignore_errors=True)
        if archive is not None:
            archive.unlink(missing_ok=True)
        raise
    tag = staging.name[: -len(".tmp")]
    plan = {
        "staging": staging.name,
        "archive": archive.name if archive is not None else None,
        "old": f"{tag}.old",
        "old_archive": f"{tag}.tar.gz.old",
    }
    try:
        _fsync_tree(staging)
        if archive is not None:
            _fsync(archive)
        atomic_write(_journal(out_dir), json.dumps(plan).encode())
        _fsync(out_dir.parent)
    except OSError as exc:
        raise CouldNotRun(f"cannot publish the pack at {out_dir}: {exc}") from exc
    _roll_forward(out_dir, plan)


def _roll_forward(out_dir: Path, plan: dict[str, str | None]) -> None:
    """Each step is done only if not yet done, so a re-run after a crash finishes the job."""
    parent = out_dir.parent
    target = archive_path(out_dir)

    def beside(key: str) -> Path | None:
        name = plan.get(key)
        return parent / name if name else None

    staging, new_archive = beside("staging"), beside("archive")
    old, old_archive = beside("old"), beside("old_archive")
    if staging is None or old is None or old_archive is None:
        raise CouldNotRun(f"{_journal(out_dir)}: not a publish journal")
    try:
        if staging.is_dir():
            if out_dir.exists() and not old.exists():
                os.replace(out_dir, old)
            os.replace(staging, out_dir)
        if new_archive is None or new_archive.is_file():
            if target.is_file() and not old_archive.exists():
                os.replace(target, old_archive)
            if new_archive is not None:
                os.replace(new_archive, target)
        _fsync(parent)
        _journal(out_dir).unlink(missing_ok=True)
    except OSError as exc:
        raise CouldNotRun(f"cannot move the finished pack to {out_dir}: {exc}") from exc
    shutil.rmtree(old, ignore_errors=True)
    with contextlib.suppress(OSError):
        old_archive.unlink(missing_ok=True)
