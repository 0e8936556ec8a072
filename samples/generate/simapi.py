"""A simulated hosted model API on 127.0.0.1 (SAMPLE DATA tooling, not runtime): OpenAI-compatible
``/v1/models`` and streaming ``/v1/completions``, a latency profile and a per-account rate limit
that answers HTTP 429 with ``Retry-After`` past it.

Latency: TTFT = ``ttft_base_s`` + ``ttft_per_1k_input_s`` x input tokens / 1000, TPOT =
``tpot_s``, each with a seeded log-normal jitter (``sigma``); a provider's capacity is taken as
large, so latency does not grow with load. Rate limit: token buckets refilled at
``requests_per_minute`` / 60 requests and ``tokens_per_minute`` / 60 tokens (input plus
``max_tokens``, as providers count at admission) per second, each holding ``burst_s`` seconds of
refill; a request that finds either empty is answered 429 at once. The server is bounded: it
answers at most ``max_requests`` completions and stops after ``max_seconds``.

    with SimApi(ApiProfile(...), requests_per_minute=240) as api: api.url
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

_ITEM_TOKENS = re.compile(r"\[in=(\d+)\]")


@dataclass(frozen=True)
class ApiProfile:
    """The simulated API's latency."""

    ttft_base_s: float = 0.25
    ttft_per_1k_input_s: float = 0.10
    tpot_s: float = 0.022
    sigma: float = 0.2
    chunk_every_s: float = 0.5


class _Bucket:
    def __init__(self, per_minute: float | None, burst_s: float) -> None:
        self.rate = (per_minute or 0) / 60.0
        self.capacity = self.rate * burst_s
        self.level = self.capacity
        self.stamp = time.monotonic()

    def take(self, amount: float) -> float:
        """0 when ``amount`` was taken, else the seconds until it could be."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= amount:
            self.level -= amount
            return 0.0
        return (amount - self.level) / self.rate


class SimApi:
    """``with SimApi(...) as api: api.url``: one account of the simulated API."""

    def __init__(
        self,
        profile: ApiProfile,
        *,
        model: str,
        provider: str,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        burst_s: float = 10.0,
        seed: int = 0,
        max_requests: int = 5000,
        max_seconds: float = 1800.0,
        api_key: str | None = None,
    ) -> None:
        self.profile = profile
        self.model = model
        self.provider = provider
        self._requests = _Bucket(requests_per_minute, burst_s)
        self._tokens = _Bucket(tokens_per_minute, burst_s)
        self._random = random.Random(seed)
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self.api_key = api_key
        """When set, a request without ``Authorization: Bearer <key>`` is answered 401."""
        self.answered = 0
        self.limited = 0
        self.port = 0
        self._started = 0.0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-api", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> SimApi:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the simulated API did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024)
        )
        self.port = server.sockets[0].getsockname()[1]
        self._started = time.monotonic()
        self._loop.call_later(self.max_seconds, self._loop.stop)
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = h.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
                    _json(writer, 401, {"error": {"message": "invalid API key"}})
                elif method == "GET" and path == "/v1/models":
                    entry = {"id": self.model, "object": "model", "owned_by": self.provider}
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
        prompt = str(req.get("prompt", ""))
        found = _ITEM_TOKENS.search(prompt)
        input_tokens = int(found.group(1)) if found else max(1, len(prompt.split()))
        output_tokens = int(req.get("max_tokens") or 16)
        if self.answered >= self.max_requests:
            _json(writer, 503, {"error": {"message": "the simulated API's bound is reached"}})
            return
        wait = max(self._requests.take(1), self._tokens.take(input_tokens + output_tokens))
        if wait > 0:
            self.limited += 1
            _json(
                writer,
                429,
                {"error": {"message": "rate limit reached", "type": "rate_limit_exceeded"}},
                {"Retry-After": str(max(1, math.ceil(wait)))},
            )
            return
        self.answered += 1
        p = self.profile
        jitter = self._random.lognormvariate
        ttft = (p.ttft_base_s + p.ttft_per_1k_input_s * input_tokens / 1000) * jitter(0, p.sigma)
        tpot = p.tpot_s * jitter(0, p.sigma / 2)
        start = time.monotonic()
        first_s, last_s = start + ttft, start + ttft + (output_tokens - 1) * tpot
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nServer: simapi\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        sent, due = 0, first_s
        while sent < output_tokens:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if sent == 0:
                count = 1
            elif due >= last_s:
                count = output_tokens - sent
            else:
                ready = 1 + int((time.monotonic() - first_s) / tpot)
                count = max(0, min(ready, output_tokens - 1) - sent)
            if count:
                self._event(writer, {"index": 0, "text": " tok" * count, "finish_reason": None})
                sent += count
                await writer.drain()
            due = min(last_s, max(due, first_s) + p.chunk_every_s)
        self._event(
            writer, None, {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}
        )
        _chunk(writer, b"data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")

    def _event(
        self,
        writer: asyncio.StreamWriter,
        choice: dict[str, Any] | None,
        usage: dict[str, int] | None = None,
    ) -> None:
        event: dict[str, Any] = {
            "id": "cmpl-simapi",
            "object": "text_completion",
            "model": self.model,
            "choices": [choice] if choice else [],
        }
        if usage is not None:
            event["usage"] = usage
        _chunk(writer, b"data: " + json.dumps(event).encode() + b"\n\n")


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


def _json(
    writer: asyncio.StreamWriter,
    status: int,
    payload: object,
    extra: dict[str, str] | None = None,
) -> None:
    data = json.dumps(payload).encode()
    reason = {
        200: "OK",
        401: "Unauthorized",
        404: "Not Found",
        429: "Too Many Requests",
        503: "Service Unavailable",
    }[status]
    more = "".join(f"{k}: {v}\r\n" for k, v in (extra or {}).items())
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nServer: simapi\r\n"
        f"{more}Content-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
