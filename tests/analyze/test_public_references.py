"""Public results and estimates cited beside a candidate (``evidence.references``): an
InferenceX row is measured elsewhere and its synthetic load a C1 warning; an aiconfigurator
estimate is simulated; neither sizes capacity; both enter the report and the claim ledger."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidencepack.pipeline import BuildOptions, CompileOptions, build, check

from .test_fit import BASELINE, _accelerators

INFERENCEX = "formats/inferencex/public"
PARETO = "formats/aiconfigurator/generated/agg/pareto.csv"


def test_public_points_are_shown_and_never_size(samples: Path, shared_data: Path) -> None:
    row = sorted((shared_data / INFERENCEX).glob("agg_*1k1k*.json"))[0]
    shutil.copy(row, samples / "ix.json")
    shutil.copy(shared_data / PARETO, samples / "pareto.csv")
    text = (samples / "pack.yaml").read_text(encoding="utf-8")
    anchor = "        - path: evidence/b200-trtllm/scores.jsonl\n"
    assert anchor in text
    # the scores entry of b200 kept its sha256 pin on the next line; the references follow it
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line == anchor)
    lines.insert(at + 2, "      references:\n        - path: ix.json\n        - path: pareto.csv\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    doc = check(samples / "pack.yaml", CompileOptions())
    assert _accelerators(doc) == BASELINE
    points = [r for r in doc.public_references if r.candidate == "b200-trtllm"]
    measured = [r for r in points if r.provenance == "measured_elsewhere"]
    simulated = [r for r in points if r.provenance == "simulated"]
    assert len(measured) == 1
    assert simulated
    raw = json.loads(row.read_text(encoding="utf-8"))
    (ix,) = measured
    assert ix.source_tool == "inferencex"
    assert ix.subject == "ix.json"
    gpus = raw.get("tp") or ix.accelerator_count
    assert ix.accelerator_count == gpus
    c1 = next(c for c in doc.checks if c.id == "C1" and c.candidate == "b200-trtllm")
    assert c1.status in ("WARN", "FAIL")
    # a fixed-length random-prompt row with forced output lengths is named as synthetic traffic
    assert "ix.json: inferencex ran fixed concurrency" in c1.reason
    assert "random prompts" in c1.reason
    assert "pareto.csv (" in c1.reason
    assert "aiconfigurator estimate (simulated)" in c1.reason
    kinds = {c.kind for c in doc.claims if c.id.startswith("reference.b200-trtllm.")}
    assert kinds == {"inherited", "simulated"}
    # the comparability matrix reads them against the envelope
    rows = [r for r in doc.comparability if r.kind == "reference"]
    assert {r.subject for r in rows} >= {"ix.json"}
    assert any(
        d.field == "model_name" for r in rows if r.subject == "ix.json" for d in r.differences
    )


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_public_points_reach_the_report(samples: Path, shared_data: Path, tmp_path: Path) -> None:
    lines = (samples / "pack.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    anchor = "        - path: evidence/b200-trtllm/scores.jsonl\n"
    at = next(i for i, line in enumerate(lines) if line == anchor)
    shutil.copy(sorted((shared_data / INFERENCEX).glob("agg_*b200*.json"))[0], samples / "ix.json")
    lines.insert(at + 2, "      references:\n        - path: ix.json\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    result = build(samples / "pack.yaml", tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    html = (result.out_dir / "report.html").read_text(encoding="utf-8")
    assert "Public results and estimates beside the candidates" in html
    assert "measured elsewhere" in html
    assert (result.out_dir / "inputs" / "ix.json").is_file()
    roles = {f.pack_path: f.role for f in result.decision.inputs}
    assert roles["inputs/ix.json"] == "references"
