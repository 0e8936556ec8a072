"""Which candidates the report's body shows: every one up to ``BODY_LIMIT``, else the best ranked.

The body (page 1 and the sections that compare candidates side by side, one row each) stays
bounded whatever the number of candidates: past ``BODY_LIMIT`` it shows the best-ranked
candidates (the decision's own ranking, ``analyze.ranking``), always with the one page 1 is
about, and says how many more there are; Appendix A then opens with every candidate ranked in
one table and keeps each candidate's detail. Up to the limit nothing changes: every candidate,
in the document's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analyze.models import DecisionDocument
from ..analyze.ranking import ranked_verdicts

BODY_LIMIT = 8
"""Candidates the body's tables show at most."""

PAGE_ONE_LIMIT = 2
"""Candidates page 1's table shows when the body is bounded (so that page 1 stays one page)."""


@dataclass(frozen=True)
class BodySelection:
    """The candidates in rank order and those the body shows."""

    ranked: tuple[str, ...]
    """Every candidate id: the eligible ones best first, then the others in the document's order."""
    shown: tuple[str, ...]
    """The ids the body shows, in the order it shows them."""
    page_one: tuple[str, ...]
    """The ids page 1's table shows: ``shown``, or its first ``PAGE_ONE_LIMIT`` when bounded."""
    eligible: tuple[str, ...]
    """The eligible ids, best first (the decision's ranking)."""

    @property
    def bounded(self) -> bool:
        """Whether the body leaves candidates out (they are in Appendix A)."""
        return len(self.shown) < len(self.ranked)

    @property
    def omitted(self) -> int:
        """How many candidates only Appendix A shows."""
        return len(self.ranked) - len(self.shown)

    def shows(self, candidate_id: str | None) -> bool:
        """Whether the body shows a row of this candidate (None: not a candidate's row)."""
        return candidate_id is None or not self.bounded or candidate_id in self.shown

    def rank_of(self, candidate_id: str) -> int | None:
        """The candidate's place among the eligible ones (1 is the best), None if not eligible."""
        eligible = self.eligible
        return eligible.index(candidate_id) + 1 if candidate_id in eligible else None


def select_body(
    decision: DecisionDocument, subject_id: str | None, limit: int = BODY_LIMIT
) -> BodySelection:
    """The body's candidates for ``decision``; ``subject_id`` (page 1's candidate) is always one."""
    higher = decision.spec.scoring.direction == "higher_is_better"
    eligible = tuple(
        ranked_verdicts(decision.objective, higher, decision.candidates, decision.quality)
    )
    rest = tuple(c.id for c in decision.candidates if c.id not in set(eligible))
    order = eligible + rest
    if len(order) <= limit:
        every = tuple(c.id for c in decision.candidates)
        return BodySelection(ranked=order, shown=every, page_one=every, eligible=eligible)
    return BodySelection(
        ranked=order,
        shown=_best_with(order, limit, subject_id),
        page_one=_best_with(order, min(limit, PAGE_ONE_LIMIT), subject_id),
        eligible=eligible,
    )


def _best_with(order: tuple[str, ...], limit: int, subject_id: str | None) -> tuple[str, ...]:
    """The first ``limit`` of ``order``, the last of them replaced by ``subject_id`` if it is not
    among them."""
    best = order[:limit]
    if subject_id is not None and subject_id in order and subject_id not in best:
        best = (*order[: limit - 1], subject_id)
    return best
