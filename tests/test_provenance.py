"""Hashing: one file streamed, many files on several threads, same digests, errors named."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from evidencepack.core.provenance import sha256_file, sha256_files
from evidencepack.errors import InputError


def _files(folder: Path, count: int) -> dict[str, Path]:
    files = {}
    for i in range(count):
        path = folder / f"{i:04d}.bin"
        # sizes from empty to past the 256 KiB read buffer
        path.write_bytes(bytes([i % 251]) * ((i * 7919) % 300_000))
        files[f"f{i:04d}"] = path
    return files


def test_sha256_file_streams_to_the_hashlib_digest(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    data = bytes(range(256)) * 5000  # 1.28 MB: several buffers
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()
    assert sha256_file(str(path)) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("workers", [1, 2, 4, None])  # None: the process's one pool
def test_sha256_files_gives_each_digest_in_order_whatever_the_threads(
    tmp_path: Path, workers: int | None
) -> None:
    files = _files(tmp_path, 150)  # three batches and a bit
    digests = sha256_files(files, workers=workers)
    assert list(digests) == list(files)
    assert digests == {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in files.items()}


def test_sha256_files_names_the_file_it_cannot_read(tmp_path: Path) -> None:
    files = _files(tmp_path, 130)
    files["f0100"].unlink()
    with pytest.raises(InputError, match="0100.bin: no such file"):
        sha256_files(files, workers=2)
    with pytest.raises(InputError, match="0100.bin: no such file"):
        sha256_files(files)  # the shared pool: the error reaches the caller, the pool lives on
    del files["f0100"]
    as_text = {k: str(p) for k, p in files.items()}  # a pack scan's paths are str
    assert sha256_files(as_text) == sha256_files(files, workers=1)
