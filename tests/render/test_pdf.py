"""The PDF: PDF/A-3b, A4, bookmarks, running headers, embedded evidence, clear errors."""

from __future__ import annotations

import builtins
import datetime as dt
import io
import json
import re
from typing import Any

import pypdf
import pytest

from evidencepack.errors import EXIT_COULD_NOT_RUN, RenderError
from evidencepack.render.html import render_html
from evidencepack.render.pdf import SYSTEM_PACKAGES, Attachment, render_pdf

from . import fixture

# The renderer itself (and its refusals): every PDF here is rendered (tests/pdf_cache.py).
pytestmark = pytest.mark.real_pdf

A4_POINTS = (595.28, 841.89)


def attachments() -> list[Attachment]:
    doc = fixture.decision()
    decision_json = doc.model_dump_json(by_alias=True, indent=2).encode() + b"\n"
    manifest = json.dumps(
        {"files": [{"path": i.pack_path, "sha256": i.sha256} for i in doc.inputs]},
        indent=2,
        sort_keys=True,
    ).encode()
    return [
        Attachment("manifest.json", manifest, "the pack's evidence manifest"),
        Attachment("decision.json", decision_json, "the analysis result"),
    ]


@pytest.fixture(scope="module")
def pdf_bytes() -> bytes:
    html = render_html(
        fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=fixture.SIGNER
    )
    return render_pdf(html, attachments=attachments(), created=fixture.CREATED)


@pytest.fixture(scope="module")
def reader(pdf_bytes: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(pdf_bytes))


def test_embedded_attachments_equal_the_input_bytes(reader: pypdf.PdfReader) -> None:
    expected = {a.name: a.data for a in attachments()}
    assert dict(reader.attachments.items()) == {name: [data] for name, data in expected.items()}
    root: Any = reader.trailer["/Root"]
    # Each attachment once in /AF (WeasyPrint 70 lists them twice), related as Data, JSON.
    af = [ref.get_object() for ref in root["/AF"]]
    assert sorted(spec["/UF"] for spec in af) == ["decision.json", "manifest.json"]
    for spec in af:
        assert spec["/AFRelationship"] == "/Data"
        stream = spec["/EF"]["/F"].get_object()
        assert stream["/Subtype"] == "/application/json"
        assert stream["/Params"]["/CreationDate"] == "D:20261130000000Z"
        assert stream["/Params"]["/ModDate"] == "D:20261130000000Z"


def test_is_pdfa_3b_a4_with_pinned_dates(reader: pypdf.PdfReader, pdf_bytes: bytes) -> None:
    root: Any = reader.trailer["/Root"]
    xmp = root["/Metadata"].get_object().get_data()
    assert b'pdfaid:part="3"' in xmp
    assert b'pdfaid:conformance="B"' in xmp
    assert b"<xmp:CreateDate>2026-11-30T00:00:00Z</xmp:CreateDate>" in xmp
    assert root["/OutputIntents"][0]["/S"] == "/GTS_PDFA1"
    assert reader.metadata is not None
    assert str(reader.metadata["/CreationDate"]) == "D:20261130000000Z"
    assert pdf_bytes.startswith(b"%PDF-1.7")
    for page in reader.pages:
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        assert (width, height) == pytest.approx(A4_POINTS, abs=0.5)


def test_realistic_document_stays_under_20_pages(reader: pypdf.PdfReader) -> None:
    assert 8 <= len(reader.pages) < 20


def test_bookmarks_toc_and_running_headers(reader: pypdf.PdfReader) -> None:
    top = [item for item in reader.outline if not isinstance(item, list)]
    titles = [item.title for item in top]
    assert titles[:3] == ["Decision", "Contents", "The five layers of evidence"]
    assert "Capacity at the SLO" in titles
    assert titles[-2:] == ["Appendix B: inputs", "How to verify this pack"]
    nested = [t for item in reader.outline if isinstance(item, list) for t in item]
    assert "h200-vllm" in [getattr(t, "title", "").strip() for t in nested]
    # The table of contents gives the page each bookmark lands on.
    toc = reader.pages[1].extract_text()
    pages = len(reader.pages)
    for item in top[2:]:
        index = reader.get_destination_page_number(item)
        title = str(item.title)
        assert index is not None
        assert re.search(re.escape(title) + r"[ .]*" + str(index + 1) + r"\b", toc), title
    third = reader.pages[2].extract_text()
    assert "Evidence report" in third
    assert "contract-summariser-2026q4" in third
    assert f"page 3 of {pages}" in third
    assert f"pack sha256:{fixture.EVIDENCE_DIGEST}" in third


def test_naive_creation_time_is_refused() -> None:
    with pytest.raises(RenderError, match="no time zone"):
        render_pdf("<p>x</p>", attachments=[], created=dt.datetime(2026, 11, 30))


def test_duplicate_attachment_names_are_refused() -> None:
    twice = [Attachment("a.json", b"{}", "one"), Attachment("a.json", b"[]", "two")]
    with pytest.raises(RenderError, match="unique"):
        render_pdf("<p>x</p>", attachments=twice, created=fixture.CREATED)


def test_missing_pango_is_a_clear_exit_3(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def without_pango(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "weasyprint" or name.startswith("weasyprint."):
            raise OSError(
                "cannot load library 'libpango-1.0-0': libpango-1.0-0: cannot open shared "
                "object file: No such file or directory"
            )
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_pango)
    with pytest.raises(RenderError) as caught:
        render_pdf("<p>x</p>", attachments=[], created=fixture.CREATED)
    assert caught.value.exit_code == EXIT_COULD_NOT_RUN == 3
    for package in SYSTEM_PACKAGES:
        assert package in caught.value.message
    assert "libpango-1.0-0: cannot open shared object file" in caught.value.message


def test_missing_harfbuzz_subset_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from weasyprint.text import ffi

    monkeypatch.setattr(ffi, "harfbuzz_subset", None)
    with pytest.raises(RenderError, match="HarfBuzz-Subset") as caught:
        render_pdf("<p>x</p>", attachments=[], created=fixture.CREATED)
    assert "libharfbuzz-subset0" in caught.value.message
    assert caught.value.exit_code == 3


def test_page_one_of_the_pdf_says_what_the_html_says(reader: pypdf.PdfReader) -> None:
    first = " ".join(reader.pages[0].extract_text().split())
    doc = fixture.decision()
    assert "Decision" in first
    assert "mi325x-vllm" in first
    assert "agrees with the recommendation" in first
    assert fixture.EVIDENCE_DIGEST in first.replace(" ", "")
    assert fixture.SIGNER.line in first
    for verdict in doc.candidates:
        assert verdict.id in first
    for figure in ("USD 1.57", "USD 1.30", "USD 1.01", "83.5% [79.5%, 86.8%]", "2 failed"):
        assert figure in first
    # The page the signer line points at is the last one, where the verify box is.
    assert f"How to verify this pack, page {len(reader.pages)}" in first
