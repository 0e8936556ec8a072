"""Pack archives: a deterministic ``PACK.tar.gz`` of a pack folder, and its safe extraction.

Every member header is checked before anything is written (no absolute paths, ``..``, links,
devices or duplicates, size limits), and files are created only inside a fresh folder.
"""

from __future__ import annotations

import gzip
import os
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core._atomic import atomic_output
from ..core.limits import MAX_ARCHIVE_RATIO, regular_file_problem
from ..errors import InputError, VerificationError
from .layout import SIGNATURE_NAMES, pack_path_problem, scan_pack

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")
_CHUNK = 1 << 20
_BLOCK = tarfile.BLOCKSIZE
_MAX_PADDING = 1 << 20


class UnsafeArchive(VerificationError):
    """The archive cannot be a pack: unsafe or malformed members, or over a limit."""


@dataclass(frozen=True)
class ArchiveLimits:
    """Refuse archives past these sizes (a real pack is tens of MB)."""

    max_members: int = 100_000
    max_member_bytes: int = 4 << 30
    max_total_bytes: int = 16 << 30
    max_archive_bytes: int = 8 << 30


def is_archive(path: Path) -> bool:
    """Whether a path names a pack archive (``.tar.gz`` or ``.tgz``)."""
    return path.name.endswith(ARCHIVE_SUFFIXES)


def archive_root_name(out: Path) -> str:
    """The top folder inside ``out``: its name without ``.tar.gz``."""
    for suffix in ARCHIVE_SUFFIXES:
        if out.name.endswith(suffix) and len(out.name) > len(suffix):
            return out.name[: -len(suffix)]
    raise InputError(f"{out}: an archive name must end in .tar.gz or .tgz")


