"""How eligible candidates are ranked by the spec's objective (one rule for the decision and
for every what-if of the robustness analysis)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import CandidateVerdict, Quality

_BIG = float("inf")

IDS_SHOWN = 8
"""Candidate ids a sentence lists at most (a ranking, the billing bases): past it, a count."""


@dataclass(frozen=True)
class Standing:
    """What the ranking reads of one candidate."""

    id: str
    eligible: bool
    accelerators: int | None
    per_month: float | None
    per_million: float | None
    judged_quality: float | None
    interval: tuple[float, float] | None = None
    """The quality estimate's confidence interval (low, high); None without scores."""


def _cost(s: Standing) -> tuple[float, float, str]:
    return (
        s.per_month if s.per_month is not None else _BIG,
        s.per_million if s.per_million is not None else _BIG,
        s.id,
    )


def overlap(a: Standing, b: Standing) -> bool:
    """Whether two candidates' quality intervals overlap: a difference they do not support."""
    if a.interval is None or b.interval is None:
        return False
    return a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1]


def _by_quality(higher_is_better: bool, pool: list[Standing]) -> list[Standing]:
    """Best judged quality first, but only on a difference the intervals support: the best
    judged candidate and every one whose interval overlaps its interval are tied, and the tie
    goes to the cheapest; then again over the rest."""
    sign = -1.0 if higher_is_better else 1.0
    rest = sorted(pool, key=lambda s: (sign * (s.judged_quality or 0.0), *_cost(s)))
    out = []
    while rest:
        leader = rest[0]
        tied = [s for s in rest if s is leader or overlap(s, leader)]
        pick = min(tied, key=_cost)
        out.append(pick)
        rest.remove(pick)
    return out


def ranked(objective: str, higher_is_better: bool, standings: Sequence[Standing]) -> list[str]:
    """The eligible candidates, best first: ``lowest_cost_at_slo`` by cost per month (then per
    1M tokens), ``fewest_accelerators`` by accelerators (then cost), ``highest_quality`` by the
    judged quality where the intervals support the difference (else a tie, broken by cost);
    ties by id."""
    pool = [s for s in standings if s.eligible]
    if objective == "highest_quality":
        return [s.id for s in _by_quality(higher_is_better, pool)]
    if objective == "fewest_accelerators":
        return [
            s.id
            for s in sorted(
                pool,
                key=lambda s: (s.accelerators if s.accelerators is not None else _BIG, *_cost(s)),
            )
        ]
    return [s.id for s in sorted(pool, key=_cost)]


def ranked_verdicts(
    objective: str,
    higher_is_better: bool,
    verdicts: Sequence[CandidateVerdict],
    qualities: Sequence[Quality],
) -> list[str]:
    """``ranked`` read from a decision's verdicts and quality results: how the recommendation is
    picked, and the order the report ranks its candidates in."""
    judged = {q.candidate: q for q in qualities}
    return ranked(
        objective,
        higher_is_better,
        [
            Standing(
                v.id,
                v.eligible,
                v.accelerators_needed,
                v.cost_per_month,
                v.cost_per_million_output_tokens,
                judged[v.id].judged_value if v.id in judged else None,
                interval_of(judged.get(v.id)),
            )
            for v in verdicts
        ],
    )


def interval_of(quality: Quality | None) -> tuple[float, float] | None:
    """A quality result's interval, or None when it has none."""
    if quality is None or quality.ci_low is None or quality.ci_high is None:
        return None
    return (quality.ci_low, quality.ci_high)


def id_list(ids: Sequence[str], separator: str, limit: int = IDS_SHOWN) -> str:
    """``ids`` joined by ``separator``: all of them up to ``limit``, else the first ``limit`` and
    a count of the rest (a sentence stays bounded however many candidates a spec has)."""
    if len(ids) <= limit:
        return separator.join(ids)
    return f"{separator.join(ids[:limit])}{separator}... ({len(ids) - limit} more)"


@dataclass(frozen=True)
class Closeness:
    """How close the call is, in the objective's own unit."""

    text: str
    """The recommendation against the runner-up in words (never a negative percentage)."""
    margin: float | None
    """The runner-up's cost per month over the recommendation's, minus 1, when cost decided
    between them (the objective, or a tie on it); else None."""
    gap: float | None
    """How far the runner-up trails in the objective's unit: accelerators, or quality points
    (the judged values' difference, x100 for a fraction); None for cost."""
    unit: str | None
    """``accelerators`` or ``quality points`` (or the metric's name when it is no fraction)."""
    tied: bool
    """The two are tied on the objective (equal accelerators, or quality intervals that
    overlap) and cost broke the tie."""


def _ahead(best: Standing, second: Standing) -> Closeness:
    return Closeness(f"{best.id} ranks ahead of the runner-up {second.id}", None, None, None, False)


def _cost_margin(best: Standing, second: Standing) -> float | None:
    if best.per_month and second.per_month is not None:
        margin = second.per_month / best.per_month - 1
        return margin if margin >= 0 else None
    return None


def closeness(
    objective: str,
    best: Standing,
    second: Standing,
    quality: tuple[str, bool, float],
) -> Closeness:
    """The recommendation ``best`` against the runner-up ``second`` under ``objective``
    (``quality``: the metric's name, whether it is a fraction, the interval's confidence)."""
    margin = _cost_margin(best, second)
    costs = "the tie is broken by cost" + (
        f" ({second.id} costs {margin:.0%} more per month)" if margin is not None else ""
    )
    if objective == "fewest_accelerators" and best.accelerators is not None:
        if second.accelerators is None:
            return _ahead(best, second)
        gap = second.accelerators - best.accelerators
        if gap > 0:
            return Closeness(
                f"the runner-up {second.id} needs {gap} more accelerator{'s' if gap != 1 else ''}"
                f" than {best.id} ({second.accelerators} against {best.accelerators})",
                None,
                float(gap),
                "accelerators",
                False,
            )
        return Closeness(
            f"the runner-up {second.id} needs as many accelerators as {best.id} "
            f"({best.accelerators}): {costs}",
            margin,
            0.0,
            "accelerators",
            True,
        )
    if objective == "highest_quality":
        return _quality_closeness(best, second, quality, margin, costs)
    if margin is not None:
        text = f"the runner-up {second.id} costs {margin:.0%} more per month than {best.id}"
        return Closeness(text, margin, None, None, False)
    return _ahead(best, second)


def _quality_closeness(
    best: Standing,
    second: Standing,
    quality: tuple[str, bool, float],
    margin: float | None,
    costs: str,
) -> Closeness:
    metric, fraction, level = quality
    a, b = best.judged_quality, second.judged_quality
    if a is None or b is None:
        return _ahead(best, second)

    def shown(v: float) -> str:
        return f"{v:.1%}" if fraction else f"{v:.4g}"

    gap = abs(a - b) * (100 if fraction else 1)
    unit = "quality points" if fraction else metric
    amount = f"{gap:.1f} quality points" if fraction else f"{gap:.4g} ({metric})"
    if overlap(best, second):
        return Closeness(
            f"the runner-up {second.id} is tied with {best.id} on {metric}: judged "
            f"{shown(b)} against {shown(a)}, {amount} apart, a difference their {level:.0%} "
            f"intervals do not support (they overlap), so {costs}",
            margin,
            gap,
            unit,
            True,
        )
    return Closeness(
        f"the runner-up {second.id} trails {best.id} on {metric} by {amount} (judged "
        f"{shown(b)} against {shown(a)}, their {level:.0%} intervals apart)",
        None,
        gap,
        unit,
        False,
    )
