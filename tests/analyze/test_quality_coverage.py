"""A score set covers the dataset it claims, repeats are one item, a score keeps its metric's
range (issue 37, points 1-3): each case on a copy of the sample."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evidencepack.analyze.coverage import Scored, base_of, cover
from evidencepack.analyze.models import DecisionDocument
from evidencepack.analyze.stats import wilson_interval
from evidencepack.errors import SpecError
from evidencepack.pipeline import CompileOptions, check
from evidencepack.spec.load import load_spec
from evidencepack.spec.metrics import ScoreRange, metric_range

from ..conftest import SAMPLE_SPEC
from ..test_pipeline import _edit

MI = "mi325x-vllm"
MI_SCORES = "evidence/mi325x-vllm/scores.jsonl"

Line = dict[str, Any]


def _rewrite(samples: Path, edit: Callable[[list[Line]], list[Line]]) -> Path:
    """mi325x-vllm's score file rewritten by ``edit`` (over its item lines), its pin dropped."""
    path = samples / MI_SCORES
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    header, items = lines[0], lines[1:]
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *edit(items)]))
    spec = samples / "pack.yaml"
    text = spec.read_text()
    pin = f"- path: {MI_SCORES}\n          sha256: "
    start = text.index(pin)
    end = text.index("\n", start + len(pin))
    spec.write_text(text[:start] + f"- path: {MI_SCORES}" + text[end:])
    return spec


def _bar(spec: Path, threshold: float) -> None:
    _edit(spec, "threshold: 0.80", f"threshold: {threshold}")


def _result(decision: DecisionDocument, check_id: str, candidate: str = MI) -> tuple[str, str]:
    found = next(c for c in decision.checks if c.id == check_id and c.candidate == candidate)
    return found.status, found.reason


def _quality(decision: DecisionDocument, candidate: str = MI):  # type: ignore[no-untyped-def]
    return next(q for q in decision.quality if q.candidate == candidate)


# -- 1. coverage ---------------------------------------------------------------------------------


def test_at_bar_086_every_full_score_set_fails(samples: Path) -> None:
    spec = samples / "pack.yaml"
    _bar(spec, 0.86)
    decision = check(spec, CompileOptions())
    assert decision.recommendation is None
    assert all(not q.meets_bar for q in decision.quality)
    assert all(q.coverage == "400 of 400 items scored" for q in decision.quality)


def test_deleting_the_failing_items_counts_them_as_failed(samples: Path) -> None:
    spec = _rewrite(samples, lambda items: [x for x in items if x["score"] == 1])
    _bar(spec, 0.86)
    decision = check(spec, CompileOptions())
    quality = _quality(decision)
    assert quality.items_scored == 350
    assert quality.dataset_items == 400
    assert quality.missing_counted_as_failed == 50
    assert quality.n_items == 400
    assert quality.estimate == pytest.approx(350 / 400)
    assert quality.coverage == "350 of 400 items scored; 50 missing counted as failed"
    assert not quality.meets_bar
    status, reason = _result(decision, "QUALITY")
    assert status == "FAIL"
    assert "350 of 400 items scored; 50 missing counted as failed" in reason
    assert decision.recommendation is None  # every full set fails 0.86 too
    assert decision.verdict == "FAIL"


def test_missing_items_by_size_alone_when_no_dataset_file(samples: Path) -> None:
    spec = _rewrite(samples, lambda items: [x for x in items if x["score"] == 1])
    _bar(spec, 0.86)
    _edit(spec, "  path: evidence/dataset/contracts-eval.jsonl\n", "")
    quality = _quality(check(spec, CompileOptions()))
    assert quality.coverage == "350 of 400 items scored; 50 missing counted as failed"
    assert "matched by dataset.size_items" not in quality.reason  # said only when refused
    assert not quality.meets_bar


def test_missing_items_not_fit_refuses_the_set(samples: Path) -> None:
    spec = _rewrite(samples, lambda items: [x for x in items if x["score"] == 1])
    _edit(spec, "  metric: pass_rate\n", "  metric: pass_rate\n  missing_items: not_fit\n")
    decision = check(spec, CompileOptions())
    fit = next(f for f in decision.fit if f.candidate == MI and f.kind == "scores")
    assert not fit.fits
    assert (
        "350 of 400 items scored, 50 missing (matched by the item ids of "
        "evidence/dataset/contracts-eval.jsonl; scoring.missing_items: not_fit)" in fit.reasons
    )
    status, reason = _result(decision, "FIT")
    assert status == "FAIL"
    assert "scoring.missing_items: not_fit" in reason
    assert _quality(decision).estimate is None
    assert _result(decision, "QUALITY")[0] == "FAIL"
    assert decision.recommendation != MI


