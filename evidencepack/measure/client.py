"""An asynchronous streaming client for OpenAI-compatible servers, on raw asyncio streams.

One ``Client`` per run keeps a small pool of HTTP/1.1 keep-alive connections and streams
``/v1/completions`` or ``/v1/chat/completions`` with server-sent events. ``stream()`` never
raises for what the server or the network does: a refused connection, an HTTP error, a
timeout, a malformed event stream or an empty completion is an ``Outcome`` with ``error`` set.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from ..errors import InvalidRequest, option
from .http_stream import MAX_ERROR_BODY, MAX_LINE, Failed, events, read_body, read_head

Api = Literal["completions", "chat"]
MAX_USAGE_TOKENS = 10_000_000
"""A usage count above this is refused: no completion is ten million tokens long."""
_POOL_SIZE = 1024
_REDACTED = "[redacted]"


MAX_ANSWER_DEPTH = 64
"""Nesting kept of a JSON answer (``/version``, ``/v1/models``): deeper is no answer."""


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (iteratively: no recursion limit)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_ANSWER_DEPTH:
                children = item.values() if isinstance(item, dict) else item
                pending += [(child, level + 1) for child in children]
    return deepest


def _no_constant(name: str) -> Any:
    """``json.loads``'s hook for NaN and Infinity: refused (strict JSON)."""
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class Endpoint:
    """Where the server listens: ``http(s)://host:port/base`` (the base holds ``/v1``)."""

    url: str
    scheme: Literal["http", "https"]
    host: str
    port: int
    base_path: str

    @property
    def host_header(self) -> str:
        """The ``Host`` header: the host, with the port unless it is the scheme's default; an
        IPv6 address in brackets (RFC 9110 7.2: ``[::1]:8000``, never ``::1:8000``)."""
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def parse_endpoint(url: str) -> Endpoint:
    """The endpoint of ``url`` (``http://127.0.0.1:8000`` or ``.../v1``); InvalidRequest if
    not HTTP."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidRequest(
            f"{option('endpoint')} {url!r}: give an http:// or https:// URL with a host"
        )
    if parts.query or parts.fragment or parts.username:
        raise InvalidRequest(
            f"{option('endpoint')} {url!r}: no query, fragment or credentials in the URL"
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise InvalidRequest(f"{option('endpoint')} {url!r}: {exc}") from exc
    base = parts.path.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    scheme: Literal["http", "https"] = "https" if parts.scheme == "https" else "http"
    return Endpoint(url, scheme, parts.hostname, port, base)


@dataclass(frozen=True)
class RequestSettings:
    """What every request asks for; ``sampling`` holds temperature, top_p, seed and the like."""

    model: str
    api: Api = "completions"
    max_tokens: int | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    include_usage: bool = True
    timeout_s: float = 600.0

    def body(self, prompt: str | list[dict[str, Any]], max_tokens: int | None) -> dict[str, Any]:
        """The JSON body of one streamed request for ``prompt``."""
        body: dict[str, Any] = {"model": self.model, "stream": True}
        if self.api == "chat":
            messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
            body["messages"] = messages
        else:
            body["prompt"] = prompt if isinstance(prompt, str) else json.dumps(prompt)
        limit = max_tokens if max_tokens is not None else self.max_tokens
        if limit is not None:
            body["max_tokens"] = limit
        if self.include_usage:
            body["stream_options"] = {"include_usage": True}
        body.update(self.sampling)
        return body


@dataclass
class Outcome:
    """One request as the client saw it; times are ``time.perf_counter_ns()`` readings."""

    sent_ns: int
    sent_epoch_s: float
    first_token_ns: int | None = None
    done_ns: int | None = None
    chunk_ns: list[int] = field(default_factory=list)
    output_tokens: int | None = None
    input_tokens: int | None = None
    tokens_source: Literal["usage", "tokenizer", "counted"] | None = None
    """Where ``output_tokens`` came from: the server's usage, the server's tokenizer run on the
    output text, or the streamed chunks counted (an estimate: a chunk is not a token)."""
    tokenize_ms: float | None = None
    retried: str | None = None
    """Why the request was sent a second time (a reused connection closed without a byte)."""
    http_status: int | None = None
    error: str | None = None
    response_model: str | None = None
    finish_reason: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    """The output text as it arrived, piece by piece (for the tokenizer; never recorded)."""
    event_bytes: int = 0
    """The event data received (evidence for a stream that ended early)."""
    connection: str = "new connection"
    """Which connection carried the request: new, or reused (its earlier requests, idle time)."""

    @property
    def ok(self) -> bool:
        """Whether the request succeeded."""
        return self.error is None


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.served = 0
        self.idle_since = time.monotonic()

    def describe(self) -> str:
        """Which connection this is, for the evidence of a request that failed on it."""
        if not self.served:
            return "new connection"
        idle = time.monotonic() - self.idle_since
        return f"keep-alive connection reused after {self.served} request(s), idle {idle:.3f} s"

    def close(self) -> None:
        """Close the connection (the server sees EOF)."""
        self.writer.close()


class Client:
    """Streams requests to one endpoint; reuse it for a whole run, ``close()`` at the end."""

    def __init__(
        self, endpoint: Endpoint, settings: RequestSettings, api_key: str | None = None
    ) -> None:
        self.endpoint = endpoint
        self.settings = settings
        self._api_key = api_key
        self._idle: list[_Conn] = []
        self._ssl = ssl.create_default_context() if endpoint.scheme == "https" else None
        path = "/chat/completions" if settings.api == "chat" else "/completions"
        self.path = endpoint.base_path + path

    async def close(self) -> None:
        """Close every idle connection."""
        while self._idle:
            self._idle.pop().close()

    async def _connect(self, *, fresh: bool = False) -> _Conn:
        while self._idle and not fresh:
            conn = self._idle.pop()
            if not conn.reader.at_eof() and not conn.writer.is_closing():
                conn.served += 1
                return conn
            conn.close()
        reader, writer = await asyncio.open_connection(
            self.endpoint.host, self.endpoint.port, ssl=self._ssl, limit=MAX_LINE
        )
        return _Conn(reader, writer)

    def _head(
        self, method: str, path: str, length: int | None, *, want_json: bool = False
    ) -> bytes:
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.endpoint.host_header}",
            "User-Agent: evidencepack-measure",
            "Accept: application/json" if want_json else "Accept: text/event-stream",
        ]
        if length is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {length}"]
        if self._api_key:
            lines.append(f"Authorization: Bearer {self._api_key}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def get_json(self, path: str, timeout_s: float = 5.0) -> tuple[int, dict[str, str], Any]:
        """GET ``path`` (for ``/version`` and ``/v1/models``); raises OSError or TimeoutError."""
        return await self.call_json("GET", path, None, timeout_s)

    async def call_json(
        self, method: str, path: str, payload: Any, timeout_s: float = 5.0
    ) -> tuple[int, dict[str, str], Any]:
        """Send ``payload`` (None: no body) to ``path``; the status, headers and JSON answer
        (None if it is not JSON). Raises OSError or TimeoutError."""
        data = b"" if payload is None else json.dumps(payload).encode()
        async with asyncio.timeout(timeout_s):
            # A new connection each time: one from the pool may be one the server has closed.
            conn = await self._connect(fresh=True)
            try:
                head = self._head(
                    method, path, None if payload is None else len(data), want_json=True
                )
                conn.writer.write(head + data)
                await conn.writer.drain()
                status, headers = await read_head(conn.reader)
                body = b"".join([c async for c in read_body(conn.reader, headers, 1 << 20)])
            finally:
                conn.close()
        try:
            # Strict JSON: no NaN or Infinity (run.json would carry them, and no JSON reader
            # takes them); a body nested too deep is no answer, not a RecursionError.
            answer = json.loads(body, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return status, headers, None
        return status, headers, answer if _depth(answer) <= MAX_ANSWER_DEPTH else None

    async def stream(
        self,
        prompt: str | list[dict[str, Any]],
        max_tokens: int | None,
        on_first_token: Callable[[], None],
    ) -> Outcome:
        """Send one streaming request; ``on_first_token`` runs as soon as output appears.

        A server may close a keep-alive connection it has just announced as open (llama.cpp's
        server does, after some streamed answers): a request sent on it then gets no byte back.
        Such a request, on a reused connection, answered by nothing but the close, is sent once
        more on a new connection, and its row says so (``retried``); its times run from the
        first send."""
        payload = json.dumps(self.settings.body(prompt, max_tokens)).encode()
        out = Outcome(sent_ns=time.perf_counter_ns(), sent_epoch_s=time.time())
        await self._attempt(payload, out, on_first_token)
        if _stale(out):
            again = Outcome(sent_ns=out.sent_ns, sent_epoch_s=out.sent_epoch_s)
            again.retried = out.error
            await self._attempt(payload, again, on_first_token, fresh=True)
            out = again
        if out.error is None and not out.output_tokens:
            out.error = "empty completion: the stream ended without output"
        self.redact(out)
        return out

    async def _attempt(
        self,
        payload: bytes,
        out: Outcome,
        on_first_token: Callable[[], None],
        *,
        fresh: bool = False,
    ) -> None:
        conn: _Conn | None = None
        reusable = False
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                conn = await self._connect(fresh=fresh)
                out.connection = conn.describe()
                conn.writer.write(self._head("POST", self.path, len(payload)) + payload)
                await conn.writer.drain()
                reusable = await self._read_stream(conn, out, on_first_token)
        except TimeoutError:
            out.error = f"timeout: no complete response within {self.settings.timeout_s:g} s"
        except ConnectionRefusedError:
            out.error = "connection refused"
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            out.error = _lost(out, exc)
        except OSError as exc:
            out.error = f"network error: {exc.strerror or type(exc).__name__}"
        except Failed as exc:
            out.error = str(exc)
        except (ValueError, UnicodeError, RecursionError, OverflowError, MemoryError) as exc:
            # What the server sent broke a bound or a parser (an over-long line, a number that
            # is no number, JSON nested past the parser's depth): this request failed.
            out.error = f"malformed response: {type(exc).__name__}: {str(exc)[:200]}"
        except asyncio.CancelledError:
            out.error = "cancelled: the run was stopped"
            if conn is not None:
                conn.close()
            raise
        finally:
            out.done_ns = time.perf_counter_ns()
            if conn is not None:
                if reusable and out.error is None and len(self._idle) < _POOL_SIZE:
                    conn.idle_since = time.monotonic()
                    self._idle.append(conn)
                else:
                    conn.close()

    def redact(self, out: Outcome) -> None:
        """Remove the API key from everything the server sent that is recorded (an error body
        that echoes the Authorization header, a model name, a finish reason, headers)."""
        out.error = self.redacted(out.error)
        out.retried = self.redacted(out.retried)
        out.response_model = self.redacted(out.response_model)
        out.finish_reason = self.redacted(out.finish_reason)
        out.headers = {k: self.redacted(v) or "" for k, v in out.headers.items()}

    def redacted(self, text: str | None) -> str | None:
        """``text`` without the API key, whole or cut short at its end (a truncated echo)."""
        key = self._api_key
        if not text or not key:
            return text
        text = text.replace(key, _REDACTED)
        for size in range(min(len(key), len(text)) - 1, 3, -1):
            if text.endswith(key[:size]):
                return text[:-size] + _REDACTED
        return text

    async def _read_stream(
        self, conn: _Conn, out: Outcome, on_first_token: Callable[[], None]
    ) -> bool:
        status, headers = await read_head(conn.reader)
        out.http_status = status
        out.headers = headers
        if status != 200:
            body = b""
            async for chunk in read_body(conn.reader, headers, MAX_ERROR_BODY):
                body += chunk
            text = body[:200].decode("utf-8", "replace").strip()
            raise Failed(f"HTTP {status}" + (f": {text}" if text else ""))
        done = False
        try:
            async for data in events(read_body(conn.reader, headers, None)):
                out.event_bytes += len(data)
                if done:
                    raise Failed("malformed event stream: data after [DONE]")
                if data == "[DONE]":
                    done = True
                    continue
                _take_event(data, out, on_first_token)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not done:
                raise
            # The answer was whole; only the connection's last bytes (the chunked body's end)
            # never came: nothing is lost, the connection is not reused.
            headers["connection"] = "close"
        if not done:
            raise asyncio.IncompleteReadError(b"", None)  # the body ended before [DONE]
        counted = len(out.chunk_ns)
        text_bytes = sum(len(t.encode("utf-8", "replace")) for t in out.text)
        if out.tokens_source == "usage" and (out.output_tokens or 0) > _plausible(
            counted, text_bytes
        ):
            raise Failed(
                f"usage contradicts the stream: {out.output_tokens:,} completion tokens for "
                f"{counted} chunk(s) of {text_bytes} byte(s) of text"
            )
        if out.tokens_source is None:
            out.output_tokens = counted
            out.tokens_source = "counted"
        return headers.get("connection", "").lower() != "close"


def _take_event(data: str, out: Outcome, on_first_token: Callable[[], None]) -> None:
    """Record one event's output text and time, finish reason and usage on ``out``."""
    try:
        event = json.loads(data)
    except ValueError:
        raise Failed(f"malformed event stream: not JSON: {data[:80]!r}") from None
    if not isinstance(event, dict):
        raise Failed(f"malformed event stream: not an object: {data[:80]!r}")
    if "error" in event:
        raise Failed(f"server error in stream: {str(event['error'])[:200]}")
    out.response_model = out.response_model or _str(event.get("model"))
    if texts := _texts(event):
        now = time.perf_counter_ns()
        if out.first_token_ns is None:
            out.first_token_ns = now
            on_first_token()
        out.chunk_ns.append(now)
        out.text += texts
    for choice in event.get("choices") or ():
        if isinstance(choice, dict) and choice.get("finish_reason"):
            out.finish_reason = str(choice["finish_reason"])
    _take_usage(event.get("usage"), out)


