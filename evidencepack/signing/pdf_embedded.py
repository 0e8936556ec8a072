"""The JSON documents a pack's ``report.pdf`` carries as attachments, read without a PDF library.

``build`` embeds ``manifest.json`` and ``decision.json`` in the PDF/A-3b report (WeasyPrint
writes each as an ``/EmbeddedFile`` stream with a direct ``/Length``, Flate-compressed).
``verify`` reads them back to check that the report carries the same decision as the pack.
Streams it cannot read (an indirect length, another filter, inflating past the limit, not a
JSON object with an ``apiVersion``) are skipped: the report then carries no metadata for that
document, and only ``--rebuild`` says whether the PDF is what the decision renders to.
"""

from __future__ import annotations

import re
import zlib

from .json_diff import parse_object

MAX_EMBEDDED_BYTES = 64 << 20
"""At most this many bytes inflated per attachment (a pack's decision.json is a few hundred KiB)."""

MAX_EMBEDDED_FILES = 64
"""Attachments looked at per PDF; a report has two."""

_EMBEDDED = re.compile(rb"/Type\s*/EmbeddedFile\b")
_STREAM = re.compile(rb"stream\r?\n")
_LENGTH = re.compile(rb"/Length\s+(\d{1,12})(?!\s+\d+\s+R)\b")
_HEADER_BYTES = 4096
_SIGNATURE = re.compile(rb"/ByteRange\s*\[\s*\d+\s+\d+\s+\d+\s+\d+\s*\]")


def carries_signature(pdf: bytes) -> bool:
    """Whether ``pdf`` holds a signature dictionary's ``/ByteRange`` (WeasyPrint writes none)."""
    return _SIGNATURE.search(pdf) is not None


def _stream_data(pdf: bytes, start: int) -> bytes | None:
    """The raw bytes of the stream whose dictionary holds ``/Type /EmbeddedFile`` at ``start``."""
    stream = _STREAM.search(pdf, start, start + _HEADER_BYTES)
    if stream is None:
        return None
    # The dictionary: from the object's "obj" keyword back before the match to "stream".
    obj = pdf.rfind(b"obj", max(0, start - _HEADER_BYTES), start)
    header = pdf[obj if obj >= 0 else start : stream.start()]
    length = _LENGTH.search(header)
    if length is None:
        return None
    size = int(length.group(1))
    data = pdf[stream.end() : stream.end() + size]
    if len(data) != size:
        return None
    if b"/Filter" not in header:
        return data
    if not re.search(rb"/Filter\s*/FlateDecode\s*[/>]", header):
        return None
    inflate = zlib.decompressobj()
    try:
        out = inflate.decompress(data, MAX_EMBEDDED_BYTES)
    except zlib.error:
        return None
    return None if inflate.unconsumed_tail else out


def embedded_documents(pdf: bytes) -> dict[str, bytes]:
    """``apiVersion`` -> bytes of each JSON document attached to ``pdf`` (the first of each)."""
    found: dict[str, bytes] = {}
    for count, match in enumerate(_EMBEDDED.finditer(pdf)):
        if count >= MAX_EMBEDDED_FILES:
            break
        data = _stream_data(pdf, match.end())
        document = parse_object(data) if data is not None else None
        api = document.get("apiVersion") if document else None
        if isinstance(api, str) and data is not None:
            found.setdefault(api, data)
    return found