def test_unknown_item_ids_fail_prov_data(samples: Path) -> None:
    def rename(items: list[Line]) -> list[Line]:
        return [{**x, "item_id": f"zz-{i + 1:04d}"} for i, x in enumerate(items)]

    decision = check(_rewrite(samples, rename), CompileOptions())
    status, reason = _result(decision, "PROV-DATA")
    assert status == "FAIL"
    assert MI_SCORES in reason
    assert "400 scored item(s) are not in the dataset" in reason
    assert "'zz-0001'" in reason
    assert "evidence/dataset/contracts-eval.jsonl" in reason
    quality = _quality(decision)
    assert not quality.meets_bar
    assert "none of its items is in the dataset" in quality.reason
    assert decision.verdict == "FAIL"
    finding = next(f for f in decision.findings if f.kind == "unknown-item")
    assert finding.candidate == MI
    assert finding.evidence[0].pack_path == f"inputs/{MI_SCORES}"


def test_a_few_unknown_ids_are_left_out_and_named(samples: Path) -> None:
    def rename(items: list[Line]) -> list[Line]:
        return [{**x, "item_id": "zz-0001"} if i == 0 else x for i, x in enumerate(items)]

    decision = check(_rewrite(samples, rename), CompileOptions())
    assert _result(decision, "PROV-DATA")[0] == "FAIL"
    quality = _quality(decision)
    assert quality.coverage == "399 of 400 items scored; 1 missing counted as failed"
    assert "1 scored item(s) not in the dataset left out (PROV-DATA): 'zz-0001'" in quality.reason


def test_more_items_than_the_dataset_holds_without_its_file(samples: Path) -> None:
    def more(items: list[Line]) -> list[Line]:
        return items + [{**items[0], "item_id": "zz-0001"}]

    spec = _rewrite(samples, more)
    _edit(spec, "  path: evidence/dataset/contracts-eval.jsonl\n", "")
    decision = check(spec, CompileOptions())
    status, reason = _result(decision, "PROV-DATA")
    assert status == "FAIL"
    assert "401 items scored, but the dataset contracts-eval (sample) holds 400" in reason
    assert _quality(decision).estimate is None


def test_a_dataset_file_without_ids_is_matched_by_size_and_said(samples: Path) -> None:
    spec = _rewrite(samples, lambda items: [x for x in items if x["score"] == 1])
    dataset = samples / "evidence" / "dataset" / "contracts-eval.jsonl"
    lines = [json.loads(line) for line in dataset.read_text().splitlines()]
    dataset.write_text("".join(json.dumps({"prompt": x["prompt"]}) + "\n" for x in lines))
    _edit(spec, "  digest: 2c7321e5eca1c320682ea459839dd53dfd1487c9c057f0030b87c30230162831\n", "")
    quality = _quality(check(spec, CompileOptions()))
    assert quality.coverage == "350 of 400 items scored; 50 missing counted as failed"
    assert "the items name no id" in quality.reason
    assert "items matched by dataset.size_items alone" in quality.reason


# -- 2. repeats ----------------------------------------------------------------------------------


def test_repeats_are_one_item_and_never_narrow_the_interval(samples: Path) -> None:
    def four(items: list[Line]) -> list[Line]:
        return [{**x, "item_id": f"{x['item_id']}#r{r}"} for x in items for r in range(1, 5)]

    spec = _rewrite(samples, four)
    _bar(spec, 0.85)  # 350/400 misses it (lower bound 0.839); 1400/1600 would clear it (0.858)
    assert wilson_interval(1400, 1600, 0.95)[0] > 0.85
    decision = check(spec, CompileOptions())
    quality = _quality(decision)
    assert quality.n_items == 400
    assert quality.scored_rows == 1600
    assert (quality.ci_low, quality.ci_high) == wilson_interval(350, 400, 0.95)
    assert not quality.meets_bar
    assert (
        quality.coverage
        == "400 of 400 items scored (1600 scores: 400 items repeated, each its mean)"
    )
    assert _result(decision, "QUALITY")[0] == "FAIL"


