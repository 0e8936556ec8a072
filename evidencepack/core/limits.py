"""The size and shape limits on what evidencepack reads, and a bounded reader for small files.

A file the tool reads whole (the spec, a bundle, a key) is opened without blocking, refused at
once unless it is a regular file (a FIFO, a device such as ``/dev/zero``, a socket), refused if
its size is over the limit, and then read with a cap, so a file that grows while it is read still
cannot take more than the limit. The README lists every limit here with its exit code.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import EvidencePackError, InputError

MAX_SPEC_BYTES = 1 << 20
"""A pack spec is a few KiB; 1 MiB is far past any real one."""
MAX_YAML_NODES = 100_000
"""YAML nodes built after aliases are expanded (an alias bomb expands to billions)."""
MAX_YAML_DEPTH = 64
"""Nesting depth of YAML mappings and sequences."""
MAX_KEY_BYTES = 64 << 10
"""A PEM key is a few hundred bytes."""
MAX_PASSPHRASE_BYTES = 1023
"""OpenSSL's limit on a private key's passphrase."""
MAX_ZIP_MEMBER_BYTES = 1 << 30
"""One decompressed member of a zip evidence file (an inspect-ai ``.eval``)."""
MAX_ZIP_RATIO = 200
"""A zip member may inflate to at most this many times its compressed size ..."""
MAX_ZIP_RATIO_SLACK = 64 << 20
"""... plus 64 MiB (a small member of repetitive JSON compresses far better than 200:1)."""
MAX_INPUT_FILE_BYTES = 1 << 30
"""A run or score file a reader parses (a cited one, or one given to ``inspect``): 1 GiB by
default. A spec raises it for the files of one reference (``max_file_bytes``), ``inspect`` for
its files (``--max-file-bytes``); every file read over it carries a warning that says so."""
MAX_RAISED_INPUT_FILE_BYTES = 1 << 40
"""The most ``max_file_bytes`` may allow: 1 TiB."""
RAISE_INPUT_LIMIT = (
    "raise it for this file with max_file_bytes on its reference in the spec "
    "(inspect: --max-file-bytes)"
)
"""How a refusal by ``MAX_INPUT_FILE_BYTES`` says the limit is raised."""


def over_default_input_limit(size: int) -> str:
    """The warning of a file read under a raised limit (``size`` over the default): the pack
    records it on the file's input record, so an auditor sees the limit was raised."""
    return (
        f"{size} bytes, over the default limit of {MAX_INPUT_FILE_BYTES} bytes for an evidence "
        "file: read because the limit was raised for it (max_file_bytes)"
    )


MAX_ARCHIVE_RATIO = 200
"""A pack archive may inflate to at most this many times its size (plus 64 MiB)."""


def regular_file_problem(path: Path | str) -> str | None:
    """Why ``path`` is not a regular file (following symlinks), or None if it is one.

    ``stat`` never opens the file, so a FIFO or device is refused without blocking.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    kind = (
        "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return f"is {kind}; only regular files are read"


def read_limited(
    path: Path | str,
    limit: int,
    *,
    what: str = "file",
    label: str | None = None,
    error: type[EvidencePackError] = InputError,
    io_error: type[EvidencePackError] | None = None,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them, else ``error``.

    ``label`` names the file in messages (default: the path); ``io_error`` (default ``error``)
    is raised when the operating system fails the read. The file is opened with
    ``O_NONBLOCK`` so that a FIFO swapped in after the check cannot block the open.
    """
    name = label or str(path)
    io_error = io_error or error
    problem = regular_file_problem(path)
    if problem:
        raise error(f"{name}: {problem}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise io_error(f"{name}: cannot read the {what}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: is not a regular file; only regular files are read")
        if info.st_size > limit:
            raise error(
                f"{name}: {info.st_size} bytes, over the limit of {limit} bytes for a {what}"
            )
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise io_error(f"{name}: cannot read the {what}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise error(f"{name}: grew past the limit of {limit} bytes for a {what} while read")
    return data
