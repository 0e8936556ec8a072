"""A proxy in front of llama.cpp's server that answers as an engine with less to offer would.

Every completion stream loses its ``usage`` and ``timings`` and carries two tokens' text per
event (as engines that batch their stream send it), so chunks are not tokens. With
``hide_tokenize`` the server's tokenize endpoints answer 404, as a server that has none: then
only a tokenizer the client brings can count the output. Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

TOKENIZE_PATHS = ("/tokenize", "/extras/tokenize", "/detokenize")


class _NoUsageProxy(BaseHTTPRequestHandler):
    """Forwards to llama.cpp's server: usage and timings dropped, two tokens per event."""

    protocol_version = "HTTP/1.1"
    upstream = ("127.0.0.1", 0)
    hide_tokenize = False

    def log_message(self, *_: object) -> None:
        pass

    def _forward(self) -> http.client.HTTPResponse:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        conn = http.client.HTTPConnection(*self.upstream, timeout=30)
        conn.request(self.command, self.path, body, {"Content-Type": "application/json"})
        return conn.getresponse()

    def do_GET(self) -> None:
        self._plain(self._forward())

    def do_POST(self) -> None:
        if self.hide_tokenize and urlsplit(self.path).path in TOKENIZE_PATHS:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self._send(404, "application/json", b'{"error": "not found"}')
            return
        answer = self._forward()
        if "completions" not in self.path:
            self._plain(answer)
            return
        events = []
        for line in answer.read().decode().splitlines():
            if line.startswith("data: {"):
                event = json.loads(line[6:])
                event.pop("usage", None)
                event.pop("timings", None)
                events.append(event)
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in _merged(events)) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        raw = data.encode()
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n0\r\n\r\n")

    def _plain(self, answer: http.client.HTTPResponse) -> None:
        body = answer.read()
        self._send(answer.status, answer.getheader("Content-Type") or "application/json", body)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _merged(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pair of text events as one: the first's event carrying both texts."""
    merged: list[dict[str, Any]] = []
    for event in events:
        choice = event["choices"][0] if event["choices"] else None
        last = merged[-1]["choices"][0] if merged and merged[-1]["choices"] else None
        if choice and last and choice.get("text") and not last.get("_merged"):
            last["text"] += choice["text"]
            last["finish_reason"] = choice["finish_reason"]
            last["_merged"] = True
        else:
            merged.append(event)
    for event in merged:
        for choice in event["choices"]:
            choice.pop("_merged", None)
    return merged


@contextlib.contextmanager
def no_usage_proxy(upstream_url: str, *, hide_tokenize: bool = False) -> Iterator[str]:
    """``with no_usage_proxy(engine.url) as url``: the proxy's URL while the block runs."""
    parts = urlsplit(upstream_url)
    attrs = {"upstream": (parts.hostname, parts.port), "hide_tokenize": hide_tokenize}
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), type("Proxy", (_NoUsageProxy,), attrs))
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}"
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join(5)
