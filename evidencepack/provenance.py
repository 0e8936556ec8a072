"""Provenance of every file read: path, size, sha256, and what read it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import Field

from ._models import Sha256Hex, StrictModel
from .errors import InputError

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    return digest.hexdigest()


class FileRecord(StrictModel):
    """One file as read: where it was, its size and digest, and the tool that wrote it."""

    path: str
    size_bytes: int = Field(ge=0)
    sha256: Sha256Hex
    tool: str | None = None
    tool_version: str | None = None
    warnings: tuple[str, ...] = ()


def file_record(
    path: Path,
    *,
    tool: str | None = None,
    tool_version: str | None = None,
    warnings: tuple[str, ...] = (),
) -> FileRecord:
    """A file's provenance: path, size, sha256 and the tool that wrote it."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    return FileRecord(
        path=str(path),
        size_bytes=size,
        sha256=sha256_file(path),
        tool=tool,
        tool_version=tool_version,
        warnings=warnings,
    )
