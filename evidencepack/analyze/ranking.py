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


def ranked(objective: str, higher_is_better: bool, standings: Sequence[Standing]) -> list[str]:
    """The eligible candidates, best first: ``lowest_cost_at_slo`` by cost per month (then per
    1M tokens), ``fewest_accelerators`` by accelerators (then cost), ``highest_quality`` by the
    judged quality (then cost); ties by id."""

    def key(s: Standing) -> tuple[float, float, str]:
        cost = s.per_month if s.per_month is not None else _BIG
        if objective == "fewest_accelerators":
            return (s.accelerators if s.accelerators is not None else _BIG, cost, s.id)
        if objective == "highest_quality":
            sign = -1.0 if higher_is_better else 1.0
            return (sign * (s.judged_quality or 0.0), cost, s.id)
        return (cost, s.per_million if s.per_million is not None else _BIG, s.id)

    return [s.id for s in sorted((s for s in standings if s.eligible), key=key)]


def ranked_verdicts(
    objective: str,
    higher_is_better: bool,
    verdicts: Sequence[CandidateVerdict],
    qualities: Sequence[Quality],
) -> list[str]:
    """``ranked`` read from a decision's verdicts and quality results: how the recommendation is
    picked, and the order the report ranks its candidates in."""
    judged = {q.candidate: q.judged_value for q in qualities}
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
                judged.get(v.id),
            )
            for v in verdicts
        ],
    )


def id_list(ids: Sequence[str], separator: str, limit: int = IDS_SHOWN) -> str:
    """``ids`` joined by ``separator``: all of them up to ``limit``, else the first ``limit`` and
    a count of the rest (a sentence stays bounded however many candidates a spec has)."""
    if len(ids) <= limit:
        return separator.join(ids)
    return f"{separator.join(ids[:limit])}{separator}... ({len(ids) - limit} more)"
