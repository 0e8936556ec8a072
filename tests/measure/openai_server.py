"""A small OpenAI-compatible streaming server on 127.0.0.1 for the measure tests and benchmark.

It answers ``/version``, ``/v1/models``, ``/v1/completions`` and ``/v1/chat/completions`` over
HTTP/1.1 keep-alive with chunked server-sent events. Latency is set per server (``ttft_s``,
``tpot_s``); a directive in the prompt picks a failure for that request:
``@500`` / ``@400`` (HTTP error), ``@hang`` (never answers), ``@malformed`` (a non-JSON event),
``@empty`` (no output), ``@truncate`` (closes the stream before ``[DONE]``), ``@reset`` (closes
the connection without answering), ``@done-close`` (closes it after ``[DONE]``, before the
chunked body's last chunk: the answer is whole), ``@close-next`` (answers, keeps the connection
open, and closes it unanswered when the next request arrives on it). Hostile directives
(``_hostile``): ``@unicode-status`` (``HTTP/1.1 ²²² OK``), ``@long-header`` (a 2 MiB header line),
``@huge-chunk`` (a chunk declared as 1 GiB), ``@huge-token`` (one 8 MiB token),
``@usage-huge`` (10**30 completion tokens), ``@usage-inflated`` (100,000 completion tokens
for 3 chunks), ``@echo-auth`` (401 whose body echoes the Authorization header), ``@deep`` (an
event nested 100,000 levels deep).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

MODEL = "acme/contract-summariser-70b-fp8 (sample)"


class OpenAIServer:
    """Run with ``with OpenAIServer(ttft_s=..., tpot_s=...) as server: server.url``."""

    def __init__(
        self,
        *,
        ttft_s: float = 0.0,
        tpot_s: float = 0.0,
        model: str = MODEL,
        include_usage: bool = True,
        mutate: Callable[[bytes], bytes] | None = None,
    ) -> None:
        self.mutate = mutate
        """Applied to each whole response (head and body) before it is sent: a fuzzed server."""
        self.ttft_s = ttft_s
        self.tpot_s = tpot_s
        self.model = model
        self.include_usage = include_usage
        self.requests = 0
        self.authorizations: set[str] = set()
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="openai-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Close the listening socket and every connection (the server is 'lost')."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._shutdown)
            self._thread.join(10)

    def _shutdown(self) -> None:
        self._loop.create_task(self._close_all())

    async def _close_all(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop.stop()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        close_next = False
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = h.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if "authorization" in headers:
                    self.authorizations.add(headers["authorization"])
                if close_next:
                    return  # the keep-alive connection it answered on is closed, unanswered
                close_next = b"@close-next" in body
                if not await self._route(method, path, body, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        finally:
            writer.close()

    async def _route(
        self, method: str, path: str, body: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        if method == "GET" and path == "/version":
            return await _json(writer, 200, {"version": "0.9.2"})
        if method == "GET" and path == "/v1/models":
            models = {"object": "list", "data": [{"id": self.model, "owned_by": "vllm"}]}
            return await _json(writer, 200, models)
        if method == "POST" and path in ("/v1/completions", "/v1/chat/completions"):
            self.requests += 1
            return await self._complete(json.loads(body), writer, chat="chat" in path)
        return await _json(writer, 404, {"error": {"message": f"no route {path}"}})

    def _whole(self, req: dict[str, Any], prompt: str, tokens: int, chat: bool) -> bytes:
        """The complete streamed response to ``req``, as one byte string."""
        out = _SSE
        for i in range(tokens):
            text = {"delta": {"content": f" t{i}"}} if chat else {"text": f" t{i}"}
            choice = {"index": 0, **text, "finish_reason": "length" if i == tokens - 1 else None}
            out += _event_chunk({"id": "x", "model": self.model, "choices": [choice]})
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": tokens}
        out += _event_chunk({"id": "x", "model": self.model, "choices": [], "usage": usage})
        return out + _event_chunk(b"[DONE]") + b"0\r\n\r\n"

    async def _complete(
        self, req: dict[str, Any], writer: asyncio.StreamWriter, chat: bool
    ) -> bool:
        prompt = json.dumps(req.get("messages")) if chat else str(req.get("prompt"))
        if "@reset" in prompt:
            return False
        if "@500" in prompt:
            return await _json(writer, 500, {"error": {"message": "internal error (test)"}})
        if "@400" in prompt:
            return await _json(writer, 400, {"error": {"message": "bad request (test)"}})
        if "@hang" in prompt:
            await asyncio.sleep(3600)
        if (hostile := await _hostile(prompt, writer, self.authorizations)) is not None:
            return hostile
        tokens = 0 if "@empty" in prompt else int(req.get("max_tokens") or 16)
        if self.mutate is not None:
            writer.write(self.mutate(self._whole(req, prompt, tokens, chat)))
            await writer.drain()
            return False  # mutated framing: the connection cannot be reused
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: openai-test\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        await asyncio.sleep(self.ttft_s)
        for i in range(tokens):
            if i:
                await asyncio.sleep(self.tpot_s)
            if "@truncate" in prompt and i == tokens // 2:
                return False  # close mid-stream, before [DONE]
            if "@malformed" in prompt and i == 1:
                _chunk(writer, b"data: {not json\n\n")
                continue
            choice: dict[str, Any] = (
                {"index": 0, "delta": {"content": f" t{i}"}}
                if chat
                else {"index": 0, "text": f" t{i}"}
            )
            choice["finish_reason"] = "length" if i == tokens - 1 else None
            event = {"id": "x", "model": self.model, "choices": [choice]}
            _chunk(writer, b"data: " + json.dumps(event).encode() + b"\n\n")
            await writer.drain()
        if self.include_usage and (req.get("stream_options") or {}).get("include_usage"):
            usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": tokens}
            event = {"id": "x", "model": self.model, "choices": [], "usage": usage}
            _chunk(writer, b"data: " + json.dumps(event).encode() + b"\n\n")
        _chunk(writer, b"data: [DONE]\n\n")
        if "@done-close" in prompt:
            await writer.drain()
            return False  # [DONE], then the connection ends before the chunked body's end
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


def _event_chunk(payload: dict[str, Any] | bytes) -> bytes:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    body = b"data: " + data + b"\n\n"
    return f"{len(body):x}\r\n".encode() + body + b"\r\n"


_SSE = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


async def _hostile(
    prompt: str, writer: asyncio.StreamWriter, authorizations: set[str]
) -> bool | None:
    """Answer a hostile directive of ``prompt`` (None: there is none)."""
    if "@unicode-status" in prompt:
        writer.write("HTTP/1.1 ²²² OK\r\nContent-Length: 0\r\n\r\n".encode())
    elif "@long-header" in prompt:
        writer.write(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * (2 << 20) + b"\r\n\r\n")
    elif "@huge-chunk" in prompt:
        writer.write(_SSE + b"40000000\r\n" + b"data: " + b"a" * (1 << 20))
    elif "@huge-token" in prompt:
        writer.write(_SSE)
        for _ in range(8):
            _chunk(writer, b"data: " + b"a" * (1 << 20) if _ == 0 else b"a" * (1 << 20))
    elif "@usage-huge" in prompt or "@usage-inflated" in prompt or "@deep" in prompt:
        writer.write(_SSE)
        for i in range(3):
            event = {"id": "x", "model": MODEL, "choices": [{"index": 0, "text": f" t{i}"}]}
            _chunk(writer, b"data: " + json.dumps(event).encode() + b"\n\n")
        tokens = 10**30 if "@usage-huge" in prompt else 100_000
        usage = b'{"id": "x", "choices": [], "usage": {"completion_tokens": %d}}' % tokens
        if "@deep" in prompt:
            usage = b"[" * 100_000 + b"]" * 100_000
        _chunk(writer, b"data: " + usage + b"\n\n")
        _chunk(writer, b"data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
    elif "@echo-auth" in prompt:
        echoed = " ".join(sorted(authorizations))
        body = json.dumps({"error": {"message": f"invalid credentials: {echoed}"}}).encode()
        writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    else:
        return None
    await writer.drain()
    return "@huge-chunk" not in prompt and "@long-header" not in prompt


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


async def _json(writer: asyncio.StreamWriter, status: int, payload: Any) -> bool:
    data = json.dumps(payload).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"}
    writer.write(
        f"HTTP/1.1 {status} {reason[status]}\r\nContent-Type: application/json\r\n"
        f"Server: openai-test\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    await writer.drain()
    return True
