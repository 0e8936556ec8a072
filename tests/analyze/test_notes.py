"""Findings expected by design are notes, not warnings (issue 45, point 4): a load sweep's top
point LoadGen judged INVALID for latency above a valid point, an MLPerf result the spec cites by
its ``no-round/`` key, a lone load point. A note never counts as a warning (page 1, the
candidates table and the check table count WARN only) and is said under its check and in
``check``'s text and ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.pipeline import CompileOptions, check


def test_the_samples_expected_findings_are_notes(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    for cid, top, below in (
        ("h200-vllm", "qps_5.5", "qps_4.0"),
        ("mi325x-vllm", "qps_3.2", "qps_2.2"),
        ("b200-trtllm", "qps_4.8", "qps_3.5"),
    ):
        data = next(c for c in doc.checks if c.id == "PROV-DATA" and c.candidate == cid)
        assert data.status == "PASS"
        (note,) = data.notes
        assert f"runs/{top}" in note
        assert "LoadGen judged the run INVALID" in note
        assert f"(expected: the top of the load sweep, above evidence/{cid}/runs/{below})" in note
        mlperf = next(c for c in doc.checks if c.id == "PROV-MLPERF" and c.candidate == cid)
        assert mlperf.status == "PASS"
        (note,) = mlperf.notes
        assert note.startswith("no-round/closed/SampleVendor/")
        assert "no MLPerf round, as the spec's no-round key says" in note
        (finding,) = [f for f in doc.findings if f.candidate == cid]
        assert finding.severity == "NOTE"
    # what is left to look at: the references' looser limits, a stack, the billing bases
    warned = sorted((c.candidate or "", c.id) for c in doc.checks if c.status == "WARN")
    assert warned == [
        ("", "DECISION"),
        ("b200-trtllm", "C1"),
        ("b200-trtllm", "C5"),
        ("h200-vllm", "C1"),
        ("h200-vllm", "C3"),
        ("mi325x-vllm", "C1"),
    ]


def test_an_over_capacity_point_is_a_note_only_above_a_valid_one(samples: Path) -> None:
    """Cited alone, mi325x's INVALID top point is no longer the top of a sweep: a warning."""
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    for run in ("qps_1.4", "qps_1.8", "qps_2.0", "qps_2.2"):
        text = text.replace(f"        - path: evidence/mi325x-vllm/runs/{run}\n", "")
    spec.write_text(text, encoding="utf-8")
    doc = check(spec, CompileOptions())
    data = next(c for c in doc.checks if c.id == "PROV-DATA" and c.candidate == "mi325x-vllm")
    assert data.status == "WARN"
    assert "qps_3.2" in data.reason
    assert not data.notes


def test_a_lone_load_point_is_a_note(samples: Path) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    for run in ("qps_1.8", "qps_2.0", "qps_2.2", "qps_3.2"):
        text = text.replace(f"        - path: evidence/mi325x-vllm/runs/{run}\n", "")
    spec.write_text(text, encoding="utf-8")
    doc = check(spec, CompileOptions())
    slo = next(c for c in doc.checks if c.id == "SLO-MET" and c.candidate == "mi325x-vllm")
    assert slo.status == "PASS"
    assert slo.notes == ("one load point only: X* is a single measurement, lower confidence",)


def test_check_says_the_notes_and_counts_no_warning_for_them(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = str(samples / "pack.yaml")
    assert main(["check", spec]) == 0
    out = capsys.readouterr().out
    assert "note PROV-DATA [mi325x-vllm]: evidence/mi325x-vllm/runs/qps_3.2" in out
    assert "note PROV-MLPERF [b200-trtllm]: no-round/closed/SampleVendor/" in out
    assert "WARN PROV-DATA" not in out
    assert main(["check", spec, "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)
    noted = [c for c in raw["checks"] if c["notes"]]
    assert {c["status"] for c in noted} == {"PASS"}
    assert len(noted) == 6


def test_declared_only_identity_is_a_note_where_the_spec_allows_it(samples: Path) -> None:
    """_with_basis on the sample's checks: every fit declared-only marks the identity checks
    `declared` with a note; with fit.require_observed_identity on, the chosen candidate's
    becomes a FAIL, no note."""
    from evidencepack.analyze.candidate import IDENTITY_CHECKS, _with_basis
    from evidencepack.analyze.judgements import EvidenceFit
    from evidencepack.spec.load import load_spec

    loaded = load_spec(samples / "pack.yaml")
    spec = loaded.spec
    doc = check(samples / "pack.yaml", CompileOptions())
    cid = spec.chosen
    assert cid is not None
    candidate = next(c for c in spec.candidates if c.id == cid)
    checks = [
        c.model_copy(update={"basis": None, "notes": ()})
        for c in doc.checks
        if c.candidate == cid and c.id in IDENTITY_CHECKS and c.status != "FAIL"
    ]
    fits = [EvidenceFit(subject="r#0", kind="run", candidate=cid, fits=True, basis="declared")]
    fits.append(
        EvidenceFit(subject="s#0", kind="scores", candidate=cid, fits=True, basis="declared")
    )
    marked = _with_basis(spec, candidate, checks, fits)
    assert {c.basis for c in marked} == {"declared"}
    for c in marked:
        assert c.status == "PASS"
        (note,) = c.notes
        assert note.startswith("passes on declared identity only")
    strict = spec.model_copy(
        update={"fit": spec.fit.model_copy(update={"require_observed_identity": True})}
    )
    for c in _with_basis(strict, candidate, checks, fits):
        assert c.status == "FAIL"
        assert not c.notes
