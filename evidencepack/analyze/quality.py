"""Quality with uncertainty from per-item scores, judged against the spec's bar.

Binary scores (pass/fail) get a Wilson score interval; continuous scores a seeded percentile
bootstrap of the mean. ``judged_on: confidence_bound`` compares the conservative end of the
interval (the lower bound when higher is better, the upper bound when lower is better).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..spec import PackSpec
from .models import Quality
from .stats import BOOTSTRAP_SEED, bootstrap_mean_interval, wilson_interval


def is_binary(scores: Sequence[float]) -> bool:
    return all(s in (0.0, 1.0) for s in scores)


def judge_quality(
    spec: PackSpec, candidate: str, score_sets: Sequence[str], scores: Sequence[float]
) -> Quality:
    """Estimate, interval and verdict for one candidate's pooled item scores."""
    scoring = spec.scoring
    bar = scoring.bar
    higher = scoring.direction == "higher_is_better"
    n = len(scores)
    binary = bool(scores) and is_binary(scores)
    estimate = low = high = judged = None
    method: Literal["wilson", "bootstrap", "none"] = "none"
    seed = None
    meets = False
    reason = "no per-item scores of the candidate model: quality cannot be claimed"
    if scores:
        estimate = sum(scores) / n
        if binary:
            low, high = wilson_interval(int(sum(scores)), n, bar.confidence_level)
            method = "wilson"
        else:
            low, high = bootstrap_mean_interval(scores, bar.confidence_level)
            method, seed = "bootstrap", BOOTSTRAP_SEED
        judged = estimate if bar.judged_on == "point_estimate" else (low if higher else high)
        meets = judged >= bar.threshold if higher else judged <= bar.threshold
        side = "lower" if higher else "upper"
        what = (
            "estimate"
            if bar.judged_on == "point_estimate"
            else f"{side} {bar.confidence_level:.0%} bound"
        )
        relation = (">=" if meets else "<") if higher else ("<=" if meets else ">")
        reason = (
            f"{scoring.metric} {estimate:.4f} over {n} items, {bar.confidence_level:.0%} "
            f"interval [{low:.4f}, {high:.4f}] ({method}); {what} {judged:.4f} {relation} "
            f"bar {bar.threshold:g}"
        )
    return Quality(
        candidate=candidate,
        score_sets=tuple(score_sets),
        metric=scoring.metric,
        binary=binary,
        n_items=n,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        confidence_level=bar.confidence_level,
        method=method,
        bootstrap_seed=seed,
        bar_threshold=bar.threshold,
        judged_on=bar.judged_on,
        judged_value=judged,
        meets_bar=meets,
        reason=reason,
    )
