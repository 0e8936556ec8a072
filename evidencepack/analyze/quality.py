"""Quality with uncertainty from per-item scores, judged against the spec's bar.

Binary scores (pass/fail) get a Wilson score interval; continuous scores a seeded percentile
bootstrap of the mean. ``judged_on: confidence_bound`` compares the conservative end of the
interval (the lower bound when higher is better, the upper bound when lower is better).

Quality is judged on one score set (tool, task, scorer, metric), never on a pool of
different scorers or metrics: ``judge_score_sets`` picks the set the spec names, else the
set of the spec's metric with the most items, and says why and which sets it left out.
Files of the same set are combined with each item counted once; an item scored differently
twice refuses the set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..spec.models import PackSpec, ScoreSetChoice
from .evidence import ScoreEvidence
from .models import Quality
from .stats import BOOTSTRAP_SEED, bootstrap_mean_interval, wilson_interval


def is_binary(scores: Sequence[float]) -> bool:
    """Whether every score is 0 or 1 (a pass/fail score set)."""
    return all(s in (0.0, 1.0) for s in scores)


def judge_quality(
    spec: PackSpec, candidate: str, score_sets: Sequence[str], scores: Sequence[float]
) -> Quality:
    """Estimate, interval and verdict for the item scores of one score set."""
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


def _name(key: tuple[str, str, str, str]) -> str:
    return "/".join(key)


def _chosen(
    choice: ScoreSetChoice | None, metric: str, keys: list[tuple[str, str, str, str]]
) -> tuple[list[tuple[str, str, str, str]], str]:
    """The candidate keys for judging and the rule that picked them."""
    if choice is not None:
        wanted = (choice.tool, choice.task, choice.scorer, choice.metric)
        named = [
            k for k in keys if all(w is None or w == v for w, v in zip(wanted, k, strict=True))
        ]
        return named, "named by the spec's scoring.score_set"
    same = [k for k in keys if k[3].lower() == metric.lower()]
    if same:
        return same, f"its metric is the spec's {metric}"
    return keys, f"no set is scored as {metric}"


def _combine(sets: list[ScoreEvidence]) -> tuple[list[float], str | None, int]:
    """One set's items from its files: (scores, why refused, repeated ids counted once)."""
    if len(sets) == 1:
        return list(sets[0].scores), None, 0
    seen: dict[str, tuple[float, str]] = {}
    scores: list[float] = []
    repeated = 0
    for s in sets:
        if len(s.item_ids) != len(s.scores):
            scores += s.scores
            continue
        for item, score in zip(s.item_ids, s.scores, strict=True):
            if item in seen:
                first, where = seen[item]
                if first != score:
                    return (
                        [],
                        f"item {item!r} is scored {first:g} in {where} and {score:g} in {s.id}",
                        0,
                    )
                repeated += 1
                continue
            seen[item] = (score, s.id)
            scores.append(score)
    return scores, None, repeated


def judge_score_sets(spec: PackSpec, candidate: str, sets: Sequence[ScoreEvidence]) -> Quality:
    """Judge the bar on one score set of ``sets``; the reason names it, why, and the rest."""
    groups: dict[tuple[str, str, str, str], list[ScoreEvidence]] = {}
    for s in sets:
        groups.setdefault(s.key, []).append(s)
    if not groups:
        return judge_quality(spec, candidate, [], [])
    keys = sorted(groups)
    candidates, rule = _chosen(spec.scoring.score_set, spec.scoring.metric, keys)
    if not candidates:
        quality = judge_quality(spec, candidate, [], [])
        return quality.model_copy(
            update={
                "reason": "no score set matches the spec's scoring.score_set; sets found: "
                + ", ".join(_name(k) for k in keys),
                "other_sets": tuple(_name(k) for k in keys),
            }
        )
    # the most items first; among equals the first by name, so the choice is stable
    key = min(candidates, key=lambda k: (-sum(len(s.scores) for s in groups[k]), k))
    chosen = groups[key]
    scores, refused, repeated = _combine(chosen)
    ids = [s.id for s in chosen]
    models = sorted({s.model for s in chosen if s.model}) or ["an unnamed model"]
    of = f"{', '.join(models)} in {', '.join(ids)}"
    if not refused and len(scores) < spec.fit.min_score_items:
        refused = (
            f"{len(scores)} items are too few to judge the bar at "
            f"{spec.scoring.bar.confidence_level:.0%} confidence (fit.min_score_items: "
            f"{spec.fit.min_score_items})"
        )
    if refused:
        quality = judge_quality(spec, candidate, ids, [])
        reason = f"score set {_name(key)} of {of} refused: {refused}"
    else:
        quality = judge_quality(spec, candidate, ids, scores)
        reason = f"{quality.reason} ({of})" if quality.estimate is not None else quality.reason
    notes = []
    if repeated:
        notes.append(f"{repeated} item(s) repeated across {', '.join(ids)} counted once")
    others = [k for k in keys if k != key]
    if others:
        why = rule if len(candidates) == 1 else f"{rule} and it has the most items"
        notes.append(
            f"judged on score set {_name(key)} ({len(scores)} items) because {why}; "
            "not pooled with "
            + ", ".join(
                f"{_name(k)} ({sum(len(s.scores) for s in groups[k])} items)" for k in others
            )
        )
    if notes:
        reason = f"{reason}; {'; '.join(notes)}"
    return quality.model_copy(
        update={
            "reason": reason,
            "judged_set": _name(key),
            "other_sets": tuple(_name(k) for k in others),
        }
    )
