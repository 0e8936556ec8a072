"""An MLPerf Endpoints curve cited under ``evidence.references``: each point measured elsewhere,
read by the checklist, never sizing; a Preview past its date at the decision's date is flagged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack.pipeline import BuildOptions, CompileOptions, build, check

from .test_fit import BASELINE, _accelerators

CORPUS = "mlperf/endpoints/submission-cli-1.5.3.0/test_submissions/valid_standardized"
ANCHOR = "        - path: evidence/b200-trtllm/scores.jsonl\n"


def _cite(samples: Path, shared_data: Path, *, preview_by: str | None = None) -> Path:
    target = samples / "endpoints"
    shutil.copytree(shared_data / CORPUS, target)
    if preview_by is not None:
        for desc in target.glob("results/*/*/r*/system_desc.json"):
            text = desc.read_text(encoding="utf-8")
            old = '"system_availability_status": "Available"'
            assert old in text
            new = (
                '"system_availability_status": "Preview", '
                f'"target_availability_date": "{preview_by}"'
            )
            desc.write_text(text.replace(old, new), encoding="utf-8")
    lines = (samples / "pack.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line == ANCHOR)
    lines.insert(at + 2, "      references:\n        - path: endpoints\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    return samples / "pack.yaml"


def test_an_endpoints_curve_is_read_as_points_measured_elsewhere(
    samples: Path, shared_data: Path
) -> None:
    doc = check(_cite(samples, shared_data), CompileOptions())
    assert _accelerators(doc) == BASELINE  # never sizes
    points = [r for r in doc.public_references if r.candidate == "b200-trtllm"]
    assert len(points) == 7
    assert {p.source_tool for p in points} == {"mlperf-endpoints"}
    assert {p.provenance for p in points} == {"measured_elsewhere"}
    r256 = next(p for p in points if p.subject.endswith("#r256"))
    assert r256.output_tokens_per_s_per_accelerator == 4000.0 / 8
    assert r256.load == "fixed concurrency, 256 in flight"
    assert r256.accelerator == "NVIDIA H100 SXM5 80GB"
    c1 = next(c for c in doc.checks if c.id == "C1" and c.candidate == "b200-trtllm")
    assert "mlperf-endpoints, fixed concurrency, 16 in flight, read beside the traffic" in c1.reason
    rows = [r for r in doc.comparability if r.kind == "reference" and "#r256" in r.subject]
    assert rows  # model, precision, stack and hardware read against the envelope


def test_a_preview_past_its_date_is_flagged_in_check(samples: Path, shared_data: Path) -> None:
    # the sample decides on 2026-11-30; the Preview promised availability by 2026-11-01
    doc = check(_cite(samples, shared_data, preview_by="2026-11-01"), CompileOptions())
    c1 = next(c for c in doc.checks if c.id == "C1" and c.candidate == "b200-trtllm")
    assert c1.status == "WARN"
    assert "MLPerf Endpoints publication-preview: Preview, available by 2026-11-01" in c1.reason
    assert "past its date by 29 day(s)" in c1.reason
    points = [r for r in doc.public_references if r.candidate == "b200-trtllm"]
    assert all(any("publication-preview" in w for w in p.warnings) for p in points)


def test_a_preview_within_its_date_is_not_flagged(samples: Path, shared_data: Path) -> None:
    doc = check(_cite(samples, shared_data, preview_by="2026-12-31"), CompileOptions())
    c1 = next(c for c in doc.checks if c.id == "C1" and c.candidate == "b200-trtllm")
    assert "publication-preview" not in c1.reason


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_the_report_draws_the_curve_beside_the_candidates_points(
    samples: Path, shared_data: Path, tmp_path: Path
) -> None:
    spec = _cite(samples, shared_data)
    result = build(spec, tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    html = (result.out_dir / "report.html").read_text(encoding="utf-8")
    assert "b200-trtllm: MLPerf Endpoints curve(s) beside its own measured points" in html
    name = "endpoints/acme_h100x8_001/llama3_1-8b"  # the submission folder is "endpoints"
    assert (
        f"{name}: measured elsewhere (step function; x = 1000 / TPOT p90 (MLPerf Endpoints v1.0))"
        in html
    )
    assert "b200-trtllm: its own measured points (x = 1000 / TPOT p99)" in html
    assert "output tokens/s per accelerator" in html
    r256 = next(r for r in result.decision.public_references if r.subject.endswith("#r256"))
    assert r256.per_user_tokens_per_s == 181.8182
    assert r256.per_user_definition == "1000 / TPOT p90 (MLPerf Endpoints v1.0)"
    roles = {f.pack_path: f.role for f in result.decision.inputs}
    assert (
        roles["inputs/endpoints/results/acme_h100x8_001/llama3_1-8b/r256/result_summary.json"]
        == "references"
    )


def test_a_curve_cited_under_mlperf_says_where_it_belongs(samples: Path, shared_data: Path) -> None:
    shutil.copytree(shared_data / CORPUS, samples / "endpoints")
    lines = (samples / "pack.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index("      mlperf:\n", next(i for i, x in enumerate(lines) if "b200-trtllm" in x))
    lines.insert(at + 1, "        - path: endpoints\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    doc = check(samples / "pack.yaml", CompileOptions())
    found = [c.reason for c in doc.checks if "holds MLPerf Endpoints curve(s)" in c.reason]
    assert found
    assert "cite the folder under evidence.references" in found[0]
