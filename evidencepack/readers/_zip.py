"""Read one zip member at a time, including zstd members (method 93) Python's zipfile cannot open.

The central directory comes from ``zipfile``; a zstd member's bytes are streamed from its
local header through ``zstandard`` (multi-frame aware) and checked against the CRC-32 and
size the directory records. ``zstandard`` errors become ``InputError`` here.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

import zstandard

from ..core.limits import MAX_ZIP_MEMBER_BYTES, MAX_ZIP_RATIO, MAX_ZIP_RATIO_SLACK
from ..errors import InputError

ZSTD_METHOD = 93
_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_MAGIC = b"PK\x03\x04"


class ZipReader:
    """An open zip archive whose members are read one by one."""

    def __init__(self, path: Path, name: str | None = None) -> None:
        self.path = path
        self.name = str(path) if name is None else name
        """What messages call the archive (``Probe.name``); ``path`` is where its bytes are."""
        try:
            self.archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(f"{self.name}: truncated or corrupt zip archive: {exc}") from exc

    def close(self) -> None:
        """Close the archive."""
        self.archive.close()

    def __enter__(self) -> ZipReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def names(self) -> list[str]:
        """Every member name, in archive order."""
        return self.archive.namelist()

    def read(self, name: str) -> bytes:
        """The decompressed bytes of one member, verified against its CRC-32 and size."""
        try:
            info = self.archive.getinfo(name)
        except KeyError as exc:
            raise InputError(f"{self.name}: the archive has no member {name!r}") from exc
        if info.file_size > MAX_ZIP_MEMBER_BYTES:
            raise InputError(
                f"{self.name}: member {name}: {info.file_size} bytes decompressed, over the "
                f"limit of {MAX_ZIP_MEMBER_BYTES}"
            )
        allowed = MAX_ZIP_RATIO * info.compress_size + MAX_ZIP_RATIO_SLACK
        if info.file_size > allowed:
            raise InputError(
                f"{self.name}: member {name}: {info.compress_size} bytes would inflate to the "
                f"{info.file_size} the archive directory declares, past {MAX_ZIP_RATIO} times "
                f"its size plus {MAX_ZIP_RATIO_SLACK >> 20} MiB (a compression bomb?)"
            )
        try:
            if info.compress_type == ZSTD_METHOD:
                data = self._read_zstd(info)
            else:
                data = self.archive.read(info)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
            raise InputError(f"{self.name}: member {name}: cannot decompress: {exc}") from exc
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise InputError(
                f"{self.name}: member {name}: truncated or corrupt (size or CRC-32 "
                "does not match the archive directory)"
            )
        return data

    def _read_zstd(self, info: zipfile.ZipInfo) -> bytes:
        handle = self.archive.fp
        if handle is None:
            raise InputError(f"{self.name}: the archive is closed")
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or not header.startswith(_LOCAL_MAGIC):
            raise InputError(f"{self.name}: member {info.filename}: bad local header")
        name_len, extra_len = _LOCAL_HEADER.unpack(header)[-2:]
        handle.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
        compressed = handle.read(info.compress_size)
        if len(compressed) != info.compress_size:
            raise InputError(f"{self.name}: member {info.filename}: truncated")
        # Streamed with a cap: a 274 KB member can inflate to 8 GiB, so never decompress past
        # the size the directory declares (already bounded by MAX_ZIP_MEMBER_BYTES).
        out = bytearray()
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(compressed), read_across_frames=True
        )
        try:
            with reader:
                while chunk := reader.read(min(_CHUNK, info.file_size + 1 - len(out))):
                    out += chunk
                    if len(out) > info.file_size:
                        raise InputError(
                            f"{self.name}: member {info.filename}: inflates past the "
                            f"{info.file_size} bytes the archive directory declares"
                        )
        except zstandard.ZstdError as exc:
            raise InputError(
                f"{self.name}: member {info.filename}: corrupt zstd data: {exc}"
            ) from exc
        return bytes(out)
