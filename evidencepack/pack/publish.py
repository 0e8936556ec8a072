"""Publish a finished pack (and its archive) as OUTDIR all together or not at all.

A pack is built in a work folder beside OUTDIR (same file system) that this process creates
and marks with a random id: ``.OUTDIR.<pid>-<id>.tmp/`` holding ``pack/``, ``pack.tar.gz`` and
the marker. It is fsynced, then moved into place by renames recorded first in a journal
(``.OUTDIR.publish.json``). The journal names no file: it holds the work folder's id, and the
device and inode of OUTDIR's parent, of the work folder and of what it replaces; every name is
derived from the id, every old output is moved *into* the work folder, and only the work folder
is ever deleted. A journal that does not match (planted, copied, edited) is refused and nothing
moves. A crash leaves the old outputs, or the journal from which the next run finishes the move;
work folders of dead processes are removed by the next run only if they hold this tool's marker.
``--force`` replaces only a folder that verifies as a pack (``pack.replaceable``) and never one
that holds the spec or an input.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from ..core._atomic import atomic_write
from ..core.limits import read_limited
from ..errors import CouldNotRun, EvidencePackError, InvalidRequest, option
from .layout import MANIFEST_NAME, PREDICATE_NAME
from .replaceable import replace_problem

ARCHIVE_SUFFIX = ".tar.gz"
PACK_MARKERS = (MANIFEST_NAME, PREDICATE_NAME)
"""A folder is a pack (which ``--force`` may replace) only if it holds both (and verifies)."""
JOURNAL_VERSION = "evidencepack/publish/v2"
MARKER = ".evidencepack-work.json"
"""The file inside a work folder that says which process made it, under which id."""
MAX_JOURNAL_BYTES = 4096

Verifier = Callable[[Path, tuple[str, ...]], str | None]
"""Why a folder may not be replaced by ``--force`` (None: it may): ``replace_problem``."""

_WORK = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d{1,10})-(?P<id>[0-9a-f]{32})\.tmp$")
_STAGING, _ARCHIVE, _OLD, _OLD_ARCHIVE = "pack", "pack.tar.gz", "old", "old.tar.gz"


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
    verify: Verifier = replace_problem,
) -> None:
    """Refuse to build into ``out_dir`` unless it is new, or (with ``force``) a folder that
    ``verify`` accepts as a pack (holding every file of ``markers`` and nothing its own
    documents do not list) and that holds none of ``protected`` (the spec, the inputs).
    Raises InvalidRequest."""
    out_dir = Path(os.path.abspath(out_dir))
    archive = archive_path(out_dir)
    exists = out_dir.exists() or out_dir.is_symlink()
    if (exists or archive.exists()) and not force:
        what = out_dir if exists else archive
        raise InvalidRequest(
            f"{what} exists: choose another folder or pass {option('force')} to replace it"
        )
    real_out = out_dir.resolve()
    for path in protected:
        if Path(os.path.abspath(path)).resolve().is_relative_to(real_out):
            raise InvalidRequest(
                f"{out_dir} holds {path}, which this build reads: choose an OUTDIR outside "
                "the spec's and the inputs' folders"
            )
    if exists:
        if out_dir.is_symlink() or not out_dir.is_dir():
            raise InvalidRequest(
                f"{out_dir} is not a folder: {option('force')} replaces only an evidencepack pack "
                "folder"
            )
        problem = verify(out_dir, markers)
        if problem:
            raise InvalidRequest(
                f"{out_dir}: {problem}: {option('force')} replaces only an evidencepack pack "
                "folder whose files its own manifest lists; choose another OUTDIR"
            )
    if archive.is_symlink() or (archive.exists() and not archive.is_file()):
        raise InvalidRequest(f"{archive} is not a regular file: it cannot be replaced")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True
    return True


def _identity(path: Path) -> list[int] | None:
    """Device and inode of ``path`` itself (a link is not followed), or None if it is absent."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return [info.st_dev, info.st_ino]


def _is_our_work(folder: Path) -> bool:
    """Whether ``folder`` is a real folder holding this tool's marker for the id in its name."""
    match = _WORK.match(folder.name)
    try:
        info = os.lstat(folder)
        if not match or not stat.S_ISDIR(info.st_mode):
            return False
        marker = json.loads(read_limited(folder / MARKER, MAX_JOURNAL_BYTES, what="marker"))
    except (OSError, ValueError, EvidencePackError):
        return False
    return bool(marker == {"id": match["id"], "pid": int(match["pid"])})


