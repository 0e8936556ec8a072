"""The local instance's Fulcio and Rekor over loopback HTTP, speaking their REST APIs, so that
the real ``FulcioClient`` and ``RekorClient`` (and so ``evidencepack sign`` itself) run offline."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from .instance import LocalSigstore


def _handler(instance: LocalSigstore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            try:
                if self.path == "/api/v2/signingCert":
                    token = self.headers["Authorization"].removeprefix("Bearer ")
                    pem = base64.b64decode(body["certificateSigningRequest"])
                    leaf = instance.issue_certificate(x509.load_pem_x509_csr(pem), token)
                    chain = [leaf.public_bytes(Encoding.PEM).decode()]
                    chain.append(instance.ca.root.public_bytes(Encoding.PEM).decode())
                    answer = {"signedCertificateEmbeddedSct": {"chain": {"certificates": chain}}}
                    self._reply(201, answer)
                elif self.path == "/api/v1/log/entries":
                    now = int(instance.clock().timestamp())
                    self._reply(201, instance.log.integrate(body, now))
                else:
                    self._reply(404, {"code": 404, "message": f"no route {self.path}"})
            except (ValueError, KeyError) as exc:
                self._reply(400, {"code": 400, "message": str(exc)})

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(instance: LocalSigstore) -> Iterator[str]:
    """Run Fulcio and Rekor for ``instance`` on 127.0.0.1; yield their base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(instance))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
