"""The simulated system under test behind an OpenAI-compatible streaming endpoint (SAMPLE DATA).

``evidencepack measure`` re-measures the sample's candidates the way a team would re-measure a
real deployment: LoadGen drives an HTTP client, the client streams from this server. The server
answers ``/version``, ``/v1/models`` and ``/v1/completions`` on 127.0.0.1 and times each request
with ``simsut.CapacityModel``: when a request arrives, the model says when its first and last
tokens are ready; the server sends the first token then, the rest in chunks (every
``CHUNK_EVERY_S``) and the last one at its moment, with ``usage`` (prompt and completion tokens)
and ``[DONE]``. A prompt names its dataset item as ``[ce-0001]``; its input length is the item's,
its output length the request's ``max_tokens``.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

from simsut import Capacity, CapacityModel, Item

CHUNK_EVERY_S = 0.5
_ITEM = re.compile(r"\[(ce-\d{4})\]")


class SimServer:
    """``with SimServer(...) as server: server.url`` serves one candidate's simulated replicas."""

    def __init__(
        self,
        capacity: Capacity,
        input_tokens: Mapping[str, int],
        *,
        model: str,
        runtime: str,
        version: str,
        seed: int,
        port: int = 0,
    ) -> None:
        self._model = CapacityModel(capacity, seed)
        self._inputs = dict(input_tokens)
        self.model_name = model
        self._runtime = runtime
        self._version = version
        self.port = port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failed: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="sim-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> SimServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the simulated server did not start")
        if self._failed is not None:
            raise self._failed
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
            )
        except OSError as exc:  # the port is taken
            self._failed = exc
            self._ready.set()
            return
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                method, path, _ = line.decode("latin-1").split(" ", 2)
                length = 0
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = h.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                if method == "GET" and path == "/version":
                    _json(writer, 200, {"version": self._version})
                elif method == "GET" and path == "/v1/models":
                    entry = {"id": self.model_name, "object": "model", "owned_by": self._runtime}
                    _json(writer, 200, {"object": "list", "data": [entry]})
                elif method == "POST" and path == "/v1/completions":
                    await self._complete(json.loads(body), writer)
                else:
                    _json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _complete(self, req: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        found = _ITEM.search(str(req.get("prompt", "")))
        if found is None or found.group(1) not in self._inputs:
            _json(writer, 400, {"error": {"message": "the prompt names no dataset item"}})
            return
        input_tokens = self._inputs[found.group(1)]
        output_tokens = int(req.get("max_tokens") or 1)
        first_s, last_s, _ = self._model.schedule(
            time.monotonic(), Item(input_tokens, output_tokens)
        )
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: simsut\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        sent = 0
        due = first_s
        while sent < output_tokens:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if sent == 0:
                count = 1
            elif due >= last_s:
                count = output_tokens - sent
            else:
                # Tokens are ready at first + k x TPOT; send the ones ready by now, keep the last.
                span = (last_s - first_s) / max(output_tokens - 1, 1)
                ready = 1 + int((time.monotonic() - first_s) / span) if span > 0 else output_tokens
                count = max(0, min(ready, output_tokens - 1) - sent)
            if count:
                self._event(writer, {"index": 0, "text": " tok" * count, "finish_reason": None})
                sent += count
                await writer.drain()
            due = min(last_s, max(due, first_s) + CHUNK_EVERY_S)
        usage = {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}
        self._event(writer, None, usage)
        _chunk(writer, b"data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")

    def _event(
        self,
        writer: asyncio.StreamWriter,
        choice: dict[str, Any] | None,
        usage: dict[str, int] | None = None,
    ) -> None:
        event: dict[str, Any] = {
            "id": "cmpl-sim",
            "object": "text_completion",
            "model": self.model_name,
            "choices": [choice] if choice else [],
        }
        if usage is not None:
            event["usage"] = usage
        _chunk(writer, b"data: " + json.dumps(event).encode() + b"\n\n")


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


def _json(writer: asyncio.StreamWriter, status: int, payload: object) -> None:
    data = json.dumps(payload).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nServer: simsut\r\n"
        f"Content-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