def recover(out_dir: Path) -> None:
    """Finish an interrupted publish of ``out_dir`` and remove this tool's stale work folders
    beside it (those of dead processes that hold its marker; nothing else)."""
    out_dir = Path(os.path.abspath(out_dir))
    journal = _journal(out_dir)
    if journal.exists() or journal.is_symlink():
        plan = _read_journal(out_dir)
        pid = plan["pid"]
        if isinstance(pid, int) and pid != os.getpid() and _alive(pid):
            return  # another build is publishing to this OUTDIR right now: leave it be
        _roll_forward(out_dir, plan)
    parent = out_dir.parent
    try:
        entries = list(parent.iterdir()) if parent.is_dir() else []
    except OSError:
        return
    for entry in entries:
        match = _WORK.match(entry.name)
        if not match or match["name"] != out_dir.name or _alive(int(match["pid"])):
            continue
        if _is_our_work(entry):
            shutil.rmtree(entry, ignore_errors=True)


def staging_dir(out_dir: Path) -> Path:
    """A fresh folder to build the pack in, inside a work folder beside ``out_dir`` (same file
    system, so the final rename is atomic) that is named after this process and marked as its
    own, so that a later run knows when it is stale and that it is this tool's."""
    out_dir = Path(os.path.abspath(out_dir))
    parent = out_dir.parent
    work: Path | None = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        recover(out_dir)
        pid, work_id = os.getpid(), secrets.token_hex(16)
        made = parent / f".{out_dir.name}.{pid}-{work_id}.tmp"
        os.mkdir(made, 0o700)
        work = made
        atomic_write(work / MARKER, json.dumps({"id": work_id, "pid": pid}).encode())
        staging = work / _STAGING
        # A finished pack gets the permissions any new folder would.
        umask = os.umask(0)
        os.umask(umask)
        os.mkdir(staging, 0o777 & ~umask)
        return staging
    except (OSError, CouldNotRun) as exc:
        # A full disk (the marker's write, CouldNotRun): name the folder asked for, and leave
        # no half-made working folder behind.
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        said = exc.message if isinstance(exc, CouldNotRun) else str(exc)
        raise CouldNotRun(f"cannot create a working folder beside {out_dir}: {said}") from exc


def staged_archive(staging: Path) -> Path:
    """Where the archive of the pack in ``staging`` is written before it is published."""
    return staging.parent / _ARCHIVE


def discard(staging: Path) -> None:
    """Remove the work folder of ``staging`` (a build that failed), if it is this tool's."""
    if _is_our_work(staging.parent):
        shutil.rmtree(staging.parent, ignore_errors=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
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
    verify: Verifier = replace_problem,
) -> None:
    """Move ``staging`` to ``out_dir`` and ``archive`` (if any) to ``OUTDIR.tar.gz``, together.

    ``staging`` comes from ``staging_dir(out_dir)``, ``archive`` from ``staged_archive``. The
    old pack and its archive are replaced only with ``force`` (see ``check_target``), and only
    once the new ones are complete on disk. Without a new archive, an old one is removed with
    the pack it belonged to, so a new pack never sits beside an old archive.
    """
    out_dir = Path(os.path.abspath(out_dir))
    work = staging.parent
    match = _WORK.match(work.name)
    if (
        not match
        or match["name"] != out_dir.name
        or work.parent != out_dir.parent
        or staging.name != _STAGING
        or (archive is not None and archive != work / _ARCHIVE)
        or not _is_our_work(work)
    ):
        raise CouldNotRun(f"{staging}: not a staging folder this build made for {out_dir}")
    try:
        check_target(out_dir, force=force, protected=protected, markers=markers, verify=verify)
    except InvalidRequest:
        discard(staging)
        raise
    try:
        _fsync_tree(staging)
        if archive is not None:
            _fsync(archive)
        plan = {
            "apiVersion": JOURNAL_VERSION,
            "id": match["id"],
            "pid": int(match["pid"]),
            "out": out_dir.name,
            "parent": _identity(out_dir.parent),
            "work": _identity(work),
            "replaces": _identity(out_dir),
            "replaces_archive": _identity(archive_path(out_dir)),
            "archive": archive is not None,
        }
        atomic_write(_journal(out_dir), json.dumps(plan).encode())
        _fsync(out_dir.parent)
    except OSError as exc:
        raise CouldNotRun(f"cannot publish the pack at {out_dir}: {exc}") from exc
    _roll_forward(out_dir, plan)


_KEYS: dict[str, type | tuple[type, ...]] = {
    "apiVersion": str,
    "id": str,
    "pid": int,
    "out": str,
    "parent": list,
    "work": list,
    "replaces": (list, type(None)),
    "replaces_archive": (list, type(None)),
    "archive": bool,
}


