"""Provenance of every file read: path, size, sha256, and what read it.

``sha256_files`` hashes many files at once, streamed and spread over the available cores
(hashlib releases the GIL while it digests a large buffer, so threads hash in parallel).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from pydantic import Field

from ..errors import InputError
from ._models import Sha256Hex, StrictModel

_CHUNK = 1 << 20
_THREAD = threading.local()
_BATCH = 64
"""Files per task of ``sha256_files``: big enough to amortise a task, small enough to balance."""

K = TypeVar("K", bound=Hashable)


def sha256_file(path: Path | str) -> str:
    """The hex sha256 of a file's bytes, streamed through this thread's one 1 MiB buffer.

    Reading into a reused buffer keeps memory bounded and costs no allocation per file
    (``hashlib.file_digest`` zero-fills a new 256 KiB buffer for every file, even a tiny one).
    """
    digest = hashlib.sha256()
    view = _buffer()
    try:
        with open(path, "rb", buffering=0) as handle:
            while size := handle.readinto(view):
                digest.update(view[:size])
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    return digest.hexdigest()


def _buffer() -> memoryview:
    view: memoryview | None = getattr(_THREAD, "buffer", None)
    if view is None:
        view = _THREAD.buffer = memoryview(bytearray(_CHUNK))
    return view


def available_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _hash_batch(batch: Sequence[tuple[K, Path | str]]) -> list[tuple[K, str]]:
    return [(key, sha256_file(path)) for key, path in batch]


def _batches(
    items: Sequence[tuple[K, Path | str]],
) -> Iterable[Sequence[tuple[K, Path | str]]]:
    return (items[i : i + _BATCH] for i in range(0, len(items), _BATCH))


def sha256_files(files: Mapping[K, Path | str], *, workers: int | None = None) -> dict[K, str]:
    """The hex sha256 of every file, in ``files``' order, hashed by up to ``workers`` threads.

    One pass over the files, each streamed (memory is one buffer per thread whatever the
    sizes); ``workers`` defaults to the available cores. The first unreadable file raises
    ``InputError`` naming it.
    """
    items = list(files.items())
    jobs = min(workers or available_cores(), -(-len(items) // _BATCH))
    if jobs <= 1:
        return {key: sha256_file(path) for key, path in items}
    digests: dict[K, str] = {}
    if workers is None:  # the process's one pool: starting threads per call costs ~1 ms of CPU
        for done in _shared_pool().map(_hash_batch, _batches(items)):
            digests.update(done)
        return {key: digests[key] for key in files}
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="sha256") as pool:
        for done in pool.map(_hash_batch, _batches(items)):
            digests.update(done)
    return {key: digests[key] for key in files}


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    """One thread per available core, started on first use and kept for the process (its tasks
    only hash files, so a caller of ``sha256_files`` never waits on a task of its own)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(
                ThreadPoolExecutor(max_workers=available_cores(), thread_name_prefix="sha256")
            )
        return _POOL[0]


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
