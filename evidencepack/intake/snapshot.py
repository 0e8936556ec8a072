"""Private copies of input files: each read once, under a name DuckDB cannot read as a glob.

DuckDB's readers take a path as a pattern (``*``, ``?``, ``[...]``, ``{...}``), so a cited
``s[c]ores.jsonl`` would read the ``scores.jsonl`` beside it. ``Snapshots.take`` copies a file
in one read (hashing the same bytes) to ``<root>/<n>/<plain name>``; readers, pin checks and the
pack all use the copy. ``read_private`` does the same for one file (``evidencepack inspect``).
A reader of a copy is handed the user's path as the file's name (``read_input(name=...)``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..core.limits import RAISE_INPUT_LIMIT
from ..core.provenance import FileRecord
from ..errors import CouldNotRun, InputError
from ..readers.base import ParsedInput

_CHUNK = 1 << 20
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
_GLOB = re.compile(r"[*?\[\]{}]")


def require_regular(path: Path) -> None:
    """InputError unless ``path`` is a regular file (not a FIFO, device or socket)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", file=str(path)) from exc
    if not stat.S_ISREG(mode):
        raise InputError(
            "not a regular file (a FIFO, socket or device is not evidence)", file=str(path)
        )


@dataclass(frozen=True)
class Snapshot:
    """A private copy of one cited file, taken by a single read of the source."""

    source: Path
    copy: Path
    sha256: str
    size_bytes: int
    links: int = 1
    """The file's link count when read: more than 1 is a hard link, whose bytes other names
    (possibly outside the cited folder) share."""

    def record(self, name: str) -> FileRecord:
        """The copy's record for a reader, named ``name``: the digest of this one read."""
        return FileRecord(path=name, size_bytes=self.size_bytes, sha256=self.sha256)


