"""Quality with uncertainty from per-item scores, judged against the spec's bar.

Binary scores (pass/fail) get a Wilson score interval; continuous scores a seeded percentile
bootstrap of the mean. ``judged_on: confidence_bound`` compares the conservative end of the
interval (the lower bound when higher is better, the upper bound when lower is better).

Quality is judged on one score set (tool, task, scorer, metric), never on a pool of
different scorers or metrics: ``judge_score_sets`` picks the set the spec names, else the
set of the spec's metric with the most items, and says why and which sets it left out.
Files of the same set are combined with each item counted once; an item scored differently
twice refuses the set. Within the set, repeats of one item (``#r1``..``#rN``, epochs, seeds) are
one item at their mean, the items are matched with the dataset (``coverage.py``), a score
outside the metric's range refuses the set, and a dataset item left unscored counts as failed
(``scoring.missing_items``): the interval is over the dataset's items, never over rows. A set
graded by the candidate's own model is said to be self-judged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..intake.dataset_items import DatasetItems
from ..spec.metrics import metric_range
from ..spec.models import PackSpec, ScoreSetChoice
from .coverage import Coverage, Scored, cover, named, out_of_range, rows_of, worst_score
from .evidence import ScoreEvidence
from .models import Quality
from .stats import BOOTSTRAP_SEED, bootstrap_mean_interval, wilson_interval


def is_binary(scores: Sequence[float]) -> bool:
    """Whether every score is 0 or 1 (a pass/fail score set)."""
    return all(s in (0.0, 1.0) for s in scores)


def judge_quality(
    spec: PackSpec,
    candidate: str,
    score_sets: Sequence[str],
    scores: Sequence[float],
    coverage: str | None = None,
) -> Quality:
    """Estimate, interval and verdict for the item scores of one score set (one score per item;
    ``coverage``: how many of the dataset's items they are, said beside the estimate)."""
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
        covered = f" ({coverage})" if coverage else ""
        reason = (
            f"{scoring.metric} {estimate:.4f} over {n} items{covered}, {bar.confidence_level:.0%} "
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
        coverage=coverage,
    )


def same_model(a: str, b: str) -> bool:
    """Whether two model names name one model: equal without case, spaces or a parenthesised
    remark, or one is the other behind a provider prefix (``vllm/acme/m`` and ``acme/m``)."""

    def norm(name: str) -> str:
        return re.sub(r"\s+", "", re.sub(r"\([^)]*\)", "", name.lower()))

    x, y = norm(a), norm(b)
    return bool(x and y) and (x == y or x.endswith("/" + y) or y.endswith("/" + x))


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


def _combine(sets: list[ScoreEvidence]) -> tuple[list[Scored], str | None, int]:
    """One set's item scores from its files: (rows, why refused, ids repeated across files
    counted once)."""
    if len(sets) == 1:
        return rows_of(sets[0]), None, 0
    seen: dict[str, tuple[float, str]] = {}
    rows: list[Scored] = []
    repeated = 0
    for s in sets:
        for row in rows_of(s):
            if row.item in seen:
                first, where = seen[row.item]
                if first != row.score:
                    return (
                        [],
                        f"item {row.item!r} is scored {first:g} in {where} and {row.score:g} "
                        f"in {s.id}",
                        0,
                    )
                repeated += 1
                continue
            seen[row.item] = (row.score, s.id)
            rows.append(row)
    return rows, None, repeated


@dataclass(frozen=True)
class _Items:
    """The scores the bar is judged on and what was said about them."""

    values: list[float]
    refused: str | None
    notes: list[str]
    coverage: Coverage | None
    missing_counted: int = 0


def _items(
    spec: PackSpec, rows: list[Scored], dataset: DatasetItems | None, refused: str | None
) -> _Items:
    """The set's rows as one score per dataset item: range checked, repeats clustered, ids
    matched with the dataset, missing items counted as failed (or the set refused)."""
    if refused:
        return _Items([], refused, [], None)
    metric = spec.scoring.metric
    scale = metric_range(metric, spec.scoring.range)
    bad = out_of_range(rows, scale)
    if bad and scale is not None:
        return _Items(
            [],
            f"{len(bad)} score(s) lie outside {metric}'s range {scale.text()} ({scale.source}), "
            f"e.g. item {bad[0].item!r} of {bad[0].source} scored {bad[0].score:g} (PROV-DATA); "
            "a score is never rescaled",
            [],
            None,
        )
    cov = cover(rows, spec, dataset)
    notes = []
    if dataset is not None and dataset.problem is not None:
        notes.append(f"{dataset.problem}: items matched by dataset.size_items alone")
    if cov.unknown:
        notes.append(
            f"{len(cov.unknown)} scored item(s) not in the dataset left out (PROV-DATA): "
            + named([u.item for u in cov.unknown])
        )
    if (
        dataset is not None
        and dataset.count is not None
        and dataset.count != spec.dataset.size_items
    ):
        notes.append(
            f"the dataset file holds {dataset.count} items, dataset.size_items says "
            f"{spec.dataset.size_items}: matched with the file"
        )
    why = None
    if cov.excess:
        why = (
            f"{cov.scored} items scored, but the dataset holds {cov.size} "
            "(dataset.size_items; PROV-DATA)"
        )
    elif not cov.values:
        why = f"none of its items is in the dataset {spec.dataset.name} ({cov.by})"
    elif cov.scored < spec.fit.min_score_items:
        why = (
            f"{cov.scored} items are too few to judge the bar at "
            f"{spec.scoring.bar.confidence_level:.0%} confidence (fit.min_score_items: "
            f"{spec.fit.min_score_items})"
        )
    if why is not None:
        return _Items([], why, notes, cov)
    values = list(cov.values)
    if not cov.missing:
        return _Items(values, None, notes, cov)
    gap = f"{cov.text()}, {cov.missing} missing (matched by {cov.by})"
    if spec.scoring.missing_items == "not_fit":
        return _Items(
            [], f"{gap}: the set does not fit (scoring.missing_items: not_fit)", notes, cov
        )
    worst = worst_score(spec, scale, is_binary(values))
    if worst is None:
        return _Items(
            [],
            f"{gap}: {metric} has no known range to count them as failed (state "
            "scoring.range, or scoring.missing_items: not_fit)",
            notes,
            cov,
        )
    return _Items(values + [worst] * cov.missing, None, notes, cov, cov.missing)


def judge_score_sets(
    spec: PackSpec,
    candidate: str,
    sets: Sequence[ScoreEvidence],
    dataset: DatasetItems | None = None,
) -> Quality:
    """Judge the bar on one score set of ``sets``; the reason names it, why, and the rest
    (``dataset``: the spec's dataset file's item ids, when it names them)."""
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
    rows, refused, repeated = _combine(chosen)
    items = _items(spec, rows, dataset, refused)
    cov = items.coverage
    ids = [s.id for s in chosen]
    models = sorted({s.model for s in chosen if s.model}) or ["an unnamed model"]
    of = f"{', '.join(models)} in {', '.join(ids)}"
    coverage = None
    if cov is not None:
        coverage = cov.text()
        if items.missing_counted:
            coverage += f"; {items.missing_counted} missing counted as failed"
    if items.refused:
        quality = judge_quality(spec, candidate, ids, [])
        reason = f"score set {_name(key)} of {of} refused: {items.refused}"
    else:
        quality = judge_quality(spec, candidate, ids, items.values, coverage)
        reason = f"{quality.reason} ({of})" if quality.estimate is not None else quality.reason
    notes = list(items.notes)
    if repeated:
        notes.append(f"{repeated} item(s) repeated across {', '.join(ids)} counted once")
    others = [k for k in keys if k != key]
    if others:
        why = rule if len(candidates) == 1 else f"{rule} and it has the most items"
        notes.append(
            f"judged on score set {_name(key)} ({len(rows)} items) because {why}; "
            "not pooled with "
            + ", ".join(
                f"{_name(k)} ({sum(len(s.scores) for s in groups[k])} items)" for k in others
            )
        )
    if notes:
        reason = f"{reason}; {'; '.join(notes)}"
    judge = next((s.judge_model for s in chosen if s.judge_model), None)
    own = [spec.envelope.model.name, *(s.model for s in chosen if s.model)]
    self_judged = judge is not None and any(same_model(judge, m) for m in own)
    if self_judged:
        reason += (
            f"; self-judged: the items were graded by {judge}, the candidate's own model "
            "(a model grading itself is not independent evidence)"
        )
    return quality.model_copy(
        update={
            "reason": reason,
            "judged_set": _name(key),
            "other_sets": tuple(_name(k) for k in others),
            "items_scored": cov.scored if cov is not None else None,
            "dataset_items": cov.size if cov is not None else None,
            "missing_counted_as_failed": items.missing_counted,
            "scored_rows": cov.rows if cov is not None else None,
            "coverage": coverage,
            "judge_model": judge,
            "self_judged": self_judged,
        }
    )
