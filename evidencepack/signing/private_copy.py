"""A private copy of a pack folder, so that what is verified is what is then used.

``verify --rebuild`` recomputes the decision from the pack's inputs. Verifying the folder and
then reading it again would let anyone who can write to it swap a file in between; instead the
pack's regular files are copied once into a private temporary folder (never following a link:
each file is opened with ``O_NOFOLLOW`` and must be a regular file once open), that copy is
verified, and the rebuild reads only the copy. Links and special files are not copied: they
are reported as problems of the pack, as ``verify`` reports them for the folder itself.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from ..errors import CouldNotRun
from ..pack.layout import SIGNATURE_NAMES, scan_pack

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _copy_one(source: str, target: Path, name: str) -> str | None:
    """Copy one regular file without following links; a problem line, or None."""
    try:
        fd = os.open(source, _OPEN_FLAGS)
    except OSError as exc:
        return f"{name}: cannot read: {exc.strerror or exc}"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return f"{name}: not a regular file (packs hold regular files only)"
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with target.open("xb") as out:
                shutil.copyfileobj(handle, out, 1 << 20)
        except OSError as exc:
            raise CouldNotRun(f"cannot copy {name} into a temporary folder: {exc}") from exc
    return None


def copy_pack(folder: Path, target: Path) -> tuple[str, ...]:
    """Copy the pack in ``folder`` (its files and its bundle) into the new folder ``target``.

    Returns the problems of the original folder that the copy no longer shows: links, special
    files and names a pack may not hold, and files that could not be read.
    """
    scan = scan_pack(folder)
    problems = list(scan.problems)
    try:
        target.mkdir()
    except OSError as exc:
        raise CouldNotRun(f"cannot create the temporary folder {target}: {exc}") from exc
    files = dict(scan.files)
    for name in SIGNATURE_NAMES:
        bundle = folder / name
        if bundle.exists() or bundle.is_symlink():
            files[name] = str(bundle)
    for name, source in files.items():
        problem = _copy_one(source, target / name, name)
        if problem:
            problems.append(problem)
    return tuple(problems)
