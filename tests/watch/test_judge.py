"""The watch's judgements, without a server: figures against limits and the pack, dated things,
today's spec against the pack's."""

from __future__ import annotations

import datetime as dt
import json

from evidencepack.analyze.models import DecisionDocument, LoadPoint
from evidencepack.readers.models import LatencyStats, ServingRun
from evidencepack.spec.models import PackSpec
from evidencepack.watch.dated import dated_findings, spec_changes
from evidencepack.watch.judge import figure_findings, judge_figures, status_of

from ..conftest import REPO_ROOT

DECISION = DecisionDocument.model_validate_json(
    (REPO_ROOT / "tests" / "golden" / "sample-decision.json").read_bytes()
)
SPEC = DECISION.spec
CHOSEN = "mi325x-vllm"


def _point() -> LoadPoint:
    capacity = next(c for c in DECISION.capacity if c.candidate == CHOSEN)
    return next(p for p in capacity.load_points if p.run == capacity.operating_point_run)


def _stats(metric: str, p99: float | None) -> LatencyStats | None:
    if p99 is None:
        return None
    return LatencyStats.model_validate(
        {
            "metric": metric,
            "definition": "ttft"
            if metric == "ttft"
            else "tpot_excl_first"
            if metric == "tpot"
            else "e2e",
            "weighting": "request",
            "source": "per_request",
            "p99_ms": p99,
        }
    )


def _run(ttft: float | None, tpot: float | None, e2e: float | None) -> ServingRun:
    return ServingRun.model_validate(
        {
            "run_id": "r#0",
            "index": 0,
            "format_id": "evidencepack-measure-requests",
            "tool": "evidencepack-measure",
            "ttft": _stats("ttft", ttft),
            "tpot": _stats("tpot", tpot),
            "e2e": _stats("e2e", e2e),
        }
    ).model_copy()


def test_figures_against_limits_and_the_pack() -> None:
    point = _point()
    assert point.ttft_p99_ms is not None
    assert point.tpot_p99_ms is not None
    same = _run(point.ttft_p99_ms, point.tpot_p99_ms, point.e2e_p99_ms)
    figures = judge_figures(SPEC.slo, point, same, 0.0)
    assert [f.status for f in figures] == ["met", "met", "met", "met"]
    assert status_of(figure_findings(figures)) == "holds"

    # 30% worse but within every limit: degraded, with the figures in words.
    worse = _run(point.ttft_p99_ms * 1.3, point.tpot_p99_ms * 1.3, 1000.0)
    figures = judge_figures(SPEC.slo, point, worse, 0.0)
    assert [f.status for f in figures[:2]] == ["met, margin smaller"] * 2
    findings = figure_findings(figures)
    assert status_of(findings) == "degraded"
    assert findings[0].detail.startswith(
        f"TTFT p99 {point.ttft_p99_ms * 1.3:,.1f} ms against {point.ttft_p99_ms:,.1f} ms in the "
        "pack (+30%), limit 2,000.0 ms"
    )

    # Over a limit at X*: broken. A limit with no measured figure is never met.
    broken = _run(2500.0, point.tpot_p99_ms, None)
    figures = judge_figures(SPEC.slo, point, broken, 0.02)
    by_metric = {f.metric: f.status for f in figures}
    assert by_metric == {
        "ttft_p99_ms": "missed",
        "tpot_p99_ms": "met",
        "e2e_p99_ms": "not measured",
        "error_rate": "missed",
    }
    assert status_of(figure_findings(figures)) == "broken"


def test_dated_things_at_the_watch_date() -> None:
    assert dated_findings(SPEC, DECISION, CHOSEN, dt.date(2026, 12, 4)) == []
    later = dated_findings(SPEC, DECISION, CHOSEN, dt.date(2027, 3, 1))
    prices = {(f.candidate, f.effect) for f in later if f.kind == "price"}
    assert prices == {(CHOSEN, "degraded"), ("b200-trtllm", "note")}
    # The sample's approval of 2026-11-30, a year and more later.
    (approval,) = [f for f in dated_findings(SPEC, DECISION, CHOSEN, dt.date(2027, 12, 1))
                   if f.kind == "approval"]  # fmt: skip
    assert approval.effect == "degraded"
    assert "366 days old on 2027-12-01, over 365" in approval.detail


def test_an_expired_waiver_the_decision_used_breaks_it() -> None:
    data = json.loads(DECISION.model_dump_json(by_alias=True))
    data["spec"]["waivers"] = [
        {"check": "C1", "candidate": CHOSEN, "reason": "accepted", "approver": "A. Auditor",
         "expires": "2027-01-31"}
    ]  # fmt: skip
    data["waivers_applied"] = [
        {"check": "C1", "candidate": CHOSEN, "reason": "accepted", "approver": "A. Auditor",
         "expires": "2027-01-31"}
    ]  # fmt: skip
    decision = DecisionDocument.model_validate(data)
    (waiver,) = dated_findings(decision.spec, decision, CHOSEN, dt.date(2027, 2, 1))
    assert waiver.effect == "broken"
    assert "expired on 2027-01-31: the failure it waived stands again" in waiver.detail
    # Another candidate's expired waiver is only a note for the watched one.
    (other,) = dated_findings(decision.spec, decision, "h200-vllm", dt.date(2027, 2, 1))
    assert other.effect == "note"


def test_todays_spec_against_the_packs() -> None:
    def with_peak(peak: float, ttft: float = 2000.0) -> PackSpec:
        data = json.loads(SPEC.model_dump_json(by_alias=True))
        data["traffic"]["peak_requests_per_s"] = peak
        data["slo"]["ttft_p99_ms"] = ttft
        return PackSpec.model_validate(data)

    assert spec_changes(SPEC, with_peak(14.0)) == []
    (within,) = spec_changes(SPEC, with_peak(16.0))
    assert within.effect == "degraded"
    (past,) = spec_changes(SPEC, with_peak(18.0))  # past 14 x 1.25 = 17.5
    assert past.effect == "broken"
    assert "grew from 14 to 18 requests/s, past the 17.5 the decision sized for" in past.detail
    (tighter,) = spec_changes(SPEC, with_peak(14.0, ttft=1500.0))
    assert tighter.kind == "slo"
    assert "ttft_p99_ms tightened from 2000.0 to 1500.0" in tighter.detail