def _stale(out: Outcome) -> bool:
    """Whether ``out`` failed on a reused keep-alive connection the server had closed: the
    connection ended before any byte of an answer came back (nothing was lost but the send)."""
    return (
        out.error is not None
        and out.error.startswith("connection lost")
        and out.connection != "new connection"
        and out.http_status is None
        and out.event_bytes == 0
        and out.first_token_ns is None
    )


def _lost(out: Outcome, exc: BaseException) -> str:
    """The error of a request whose connection ended under it, with the evidence of who ended
    it: what had arrived, how the connection ended (the server's FIN, or a reset) and which
    connection it was. The client closes a connection only after its answer is whole, on a
    timeout or when the run stops, each reported as such: an end here is the server's."""
    how = "closed (EOF)"
    if isinstance(exc, ConnectionResetError) and not str(exc).startswith("the server closed"):
        how = "reset (RST)"
    if out.http_status != 200:
        return (
            f"connection lost: {type(exc).__name__}: the server {how} the connection before a "
            f"whole response; {out.connection}"
        )
    return (
        f"truncated event stream: the server {how} the connection before [DONE], "
        f"after {len(out.chunk_ns)} output chunk(s) and {out.event_bytes} byte(s) of event data; "
        f"{out.connection}"
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _take_usage(usage: object, out: Outcome) -> None:
    """Record an event's ``usage`` counts on ``out``; a count out of range fails the request."""
    if not isinstance(usage, dict) or usage.get("completion_tokens") is None:
        return
    completion = _count(usage["completion_tokens"])
    if completion is None:
        raise Failed(
            "impossible usage count: completion_tokens "
            f"{str(usage['completion_tokens'])[:40]} (0 to {MAX_USAGE_TOKENS:,} allowed)"
        )
    out.output_tokens = completion
    out.input_tokens = _count(usage.get("prompt_tokens"))
    out.tokens_source = "usage"


def _count(value: object) -> int | None:
    """A usage count: an integer (not a bool) from 0 to ``MAX_USAGE_TOKENS``, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_USAGE_TOKENS:
        return value
    return None


def _plausible(chunks: int, text_bytes: int) -> int:
    """The most completion tokens a stream of ``chunks`` chunks holding ``text_bytes`` bytes
    of text can stand for: a token is at least one byte of text (or a chunk of its own), with
    room for special tokens that print nothing."""
    return chunks + text_bytes + 16


def _texts(event: dict[str, Any]) -> list[str]:
    """The pieces of output text the event carries (none: no output)."""
    texts: list[str] = []
    for choice in event.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        delta = choice.get("delta")
        pieces = (
            choice.get("text"),
            delta.get("content") if isinstance(delta, dict) else None,
            delta.get("reasoning_content") if isinstance(delta, dict) else None,
        )
        texts.extend(text for text in pieces if isinstance(text, str) and text)
    return texts
