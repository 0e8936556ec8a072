"""Hostile strings in the document never fetch, never read a file, never become markup.

A loopback HTTP server (127.0.0.1, ephemeral port) listens for the whole module; the hostile
document points at it and at local files. The server must receive nothing, the strings must come
back as text, and the allowlist fetcher must refuse file:// and http:// when called directly.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pypdf
import pytest

from evidencepack.errors import RenderError
from evidencepack.render.fetcher import FetchRefused
from evidencepack.render.html import render_html
from evidencepack.render.pdf import load_weasyprint, render_pdf, url_fetcher

from . import fixture
from .scan import bad_attributes, scan

# What WeasyPrint fetches while rendering: every PDF here is rendered (tests/pdf_cache.py).
pytestmark = pytest.mark.real_pdf


class Loopback:
    """A bounded HTTP server on 127.0.0.1 that records every request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 2

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                outer.requests.append(self.path)
                body = b"body { background: red }"
                self.send_response(200)
                self.send_header("Content-Type", "text/css")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    with Loopback() as server:
        yield server


@pytest.fixture(scope="module")
def hostile_html(loopback: Loopback) -> str:
    return render_html(
        fixture.hostile(loopback.port), evidence_digest=fixture.EVIDENCE_DIGEST, signer=None
    )


def test_the_loopback_server_does_record_requests(loopback: Loopback) -> None:
    """Without this the 'no request' assertions below could pass for a dead server."""
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{loopback.port}/probe", timeout=5) as reply:
        assert reply.status == 200
    assert "/probe" in loopback.requests
    loopback.requests.remove("/probe")


def test_hostile_strings_are_escaped_text_not_markup(hostile_html: str, loopback: Loopback) -> None:
    parsed = scan(hostile_html)
    names = parsed.names()
    assert "script" not in names
    for tag in ("img", "link", "iframe", "object", "embed", "base"):
        assert tag not in names
    assert names.count("style") == 1
    assert "127.0.0.1" not in "".join(parsed.style_text)
    assert bad_attributes(parsed) == []
    text = parsed.all_text()
    for bad in fixture.hostile_strings(loopback.port):
        # Back as text once parsed, and escaped in the source.
        assert bad in text
        assert bad not in hostile_html or "<" not in bad
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile_html
    assert f"&lt;img src=&#34;http://127.0.0.1:{loopback.port}/x&#34;&gt;" in hostile_html
    # Every place the fixture planted them: the number of escaped copies is large, and they
    # reach the document title, the running header and the SVG chart labels as text.
    assert hostile_html.count("&lt;script&gt;") > 100
    assert re.search(r"<title>Evidence report: &lt;script&gt;", hostile_html)
    assert re.search(r'<span class="decision-id">&lt;script&gt;', hostile_html)
    assert re.search(r"<text [^>]*>&lt;script&gt;alert\(1\)", hostile_html)


def test_hostile_document_renders_to_pdf_without_any_fetch(
    hostile_html: str, loopback: Loopback
) -> None:
    pdf = render_pdf(hostile_html, attachments=[], created=fixture.CREATED)
    assert loopback.requests == []
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert "<script>alert(1)</script>" in " ".join(text.split()) or "alert(1)" in text
    passwd = Path("/etc/passwd")
    if passwd.is_file():
        first = passwd.read_text(encoding="utf-8", errors="replace").splitlines()[0]
        assert first not in text


@pytest.mark.parametrize(
    "markup",
    [
        '<img src="http://127.0.0.1:{port}/img">',
        '<link rel=stylesheet href="http://127.0.0.1:{port}/link.css">',
        "<style>@import url(http://127.0.0.1:{port}/import.css);</style>",
        '<p style="background: url(http://127.0.0.1:{port}/bg.png)">x</p>',
        '<link rel=attachment href="file:///etc/passwd">',
        '<img src="file:///etc/hostname">',
        '<svg><image href="http://127.0.0.1:{port}/svg.png" width="9" height="9"/></svg>',
    ],
)
def test_markup_that_escaped_the_template_still_cannot_fetch(
    markup: str, loopback: Loopback
) -> None:
    """Defence in depth: even raw hostile HTML given to render_pdf fetches nothing."""
    html = f"<html><body><p>report</p>{markup.format(port=loopback.port)}</body></html>"
    with pytest.raises(RenderError, match="never allowed") as caught:
        render_pdf(html, attachments=[], created=fixture.CREATED)
    assert "refused to fetch" in caught.value.message
    assert loopback.requests == []


def test_the_fetcher_refuses_file_and_http_when_called_directly(loopback: Loopback) -> None:
    fetcher = url_fetcher()
    for url in (
        "file:///etc/passwd",
        f"http://127.0.0.1:{loopback.port}/direct",
        f"https://127.0.0.1:{loopback.port}/direct",
    ):
        with pytest.raises(FetchRefused):
            fetcher.fetch(url)
        with pytest.raises(FetchRefused):
            fetcher(url)
    # WeasyPrint's own wrapper turns the refusal into a fatal error that stops the render.
    urls = load_weasyprint().urls
    with pytest.raises(urls.FatalURLFetchingError), urls.fetch(fetcher, "file:///etc/hostname"):
        pass
    assert loopback.requests == []
    # data: URLs (how the attachments travel) are served, with their media type.
    response = fetcher.fetch("data:application/json;base64,eyJhIjogMX0=")
    assert response.read() == b'{"a": 1}'
    assert response.content_type == "application/json"
