"""Quality judged against the bar on the point estimate or the confidence bound."""

from __future__ import annotations

import pytest

from evidencepack.analyze.quality import judge_quality
from evidencepack.analyze.stats import wilson_interval
from evidencepack.spec.load import load_spec

from ..conftest import SAMPLE_SPEC


@pytest.fixture(scope="module")
def spec():  # type: ignore[no-untyped-def]
    return load_spec(SAMPLE_SPEC).spec


def test_binary_scores_use_wilson_and_lower_bound(spec) -> None:  # type: ignore[no-untyped-def]
    scores = [1.0] * 348 + [0.0] * 52  # 0.87 over 400
    q = judge_quality(spec, "c", ["s1"], scores)
    low, high = wilson_interval(348, 400, 0.95)
    assert q.method == "wilson"
    assert q.estimate == pytest.approx(0.87)
    assert (q.ci_low, q.ci_high) == (low, high)
    assert q.judged_value == low
    assert q.meets_bar


def test_bar_between_bound_and_estimate(spec) -> None:  # type: ignore[no-untyped-def]
    # 0.82 estimate, lower bound ~0.78: fails on the bound, would pass on the estimate.
    scores = [1.0] * 328 + [0.0] * 72
    q = judge_quality(spec, "c", ["s"], scores)
    assert not q.meets_bar
    assert "lower 95% bound" in q.reason
    point = spec.model_copy(
        update={
            "scoring": spec.scoring.model_copy(
                update={"bar": spec.scoring.bar.model_copy(update={"judged_on": "point_estimate"})}
            )
        }
    )
    assert judge_quality(point, "c", ["s"], scores).meets_bar


def test_continuous_scores_use_bootstrap(spec) -> None:  # type: ignore[no-untyped-def]
    scores = [0.80 + 0.001 * (i % 100) for i in range(400)]
    q = judge_quality(spec, "c", ["s"], scores)
    assert q.method == "bootstrap"
    assert q.bootstrap_seed is not None
    assert q.ci_low is not None
    assert q.ci_low < q.estimate < q.ci_high  # type: ignore[operator]
    assert q.meets_bar


def test_lower_is_better_uses_upper_bound(spec) -> None:  # type: ignore[no-untyped-def]
    lower = spec.model_copy(
        update={
            "scoring": spec.scoring.model_copy(
                update={
                    "direction": "lower_is_better",
                    "bar": spec.scoring.bar.model_copy(update={"threshold": 0.2}),
                }
            )
        }
    )
    scores = [1.0] * 60 + [0.0] * 340  # error rate 0.15, upper bound ~0.189
    q = judge_quality(lower, "c", ["s"], scores)
    assert q.judged_value == q.ci_high
    assert q.meets_bar
    assert "upper 95% bound" in q.reason


def test_no_scores_cannot_claim_quality(spec) -> None:  # type: ignore[no-untyped-def]
    q = judge_quality(spec, "c", [], [])
    assert not q.meets_bar
    assert q.method == "none"