class Snapshots:
    """Private copies of the cited files under ``root``, one per source, taken once per build.

    A copy's name is the source's own name when it is plain (letters, digits, ``._-``), else
    ``input`` plus a plain suffix: DuckDB reads a path with ``*``, ``?``, ``[`` or ``{`` as a
    glob, so a reader must never see the user's name.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._taken: dict[Path, Snapshot] = {}
        self._by_copy: dict[Path, Snapshot] = {}
        self._folders: dict[Path, Path] = {}
        self._roots: list[Path] | None = None
        self._root_fds: dict[Path, tuple[int, tuple[str, ...]]] = {}

    def confine(self, roots: list[Path]) -> None:
        """From now on, a file is read only by a walk from one of ``roots`` (the spec's folder,
        and the outside paths ``--allow-outside-paths`` lets it cite) that follows no link."""
        self._roots = sorted(
            (Path(os.path.realpath(r)) for r in roots), key=lambda r: -len(r.parts)
        )
        # Each root is opened once, now: every later read walks from this handle, so even a
        # root swapped afterwards is read from the folder that was checked.
        # A cited outside file is reached from its folder's handle, by its one name.
        directory = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
        handles: dict[Path, tuple[int, tuple[str, ...]]] = {}
        for root in self._roots:
            if root in handles or not root.exists():
                continue
            if root.is_dir():
                handles[root] = (os.open(root, directory), ())
            else:
                handles[root] = (os.open(root.parent, directory), (root.name,))
        self._root_fds = handles
        weakref.finalize(self, _close_all, [fd for fd, _ in handles.values()])

    def take(self, source: Path, *, limit: int | None = None) -> Snapshot:
        """The copy of ``source``, made on first use. Files of one source folder share one
        copy folder, so a reader finds a file's companions (``run.json``) beside it. A file
        larger than ``limit`` bytes is refused before anything is copied.

        The file is opened once, by handle: once ``confine``d, by a walk from its root's handle
        one name at a time with ``O_NOFOLLOW``, so a file or folder swapped for a link to an
        outside file while the build runs is refused, never read; what is read is checked on
        the opened handle (a regular file), and its link count is recorded."""
        key = source.absolute()
        if key in self._taken:
            return self._taken[key]
        folder = self._folders.setdefault(key.parent, self.root / f"{len(self._folders) + 1:05d}")
        copy = folder / _safe_name(source.name)
        n = 1
        while copy.exists():  # two unplain names in one folder
            n += 1
            copy = folder / f"input-{n}{_safe_name(source.name).removeprefix('input')}"
        try:
            fd = self._open(source)
        except FileNotFoundError as exc:
            raise InputError("no such file", file=str(source)) from exc
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise InputError(
                    "a symbolic link (or a folder swapped for one) on the way to the file: links "
                    "inside evidence are not followed",
                    file=str(source),
                ) from exc
            raise InputError(f"cannot read: {exc}", file=str(source)) from exc
        with os.fdopen(fd, "rb") as src:
            info = os.fstat(src.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InputError(
                    "not a regular file (a FIFO, socket or device is not evidence)",
                    file=str(source),
                )
            if limit is not None and info.st_size > limit:
                raise InputError(
                    f"{info.st_size} bytes, over the limit of {limit} bytes; {RAISE_INPUT_LIMIT}",
                    file=str(source),
                )
            sha256, size = self._copy(src, source, folder, copy)
        copy.chmod(0o400)
        snap = Snapshot(
            source=source,
            copy=copy,
            sha256=sha256,
            size_bytes=size,
            links=info.st_nlink,
        )
        self._taken[key] = snap
        self._by_copy[copy] = snap
        return snap

    def _copy(self, src: BinaryIO, source: Path, folder: Path, copy: Path) -> tuple[str, int]:
        """Copy and hash ``src`` into ``copy``: a failed read is the evidence's problem
        (InputError), a failed write the tool's own (CouldNotRun: a full TMPDIR is never blamed
        on the evidence, and nothing is published)."""
        digest = hashlib.sha256()
        size = 0
        try:
            folder.mkdir(parents=True, exist_ok=True)
            dst = copy.open("xb")
        except OSError as exc:
            raise CouldNotRun(f"cannot write a private copy in {self.root}: {exc}") from exc
        try:
            with dst:
                while True:
                    try:
                        chunk = src.read(_CHUNK)
                    except OSError as exc:
                        raise InputError(f"cannot read: {exc}", file=str(source)) from exc
                    if not chunk:
                        break
                    digest.update(chunk)
                    dst.write(chunk)
                    size += len(chunk)
        except OSError as exc:
            copy.unlink(missing_ok=True)
            raise CouldNotRun(
                f"cannot write the private copy of {source} in {self.root} (the tool's own "
                f"temporary folder: TMPDIR): {exc}"
            ) from exc
        except BaseException:
            copy.unlink(missing_ok=True)
            raise
        return digest.hexdigest(), size

    def _open(self, source: Path) -> int:
        """A read handle on ``source``: unconfined, the path opened without blocking (a FIFO
        is refused by the caller's fstat); confined, a walk from its root that follows no link."""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
        if self._roots is None:
            return os.open(source, flags)
        real = Path(os.path.realpath(source))
        root = next((r for r in self._roots if real.is_relative_to(r)), None)
        if root is None:
            raise InputError(
                f"resolves to {real}, outside the spec's folder (it changed since the spec was "
                "checked, or a link points out): not read",
                file=str(source),
            )
        if root not in self._root_fds:
            raise InputError(f"its folder {root} could not be opened: not read", file=str(source))
        handle, base = self._root_fds[root]
        return open_below(handle, (*base, *real.relative_to(root).parts), flags, shown=source)

    def origin(self, copy: Path) -> Path | None:
        """The source a private copy was taken from."""
        snap = self._by_copy.get(copy)
        return None if snap is None else snap.source


def open_below(root: int, parts: tuple[str, ...], flags: int, *, shown: Path) -> int:
    """Open ``parts...`` below the folder handle ``root`` with ``flags``: every folder on the
    way and the file itself opened with ``O_NOFOLLOW`` relative to the one before, so a link
    anywhere below ``root`` (planted or swapped in during the walk) fails the open (ELOOP or
    ENOTDIR) instead of leading outside. ``..`` is refused; ``shown`` names the file."""
    if not parts or any(part in ("", ".", "..") for part in parts):
        raise InputError("not a file below the folder it is cited in", file=str(shown))
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    folder, owned = root, False
    try:
        for part in parts[:-1]:
            below = os.open(
                part, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=folder
            )
            if owned:
                os.close(folder)
            folder, owned = below, True
        return os.open(parts[-1], flags | nofollow, dir_fd=folder)
    finally:
        if owned:
            os.close(folder)


def _close_all(handles: list[int]) -> None:
    for handle in handles:
        with contextlib.suppress(OSError):
            os.close(handle)


def _safe_name(name: str) -> str:
    if _SAFE_NAME.fullmatch(name):
        return name
    suffix = "".join(s for s in Path(name).suffixes if _SAFE_NAME.fullmatch(s[1:] or "-"))
    return "input" + suffix


def read_private(path: Path, *, max_bytes: int | None = None) -> ParsedInput:
    """``registry.read_input`` for one file named on the command line. A path with glob
    characters is read from a private copy of its folder's files (companions such as
    ``run.json`` stay beside it), so DuckDB reads the file itself; it is reported under
    ``path``. ``max_bytes`` is ``read_input``'s (``inspect --max-file-bytes``)."""
    from ..readers.registry import read_input  # the registry imports every format module

    if not _GLOB.search(str(path)):
        return read_input(path, max_bytes=max_bytes)
    with tempfile.TemporaryDirectory(prefix="evidencepack-input-") as tmp:
        snapshots = Snapshots(Path(tmp))
        snap = snapshots.take(path, limit=max_bytes)
        for sibling in sorted(path.parent.iterdir()):
            if sibling != path and not sibling.is_symlink() and sibling.is_file():
                snapshots.take(sibling)
        return read_input(
            snap.copy, record=snap.record(str(path)), name=str(path), max_bytes=max_bytes
        )