def _read_journal(out_dir: Path) -> dict[str, object]:
    """The journal beside ``out_dir`` if it is this tool's, for this OUTDIR, in this folder."""
    journal = _journal(out_dir)

    def refuse(why: str) -> CouldNotRun:
        return CouldNotRun(
            f"{journal}: {why}; nothing was moved or deleted. If no build of yours was "
            "interrupted while publishing here, delete this file"
        )

    if journal.is_symlink():
        raise refuse("a symbolic link, not a publish journal")
    try:
        plan = json.loads(read_limited(journal, MAX_JOURNAL_BYTES, what="publish journal"))
    except (OSError, ValueError, EvidencePackError) as exc:
        raise refuse(f"not a publish journal this build can read ({exc})") from exc
    if not isinstance(plan, dict) or set(plan) != set(_KEYS):
        raise refuse("not a publish journal of this version")
    for key, kind in _KEYS.items():
        if not isinstance(plan[key], kind) or (kind is int and isinstance(plan[key], bool)):
            raise refuse(f"not a publish journal of this version ({key})")
    if plan["apiVersion"] != JOURNAL_VERSION or not re.fullmatch(r"[0-9a-f]{32}", plan["id"]):
        raise refuse("not a publish journal of this version")
    if plan["out"] != out_dir.name or plan["parent"] != _identity(out_dir.parent):
        raise refuse(f"it was not written for {out_dir} in this folder (moved or copied here)")
    work = out_dir.parent / f".{out_dir.name}.{plan['pid']}-{plan['id']}.tmp"
    if _identity(work) is not None and (_identity(work) != plan["work"] or not _is_our_work(work)):
        raise refuse(f"{work.name} is not the work folder it was written for")
    return plan


def _roll_forward(out_dir: Path, plan: dict[str, object]) -> None:
    """Each step is done only if not yet done, so a re-run after a crash finishes the job.

    Every rename is between OUTDIR (or its archive) and the work folder, and only of the very
    file or folder the journal recorded (by device and inode)."""
    parent = out_dir.parent
    target = archive_path(out_dir)
    work = parent / f".{out_dir.name}.{plan['pid']}-{plan['id']}.tmp"
    staging, new_archive = work / _STAGING, work / _ARCHIVE
    old, old_archive = work / _OLD, work / _OLD_ARCHIVE
    try:
        if _identity(work) is not None and staging.is_dir() and not staging.is_symlink():
            if _identity(out_dir) is not None and not old.exists():
                if _identity(out_dir) != plan["replaces"]:
                    raise CouldNotRun(
                        f"{out_dir} changed since this publish began: nothing replaced "
                        f"(the new pack is in {staging})"
                    )
                os.replace(out_dir, old)
            os.replace(staging, out_dir)
        if _identity(work) is not None and (not plan["archive"] or new_archive.is_file()):
            if _identity(target) is not None and not old_archive.exists():
                if _identity(target) != plan["replaces_archive"]:
                    raise CouldNotRun(f"{target} changed since this publish began: not replaced")
                os.replace(target, old_archive)
            if plan["archive"]:
                os.replace(new_archive, target)
        _fsync(parent)
        _journal(out_dir).unlink(missing_ok=True)
    except OSError as exc:
        raise CouldNotRun(f"cannot move the finished pack to {out_dir}: {exc}") from exc
    if _is_our_work(work):
        shutil.rmtree(work, ignore_errors=True)
    with contextlib.suppress(OSError):
        _fsync(parent)


def check_outside_cited(out_dir: Path, cited: list[Path]) -> None:
    """InvalidRequest if OUTDIR (or where it would be created) lies inside a cited folder: the
    pack's staging files (``evidence.duckdb`` and its journal) would be collected as evidence."""
    real_out = Path(os.path.realpath(out_dir))
    for folder in cited:
        if folder.is_dir() and real_out.is_relative_to(folder):
            raise InvalidRequest(
                f"{out_dir} is inside {folder}, which the spec cites as evidence: the build's "
                "own files would be read as evidence; choose an OUTDIR outside every cited folder"
            )


def write_pack_files(staging: Path, out_dir: Path, files: dict[str, bytes]) -> None:
    """Write the pack's documents into its staging folder; a failed write (a full disk) names
    the pack folder asked for and the file, never only the system's words."""
    for name, data in files.items():
        try:
            (staging / name).write_bytes(data)
        except OSError as exc:
            raise CouldNotRun(
                f"{out_dir}: cannot write the pack's {name} (staged in {staging.parent}): "
                f"{exc.strerror or exc}"
            ) from exc
