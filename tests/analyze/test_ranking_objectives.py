"""Rankings are honest for every objective: highest_quality ranks only on a difference the
intervals support, and how close the call is speaks the objective's unit (issue 37, point 5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidencepack.analyze.ranking import Standing, closeness, ranked
from evidencepack.pipeline import BuildOptions, CompileOptions, build, check

from ..test_pipeline import _edit

NEGATIVE_PERCENT = re.compile(r"-\d+% more")


def _standing(
    cid: str, judged: float, interval: tuple[float, float], cost: float, acc: int = 8
) -> Standing:
    return Standing(cid, True, acc, cost, None, judged, interval)


def test_overlapping_intervals_are_a_tie_broken_by_cost() -> None:
    h200 = _standing("h200", 0.850, (0.850, 0.913), 40880)
    b200 = _standing("b200", 0.845, (0.845, 0.908), 32120)
    mi325x = _standing("mi325x", 0.839, (0.839, 0.904), 19053)
    assert ranked("highest_quality", True, [h200, b200, mi325x]) == ["mi325x", "b200", "h200"]


def test_a_lead_the_intervals_support_ranks_first() -> None:
    best = _standing("best", 0.93, (0.93, 0.97), 40000)
    cheap = _standing("cheap", 0.80, (0.80, 0.88), 10000)
    assert ranked("highest_quality", True, [cheap, best]) == ["best", "cheap"]
    close = closeness("highest_quality", best, cheap, ("pass_rate", True, 0.95))
    assert not close.tied
    assert close.margin is None
    assert close.gap is not None
    assert round(close.gap, 1) == 13.0
    assert close.unit == "quality points"
    assert "trails best on pass_rate by 13.0 quality points" in close.text


def test_lower_is_better_ranks_the_lowest_when_supported() -> None:
    low = _standing("low", 0.05, (0.03, 0.07), 50000)
    high = _standing("high", 0.20, (0.15, 0.25), 10000)
    assert ranked("highest_quality", False, [high, low]) == ["low", "high"]


def test_equal_accelerators_are_a_tie_broken_by_cost() -> None:
    a = _standing("a", 0.9, (0.85, 0.95), 10000, acc=8)
    b = _standing("b", 0.9, (0.85, 0.95), 12000, acc=8)
    close = closeness("fewest_accelerators", a, b, ("pass_rate", True, 0.95))
    assert close.tied
    assert close.margin is not None
    assert round(close.margin, 2) == 0.2
    assert "needs as many accelerators as a (8): the tie is broken by cost" in close.text


def _objective(samples: Path, objective: str) -> Path:
    spec = samples / "pack.yaml"
    _edit(spec, "objective: lowest_cost_at_slo", f"objective: {objective}")
    return spec


def test_highest_quality_on_the_sample_is_a_tie_said_in_words(samples: Path) -> None:
    spec = _objective(samples, "highest_quality")
    decision = check(spec, CompileOptions())
    # h200 (354/400), b200 (352/400), mi325x (350/400): every interval overlaps the others
    assert decision.recommendation == "mi325x-vllm"
    robust = decision.robustness
    assert robust is not None
    assert robust.runner_up == "b200-trtllm"
    assert robust.tied
    assert robust.gap_unit == "quality points"
    assert robust.margin is not None
    assert robust.margin > 0
    assert robust.close is not None
    assert "is tied with mi325x-vllm on pass_rate" in robust.close
    assert "the tie is broken by cost (b200-trtllm costs 69% more per month)" in robust.close
    assert not NEGATIVE_PERCENT.search(robust.sentence)


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_page_one_speaks_the_objectives_unit(samples: Path, tmp_path: Path) -> None:
    spec = _objective(samples, "fewest_accelerators")
    out = tmp_path / "pack"
    build(spec, out, BuildOptions(compile=CompileOptions()))
    decision = check(spec, CompileOptions())
    robust = decision.robustness
    assert robust is not None
    assert decision.recommendation == "b200-trtllm"
    assert robust.margin is None
    assert robust.gap == 3
    assert robust.gap_unit == "accelerators"
    report = (out / "report.html").read_text()
    page_one = report[: report.index("What would flip it")]
    assert not NEGATIVE_PERCENT.search(report)
    assert "the runner-up mi325x-vllm needs 3 more accelerators than b200-trtllm (9 against 6)" in (
        page_one
    )


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_highest_quality_report_has_no_negative_cost_percentage(
    samples: Path, tmp_path: Path
) -> None:
    spec = _objective(samples, "highest_quality")
    out = tmp_path / "pack"
    build(spec, out, BuildOptions(compile=CompileOptions()))
    report = (out / "report.html").read_text()
    assert not NEGATIVE_PERCENT.search(report)
    page_one = report[: report.index("What would flip it")]
    assert "a difference their 95% intervals do not support" in page_one
