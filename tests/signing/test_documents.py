"""The pieces `verify` names differences with: the first differing JSON field, and the JSON
documents a report PDF carries (read back from a PDF WeasyPrint rendered)."""

from __future__ import annotations

import datetime as dt
import json
import zlib

import pytest

from evidencepack.render.pdf import Attachment, render_pdf
from evidencepack.signing import pdf_embedded
from evidencepack.signing.json_diff import ABSENT, first_difference, show


def test_the_headline_fields_are_named_before_document_order() -> None:
    old = {
        "apiVersion": "v1",
        "candidates": [{"cost": 1}],
        "recommendation": "a",
        "verdict": "PASS",
    }
    new = {
        "apiVersion": "v1",
        "candidates": [{"cost": 2}],
        "recommendation": "b",
        "verdict": "PASS",
    }
    found = first_difference(old, new)
    assert found is not None
    assert (found.path, found.left, found.right) == ("recommendation", "a", "b")
    new["recommendation"] = "a"
    found = first_difference(old, new)
    assert found is not None
    assert (found.path, found.left, found.right) == ("candidates[0].cost", 1, 2)
    assert first_difference(old, json.loads(json.dumps(old))) is None


def test_absent_fields_lists_and_json_types() -> None:
    found = first_difference({"a": [1, 2]}, {"a": [1]})
    assert found is not None
    assert (found.path, found.right) == ("a[1]", ABSENT)
    assert show(found.right) == "absent"
    found = first_difference({"ok": True}, {"ok": 1})  # true and 1 differ in JSON
    assert found is not None
    assert found.path == "ok"
    found = first_difference({"verdict": "PASS"}, {"verdict": "PASS WITH WAIVERS"})
    assert found is not None
    assert show(found.right) == "PASS WITH WAIVERS"
    assert show("x" * 500).endswith("...")


def test_the_json_documents_a_rendered_pdf_carries() -> None:
    decision = json.dumps({"apiVersion": "evidencepack/decision/v1", "x": "y" * 5000}).encode()
    manifest = json.dumps({"apiVersion": "evidencepack/manifest/v1", "n": 1}).encode()
    pdf = render_pdf(
        "<!doctype html><html><head><title>t</title></head><body><p>report</p></body></html>",
        created=dt.datetime(2026, 11, 30, tzinfo=dt.UTC),
        attachments=[
            Attachment(name="manifest.json", data=manifest, description="m"),
            Attachment(name="decision.json", data=decision, description="d"),
            Attachment(name="notes.txt", data=b"not json", description="n"),
        ],
    )
    assert pdf_embedded.embedded_documents(pdf) == {
        "evidencepack/decision/v1": decision,
        "evidencepack/manifest/v1": manifest,
    }


def test_an_attachment_that_inflates_past_the_limit_is_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = json.dumps({"apiVersion": "evidencepack/decision/v1", "pad": " " * 10_000})
    data = zlib.compress(document.encode())
    pdf = (
        b"%PDF-1.7\n7 0 obj\n<</Type /EmbeddedFile /Filter /FlateDecode /Length "
        + str(len(data)).encode()
        + b">>\nstream\n"
        + data
        + b"\nendstream\nendobj\n"
    )
    assert list(pdf_embedded.embedded_documents(pdf)) == ["evidencepack/decision/v1"]
    monkeypatch.setattr(pdf_embedded, "MAX_EMBEDDED_BYTES", 1000)
    assert pdf_embedded.embedded_documents(pdf) == {}
    # An indirect length is not followed (nor guessed).
    indirect = pdf.replace(b"/Length " + str(len(data)).encode(), b"/Length 9 0 R")
    monkeypatch.undo()
    assert pdf_embedded.embedded_documents(indirect) == {}
