"""One record per candidate: decide() builds them, decision.json is made from them, the report
renders them, and a decision.json read back gives the same records."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from evidencepack.analyze.record import document_lists, records_of
from evidencepack.pipeline import Compiled, CompileOptions, compile_pack
from evidencepack.render.html import render_html
from evidencepack.store import Store

FOCUS = "pricing/focus/focus-1.0_sample_1000rows.csv"
DIGEST = "0" * 64


def _compile(spec: Path) -> Compiled:
    with Store() as store, tempfile.TemporaryDirectory() as tmp:
        return compile_pack(spec, CompileOptions(), store, Path(tmp))


def test_the_document_is_made_from_the_records(samples: Path) -> None:
    compiled = _compile(samples / "pack.yaml")
    doc, records = compiled.decision, compiled.records
    assert [r.id for r in records] == [c.id for c in doc.spec.candidates]
    lists = document_lists(records)
    for name, items in lists.items():
        got = getattr(doc, name)
        # the decision's own checks (DECISION, GOVERNANCE) follow every candidate's checks
        assert (got[: len(items)] if name == "checks" else got) == items, name
    assert [c.id for c in doc.checks[len(lists["checks"]) :]] == ["DECISION", "GOVERNANCE"]
    # every record holds only its own candidate's findings, checks and claims
    for r in records:
        assert {c.candidate for c in r.checks} == {r.id}
        assert {c.candidate for c in r.claims} <= {r.id}
        assert r.capacity is not None
        assert r.capacity.candidate == r.id
    # decision.json read back gives the records the analysis made
    assert records_of(doc) == records


def _cite_focus(samples: Path, shared_data: Path) -> None:
    shutil.copy(shared_data / FOCUS, samples / "bill.csv")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    old = "      per_accelerator_hour: 5.50\n      currency: USD\n"
    assert old in text
    focus = (
        "      focus: {path: bill.csv, provider: AWS, region: us-east-1, "
        "instance_type: g5.4xlarge, accelerators_per_instance: 1}\n      currency: USD\n"
    )
    text = text.replace(old, focus).replace("chosen: mi325x-vllm", "chosen: b200-trtllm")
    spec.write_text(text, encoding="utf-8")


def _price_row(html: str) -> str:
    row = re.search(r"<tr><th>Price and its source</th><td>(.*?)</td></tr>", html)
    assert row is not None
    return row.group(1)


def test_page_one_states_the_rate_read_from_a_price_file(samples: Path, shared_data: Path) -> None:
    """The chosen candidate's price cites a FOCUS export: page 1 gives the rate the cost was
    computed at and the export it came from, not the spec's empty rate and its own words."""
    _cite_focus(samples, shared_data)
    compiled = _compile(samples / "pack.yaml")
    record = next(r for r in compiled.records if r.id == "b200-trtllm")
    cost = record.cost
    assert record.price is not None
    assert cost is not None
    assert record.price_claim is not None
    assert record.price.per_accelerator_hour == pytest.approx(cost.price_per_accelerator_hour)
    assert record.price.source is not None
    assert "FOCUS" in record.price.source
    # the spec as written cites only the file
    written = compiled.decision.spec.candidate("b200-trtllm").price
    assert written.per_accelerator_hour is None
    assert written.source is not None
    assert written.source != record.price.source
    html = render_html(
        compiled.decision, evidence_digest=DIGEST, signer=None, records=compiled.records
    )
    row = _price_row(html)
    assert f"USD {cost.price_per_accelerator_hour:,.2f} per accelerator-hour" in row
    assert "source: " + record.price.source.split(",")[0] in row
    assert written.source not in row
