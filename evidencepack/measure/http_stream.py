"""HTTP/1.1 response framing and server-sent events, read from an asyncio stream and bounded.

Every line, header block, chunk and event has a ceiling: a server that breaks one fails the
request (``Failed``) instead of growing the client's memory without end.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

MAX_ERROR_BODY = 2048
"""The most of an error response's body that is read (its start is kept in the reason)."""
MAX_LINE = 1 << 20
"""A status line, a header, a chunk-size line or one event line (one token): at most 1 MiB."""
_MAX_HEADERS = 100
_MAX_HEAD_BYTES = 64 << 10
_MAX_CHUNK = 16 << 20
"""One chunk of a chunked body: a server sends events of a few hundred bytes."""
_MAX_EVENT = 4 << 20
"""One server-sent event, all its ``data:`` lines together."""
_STATUS = re.compile(rb"HTTP/[0-9]\.[0-9] ([0-9]{3})(?: [^\r\n]*)?\r?\n")


class Failed(Exception):
    """A request failed for the reason given; caught inside ``Client.stream``."""


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """The status (three ASCII digits) and headers, each line and the whole head bounded."""
    line = await reader.readline()
    if not line:
        raise ConnectionResetError("the server closed the connection before answering")
    status = _STATUS.fullmatch(line)
    if status is None:
        raise Failed(f"malformed HTTP response: status line {line[:80]!r}")
    headers: dict[str, str] = {}
    size = len(line)
    while True:
        line = await reader.readline()
        size += len(line)
        if not line:
            raise ConnectionResetError("the server closed the connection in the headers")
        if line in (b"\r\n", b"\n"):
            return int(status[1]), headers
        if len(headers) >= _MAX_HEADERS or size > _MAX_HEAD_BYTES:
            raise Failed(
                f"malformed HTTP response: more than {_MAX_HEADERS} headers or "
                f"{_MAX_HEAD_BYTES} bytes of them"
            )
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()


async def read_body(
    reader: asyncio.StreamReader, headers: dict[str, str], limit: int | None
) -> AsyncIterator[bytes]:
    """The response body as it arrives (chunked, sized or until close), up to ``limit``."""
    seen = 0
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readline()
            digits = size_line.split(b";")[0].strip()
            if not size_line:
                raise asyncio.IncompleteReadError(b"", None)
            if not re.fullmatch(rb"[0-9A-Fa-f]{1,8}", digits):
                raise Failed(f"malformed chunked body: {size_line[:40]!r}")
            size = int(digits, 16)
            if size > _MAX_CHUNK:
                raise Failed(
                    f"malformed chunked body: a chunk of {size} bytes (at most {_MAX_CHUNK})"
                )
            if size == 0:
                await reader.readline()
                return
            data = await reader.readexactly(size + 2)
            seen += size
            yield data[:-2]
            if limit is not None and seen >= limit:
                return
    elif "content-length" in headers:
        if not re.fullmatch(r"[0-9]{1,15}", headers["content-length"]):
            raise Failed(f"malformed Content-Length: {headers['content-length'][:40]!r}")
        remaining = int(headers["content-length"])
        while remaining > 0:
            data = await reader.read(min(remaining, 65536))
            if not data:
                raise asyncio.IncompleteReadError(b"", remaining)
            remaining -= len(data)
            seen += len(data)
            yield data
            if limit is not None and seen >= limit:
                return
    else:
        while data := await reader.read(65536):
            seen += len(data)
            yield data
            if limit is not None and seen >= limit:
                return


async def events(body: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event (multi-line data joined with newlines)."""
    pending = b""
    data: list[str] = []
    async for chunk in body:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not line:
                if data:
                    yield "\n".join(data)
                    data = []
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
                if sum(len(d) for d in data) > _MAX_EVENT:
                    raise Failed("malformed event stream: an event longer than 4 MiB")
            elif line.startswith(":") or line.partition(":")[0] in ("event", "id", "retry"):
                continue
            else:
                raise Failed(f"malformed event stream: unexpected line {line[:80]!r}")
        if len(pending) > MAX_LINE:
            raise Failed("malformed event stream: a line longer than 1 MiB")
    if pending.strip() or data:
        tail = pending.rstrip(b"\r").decode("utf-8", "replace")
        if tail.startswith("data:"):
            data.append(tail[5:].removeprefix(" "))
        if data:
            yield "\n".join(data)