def write_archive(pack_dir: Path, out: Path, *, mtime: int = 0, root: str | None = None) -> Path:
    """Write ``out`` (``NAME.tar.gz``) holding every file of the pack under ``NAME/``.

    ``root`` names the top folder when ``out`` is a temporary name (default: from ``out``).
    """
    root = root or archive_root_name(out)
    if pack_path_problem(root) or "/" in root:
        raise InputError(f"{out}: {root!r} cannot be the archive's top folder")
    scan = scan_pack(pack_dir)
    if scan.problems:
        raise InputError(f"{pack_dir}: cannot archive the pack", list(scan.problems))
    files = dict(scan.files)
    for name in SIGNATURE_NAMES:
        if (pack_dir / name).is_file():
            files[name] = str(pack_dir / name)
    folders = {str(p) for name in files for p in PurePosixPath(name).parents if str(p) != "."}
    entries = sorted([*folders, *files], key=lambda name: PurePosixPath(name).parts)

    def info(name: str, size: int | None) -> tarfile.TarInfo:
        member = tarfile.TarInfo(f"{root}/{name}" if name else root)
        member.mtime, member.uid, member.gid, member.uname, member.gname = mtime, 0, 0, "", ""
        if size is None:
            member.type, member.mode = tarfile.DIRTYPE, 0o755
        else:
            member.type, member.mode, member.size = tarfile.REGTYPE, 0o644, size
        return member

    with (
        atomic_output(out) as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        tar.addfile(info("", None))
        for name in entries:
            if name not in files:
                tar.addfile(info(name, None))
                continue
            try:
                handle = open(files[name], "rb")  # noqa: SIM115 (closed below)
            except OSError as exc:
                raise InputError(f"{files[name]}: cannot read: {exc}") from exc
            # A failed write (a full disk) is not the input's fault: atomic_output reports it
            # as "cannot write" (exit 3).
            with handle:
                tar.addfile(info(name, os.fstat(handle.fileno()).st_size), handle)
    return out


def _member_name(member: tarfile.TarInfo) -> tuple[str, str | None]:
    """The member's normalised relative name, and why it is unsafe (or None)."""
    name = member.name
    if name.startswith("./"):
        name = name[2:]
    if name in ("", "."):
        return "", None if member.isdir() else "a file named '.'"
    return name, pack_path_problem(name)


def _check_members(members: list[tarfile.TarInfo], limits: ArchiveLimits) -> list[str]:
    problems: list[str] = []
    seen: dict[str, str] = {}
    files: set[str] = set()
    total = 0
    for member in members:
        name, problem = _member_name(member)
        label = repr(member.name)
        if problem:
            problems.append(f"{label}: {problem}")
            continue
        if member.issym() or member.islnk():
            problems.append(f"{label}: link to {member.linkname!r} (packs hold regular files only)")
            continue
        if not (member.isdir() or member.type in (tarfile.REGTYPE, tarfile.AREGTYPE)):
            problems.append(f"{label}: not a regular file or folder")
            continue
        key = name.casefold()
        if key in seen and not (member.isdir() and seen[key] == name and name not in files):
            problems.append(f"{label}: duplicate member")
            continue
        seen[key] = name
        if member.isdir():
            continue
        files.add(name)
        if member.size > limits.max_member_bytes:
            problems.append(
                f"{label}: {member.size} bytes, over the limit of {limits.max_member_bytes}"
            )
        total += member.size
    if total > limits.max_total_bytes:
        problems.append(
            f"the members hold {total} bytes, over the limit of {limits.max_total_bytes}"
        )
    for name in sorted(files):
        problems.extend(
            f"{parent!s}: is a file and the folder of {name}"
            for parent in PurePosixPath(name).parents
            if str(parent) in files
        )
    return problems


def check_archive(archive: Path, limits: ArchiveLimits | None = None) -> list[tarfile.TarInfo]:
    """Read every member header of ``archive`` without writing anything; return the members.

    Refused (UnsafeArchive): a file that is not a regular file or is over ``max_archive_bytes``,
    more members or bytes than the limits (or than ``MAX_ARCHIVE_RATIO`` times the archive's
    size: a gzip bomb), unsafe member names or types, and any data after the tar end-of-archive
    marker other than zero padding: either damage (tar stops silently at a damaged header, so
    the members after it would go unseen) or data appended for ``tar -i`` to unpack.
    """
    limits = limits or ArchiveLimits()
    problem = regular_file_problem(archive)
    if problem:
        raise UnsafeArchive(f"{archive}: {problem}")
    size = archive.stat().st_size
    if size > limits.max_archive_bytes:
        raise UnsafeArchive(
            f"{archive}: {size} bytes, over the limit of {limits.max_archive_bytes} for an archive"
        )
    budget = MAX_ARCHIVE_RATIO * size + (64 << 20)
    members: list[tarfile.TarInfo] = []
    try:
        with (
            archive.open("rb") as raw,
            gzip.GzipFile(fileobj=raw, mode="rb") as unzipped,
            tarfile.open(fileobj=unzipped, mode="r:") as tar,
        ):
            inflated = held = 0
            for member in tar:
                members.append(member)
                if len(members) > limits.max_members:
                    raise UnsafeArchive(f"{archive}: more than {limits.max_members} members")
                held += member.size if member.isreg() else 0
                if held > limits.max_total_bytes:
                    raise UnsafeArchive(
                        f"{archive}: the members hold {held} bytes, over the limit of "
                        f"{limits.max_total_bytes}"
                    )
                inflated += _BLOCK + (member.size if member.isreg() else 0)
                if inflated > budget:
                    raise UnsafeArchive(
                        f"{archive}: its members inflate past {budget} bytes, more than "
                        f"{MAX_ARCHIVE_RATIO} times the archive's size (a compression bomb?)"
                    )
            end = tar.offset
            unzipped.seek(end)
            _check_tail(archive, unzipped, end, members)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise _read_error(archive, exc, "read") from exc
    problems = _check_members(members, limits)
    if problems:
        raise UnsafeArchive(
            f"{archive}: refused: {problems[0]}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
            problems,
        )
    return members


def _read_error(archive: Path, exc: Exception, verb: str) -> InputError | UnsafeArchive:
    """A corrupt stream is a damaged archive (exit 1); any other OS error is I/O."""
    if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
        return InputError(f"{archive}: cannot {verb}: {exc}")
    return UnsafeArchive(f"{archive}: damaged archive: not a readable .tar.gz: {exc}")


def _check_tail(
    archive: Path, stream: gzip.GzipFile, end: int, members: list[tarfile.TarInfo]
) -> None:
    """After the end-of-archive marker only zeros may follow (reading on checks gzip's CRC)."""
    padding = 0
    while chunk := stream.read(_CHUNK):
        if chunk.count(0) != len(chunk):
            at = end + padding + next(i for i, b in enumerate(chunk) if b)
            after = f" after member {members[-1].name!r}" if members else ""
            raise UnsafeArchive(
                f"{archive}: damaged archive: unreadable tar data at byte {at}{after} (the "
                "archive is corrupt, or data was appended after its end); "
                f"{len(members)} member(s) were readable before it"
            )
        padding += len(chunk)
        if padding > _MAX_PADDING:
            raise UnsafeArchive(f"{archive}: more than {_MAX_PADDING} bytes of trailing padding")


def extract_archive(archive: Path, dest: Path, limits: ArchiveLimits | None = None) -> Path:
    """Check and extract ``archive`` into the empty folder ``dest``; return the pack folder.

    The pack folder is the archive's single top folder, or ``dest`` itself for a flat archive.
    Every header is checked (``check_archive``) before anything is written; raises
    UnsafeArchive listing every refused member, and nothing is written in that case.
    """
    limits = limits or ArchiveLimits()
    if any(dest.iterdir()):
        raise InputError(f"{dest}: extraction needs an empty folder")
    members = check_archive(archive, limits)
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            extracted = list(tar)
            if [(m.name, m.size, m.type) for m in extracted] != [
                (m.name, m.size, m.type) for m in members
            ]:
                raise UnsafeArchive(f"{archive}: changed while it was read")
            for member in extracted:
                _extract_member(tar, member, dest)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise _read_error(archive, exc, "extract") from exc
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return dest


def _extract_member(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    name, _ = _member_name(member)
    target = dest.joinpath(*name.split("/")) if name else dest
    # Belt and braces: the name checks above already keep every path inside dest.
    if os.path.commonpath([dest, target]) != str(dest):
        raise UnsafeArchive(f"{member.name!r}: leaves the extraction folder")
    if member.isdir():
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    source = tar.extractfile(member)
    if source is None:
        raise UnsafeArchive(f"{member.name!r}: has no data")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with source, os.fdopen(os.open(target, flags, 0o644), "wb") as out:
        written = 0
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            out.write(chunk)
    if written != member.size:
        raise UnsafeArchive(f"{member.name!r}: {written} bytes, the header says {member.size}")
