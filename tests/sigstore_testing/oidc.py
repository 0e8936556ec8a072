"""GitHub Actions' OIDC token service on loopback, for ambient keyless credentials offline.

Each request gets the next token of the list (the last one repeats): a runner mints a fresh
token per request, so a signer that asks twice may be handed another identity.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from evidencepack.signing.keyless import IDENTITY_TOKEN_ENV


def _handler(tokens: list[str]) -> type[BaseHTTPRequestHandler]:
    class TokenService(BaseHTTPRequestHandler):
        """GET ...&audience=sigstore, as the ``id`` package calls it."""

        def do_GET(self) -> None:
            assert "audience=sigstore" in self.path
            assert self.headers["Authorization"] == "bearer request-token"
            token = tokens.pop(0) if len(tokens) > 1 else tokens[0]
            body = json.dumps({"value": token}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return TokenService


@contextmanager
def github_token_service(tokens: list[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Serve ``tokens`` and set the environment ``permissions: id-token: write`` sets."""
    server = HTTPServer(("127.0.0.1", 0), _handler(list(tokens)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.delenv(IDENTITY_TOKEN_ENV, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "request-token")
    monkeypatch.setenv(
        "ACTIONS_ID_TOKEN_REQUEST_URL", f"http://127.0.0.1:{server.server_port}/token?x=1"
    )
    try:
        yield
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
