"""The metadata of a GGUF model file (its key-value header), read without its tensors.

GGUF (llama.cpp's ``docs/gguf.md``, versions 2 and 3, little-endian): the magic ``GGUF``, a
``uint32`` version, ``uint64`` tensor and key-value counts, then each key (a ``uint64``-length
UTF-8 string), a ``uint32`` value type and the value; an array is its element type, a ``uint64``
count and the elements. The header is read in place from a read-only memory map, each length
checked against the bytes left before it is used, so a truncated or hostile file is an error
naming the byte, never a huge allocation or an endless loop. (The ``gguf`` package's reader
builds an array object per string: 17 s for a 128k-token vocabulary and its merges, against
well under one here.)
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

from ..errors import InputError

_SCALARS: dict[int, tuple[str, int]] = {
    0: ("B", 1),  # uint8
    1: ("b", 1),  # int8
    2: ("H", 2),  # uint16
    3: ("h", 2),  # int16
    4: ("I", 4),  # uint32
    5: ("i", 4),  # int32
    6: ("f", 4),  # float32
    7: ("?", 1),  # bool
    10: ("Q", 8),  # uint64
    11: ("q", 8),  # int64
    12: ("d", 8),  # float64
}
_STRING, _ARRAY = 8, 9
_MAX_DEPTH = 4
MAX_PAIRS = 1 << 16
"""Key-value pairs read from a header (real files hold a few dozen): a sparse file announcing
150 million would take minutes to walk."""
MAX_ARRAY_ITEMS = 1 << 21
"""Items of one array (the largest real vocabularies and merge lists hold a few hundred
thousand)."""


class _Header:
    """A cursor over the header bytes; every read checks that the bytes are there."""

    def __init__(self, data: mmap.mmap, name: str) -> None:
        self.data = data
        self.name = name
        self.at = 0

    def fail(self, what: str) -> InputError:
        return InputError(
            f"not a readable GGUF file: {what}", file=self.name, where=f"byte {self.at}"
        )

    def take(self, size: int) -> int:
        if size < 0 or self.at + size > len(self.data):
            raise self.fail(f"{size} bytes announced, {len(self.data) - self.at} left")
        start = self.at
        self.at += size
        return start

    def scalar(self, code: str, size: int) -> Any:
        return struct.unpack_from("<" + code, self.data, self.take(size))[0]

    def string(self) -> str:
        size = self.scalar("Q", 8)
        start = self.take(size)
        try:
            return bytes(self.data[start : start + size]).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"a string that is not UTF-8 ({exc.reason})") from None

    def value(self, kind: int, depth: int = 0) -> Any:
        if kind in _SCALARS:
            return self.scalar(*_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY or depth >= _MAX_DEPTH:
            raise self.fail(f"value type {kind}" + (" nested too deep" if kind == _ARRAY else ""))
        item = self.scalar("I", 4)
        count = self.scalar("Q", 8)
        smallest = _SCALARS[item][1] if item in _SCALARS else 8  # a string: its length at least
        if count * smallest > len(self.data) - self.at:
            raise self.fail(f"an array of {count} items longer than the file")
        if count > MAX_ARRAY_ITEMS:
            raise self.fail(f"an array of {count} items (at most {MAX_ARRAY_ITEMS} are read)")
        if item in _SCALARS:
            code, size = _SCALARS[item]
            return list(struct.unpack_from(f"<{count}{code}", self.data, self.take(count * size)))
        return [self.value(item, depth + 1) for _ in range(count)]


def read_metadata(path: Path, name: str) -> dict[str, Any]:
    """Every key-value pair of the GGUF file ``path`` (``name`` in messages), in file order."""
    with path.open("rb") as handle:
        try:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError) as exc:
            raise InputError(f"cannot read: {exc}", file=name) from None
    with data:
        header = _Header(data, name)
        if bytes(data[header.take(4) : 4]) != b"GGUF":
            raise header.fail("no GGUF magic")
        version = header.scalar("I", 4)
        if version not in (2, 3):
            raise header.fail(f"version {version} (2 and 3 are read; a big-endian file is not)")
        header.scalar("Q", 8)  # the tensors: not read
        pairs = header.scalar("Q", 8)
        if pairs * 12 > len(data) - header.at:  # a key length and a type at least
            raise header.fail(f"{pairs} key-value pairs announced, longer than the file")
        if pairs > MAX_PAIRS:
            raise header.fail(f"{pairs} key-value pairs announced (at most {MAX_PAIRS} are read)")
        out: dict[str, Any] = {}
        for _ in range(pairs):
            key = header.string()
            out[key] = header.value(header.scalar("I", 4))
        return out