def test_disagreeing_repeats_are_the_item_mean_over_items() -> None:
    spec = load_spec(SAMPLE_SPEC).spec
    rows = [Scored(f"q{i}#epoch{e}", float((i + e) % 2), "s") for i in range(40) for e in (1, 2)]
    coverage = cover(rows, spec, None)
    assert coverage.values == (0.5,) * 40
    assert coverage.rows == 80
    assert coverage.repeated == 40
    assert coverage.scored == 40


def test_an_id_the_dataset_holds_is_never_split() -> None:
    assert base_of("q#1", frozenset({"q#1"})) == "q#1"
    assert base_of("q#1", None) == "q"
    assert base_of("ce-0001#r3", frozenset({"ce-0001"})) == "ce-0001"
    assert base_of("ce-0001#seed7", None) == "ce-0001"
    assert base_of("ce-0001", None) == "ce-0001"


# -- 3. range and direction ----------------------------------------------------------------------


def test_a_rate_written_0_to_100_fails_with_file_and_item(samples: Path) -> None:
    def percent(items: list[Line]) -> list[Line]:
        return [{**x, "score": 100 if i % 10 < 4 else 0} for i, x in enumerate(items)]

    decision = check(_rewrite(samples, percent), CompileOptions())
    status, reason = _result(decision, "PROV-DATA")
    assert status == "FAIL"
    assert MI_SCORES in reason
    assert "outside pass_rate's range 0 to 1" in reason
    assert "item 'ce-0001' scored 100" in reason
    quality = _quality(decision)
    assert quality.estimate is None
    assert "never rescaled" in quality.reason
    assert decision.recommendation != MI


def test_the_spec_states_a_range_and_the_bar_on_its_scale(samples: Path) -> None:
    def percent(items: list[Line]) -> list[Line]:
        return [{**x, "score": x["score"] * 100} for x in items]

    spec = _rewrite(samples, percent)
    _edit(
        spec,
        "  direction: higher_is_better\n",
        "  direction: higher_is_better\n  range: {min: 0, max: 100}\n",
    )
    _edit(spec, "threshold: 0.80", "threshold: 80.0")
    decision = check(spec, CompileOptions())
    assert _result(decision, "PROV-DATA")[0] != "FAIL"
    assert _quality(decision).estimate == pytest.approx(87.5)


def test_a_bar_outside_the_metrics_range_is_a_spec_error(samples: Path) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, "threshold: 0.80", "threshold: 80.0")
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    (problem,) = info.value.problems
    assert "scoring.bar.threshold" in problem
    assert "80 is outside pass_rate's range 0 to 1" in problem


def test_a_negative_count_fails(samples: Path) -> None:
    def negative(items: list[Line]) -> list[Line]:
        return [{**x, "score": -1.0 if i == 3 else float(i % 3)} for i, x in enumerate(items)]

    spec = _rewrite(samples, negative)
    path = samples / MI_SCORES
    header = '"metric": "pass_rate", "direction": "higher_is_better"'
    assert header in path.read_text()
    path.write_text(
        path.read_text().replace(
            header, '"metric": "error_count", "direction": "lower_is_better"', 1
        )
    )
    _edit(
        spec,
        "metric: pass_rate\n  direction: higher_is_better",
        "metric: error_count\n  direction: lower_is_better",
    )
    _edit(spec, "threshold: 0.80", "threshold: 2.0")
    decision = check(spec, CompileOptions())
    status, reason = _result(decision, "PROV-DATA")
    assert status == "FAIL"
    assert "outside error_count's range 0 or more" in reason
    assert "item 'ce-0004' scored -1" in reason


def test_metric_ranges_are_stated_or_known_never_guessed() -> None:
    assert metric_range("pass_rate", None) is not None
    assert metric_range("refusal_rate", None) is not None
    assert metric_range("pass@1", None) is not None
    assert metric_range("bleu", None) is None
    stated = metric_range("bleu", ScoreRange(min=0, max=100))
    assert stated is not None
    assert stated.text() == "0 to 100"
    count = metric_range("error_count", None)
    assert count is not None
    assert count.text() == "0 or more"
