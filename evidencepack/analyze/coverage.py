"""A score set's items as the bar is judged on them: repeats of one item are one item, ids are
matched with the spec's dataset, and every score is checked against the metric's range.

Repeats (seeds, epochs, samples) are ids with a suffix: ``<item>#r1``..``#rN`` (also ``#rep``,
``#repeat``, ``#run``, ``#seed``, ``#epoch``, ``#sample`` or a bare number; inspect-ai's epochs
are ``<id>#epoch<n>``). An id the dataset file holds as it is is never split. Each item counts
once, at the mean of its repeats, so an interval is computed over items, never over rows.

Items are matched with the dataset file's ids when the spec cites a file that names them, else
by ``dataset.size_items`` alone: a scored id the dataset does not hold is a PROV-DATA finding and
judges nothing; a dataset item the set does not score is missing (``scoring.missing_items``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..intake.dataset_items import DatasetItems
from ..spec.metrics import MetricRange, metric_range
from ..spec.models import PackSpec
from .evidence import ScoreEvidence, link
from .models import Finding

REPEAT = re.compile(r"^(?P<item>.+)#(?:r|rep|repeat|run|seed|epoch|sample)?\d+$", re.IGNORECASE)
NAMED = 3
"""Item ids a sentence names at most before it counts the rest."""


@dataclass(frozen=True)
class Scored:
    """One item score as read: the item's id, its score and the score set it came from."""

    item: str
    score: float
    source: str


@dataclass(frozen=True)
class Coverage:
    """A score set's items matched with the dataset, each item once (its repeats' mean)."""

    values: tuple[float, ...]
    """One score per dataset item the set scored, in id order."""
    ids: tuple[str, ...]
    """The items of ``values``."""
    size: int
    """The items the dataset holds (its file's ids, else ``dataset.size_items``)."""
    rows: int
    """The item scores read, repeats included."""
    repeated: int
    """Items scored more than once (their mean is the item's score)."""
    unknown: tuple[Scored, ...]
    """The first score of each item the dataset does not hold (none when it names no ids)."""
    excess: int
    """Items scored beyond the dataset's size, when the dataset names no ids."""
    missing: int
    """Dataset items the set does not score."""
    by: str
    """What the items were matched with: the dataset file's ids, or ``dataset.size_items``."""

    @property
    def scored(self) -> int:
        """Dataset items scored."""
        return len(self.values)

    def text(self) -> str:
        """``350 of 400 items scored`` (with repeats, how many scores they came from)."""
        out = f"{self.scored} of {self.size} items scored"
        if self.repeated:
            out += f" ({self.rows} scores: {self.repeated} items repeated, each its mean)"
        return out


def named(ids: Sequence[str]) -> str:
    """Up to ``NAMED`` ids quoted, then a count of the rest."""
    shown = ", ".join(repr(i) for i in ids[:NAMED])
    return shown if len(ids) <= NAMED else f"{shown} and {len(ids) - NAMED} more"


def base_of(item: str, known: frozenset[str] | None) -> str:
    """The item a score is of: the id itself when the dataset holds it, else the id without
    its repeat suffix."""
    if known is not None and item in known:
        return item
    match = REPEAT.match(item)
    return match["item"] if match else item


def cover(rows: Sequence[Scored], spec: PackSpec, dataset: DatasetItems | None) -> Coverage:
    """The rows of one score set clustered by item and matched with the dataset."""
    known = dataset.ids if dataset is not None else None
    groups: dict[str, list[float]] = {}
    first: dict[str, Scored] = {}
    for row in rows:
        base = base_of(row.item, known)
        groups.setdefault(base, []).append(row.score)
        first.setdefault(base, row)
    unknown = tuple(first[b] for b in sorted(groups) if known is not None and b not in known)
    items = sorted(b for b in groups if known is None or b in known)
    size = len(known) if known is not None else spec.dataset.size_items
    excess = max(0, len(items) - size) if known is None else 0
    return Coverage(
        values=tuple(math.fsum(groups[b]) / len(groups[b]) for b in items),
        ids=tuple(items),
        size=size,
        rows=len(rows),
        repeated=sum(1 for b in items if len(groups[b]) > 1),
        unknown=unknown,
        excess=excess,
        missing=max(0, size - len(items)),
        by=(
            f"the item ids of {spec.dataset.path}"
            if known is not None
            else "dataset.size_items (the dataset file names no item ids)"
            if dataset is not None
            else "dataset.size_items"
        ),
    )


def worst_score(spec: PackSpec, scale: MetricRange | None, binary: bool) -> float | None:
    """The score a missing item counts as: the metric's worst (its range's low end when higher
    is better, else its high end; 0 or 1 for a pass/fail set); None when it has no worst."""
    higher = spec.scoring.direction == "higher_is_better"
    if scale is not None:
        end = scale.low if higher else scale.high
        return None if math.isinf(end) else end
    if binary:
        return 0.0 if higher else 1.0
    return None


def out_of_range(rows: Sequence[Scored], scale: MetricRange | None) -> list[Scored]:
    """The rows whose score lies outside the metric's range (none when it has no range)."""
    if scale is None:
        return []
    return [row for row in rows if not scale.holds(row.score)]


def rows_of(scores: ScoreEvidence) -> list[Scored]:
    """A score set's item scores as ``Scored`` rows."""
    return [
        Scored(item, score, scores.id)
        for item, score in zip(scores.item_ids, scores.scores, strict=True)
    ]


def score_findings(
    spec: PackSpec, cid: str, sets: Sequence[ScoreEvidence], dataset: DatasetItems | None
) -> list[Finding]:
    """PROV-DATA findings of the score sets that judge the bar: a score outside the metric's
    range, an item id the dataset does not hold, more items than the dataset has."""
    scale = metric_range(spec.scoring.metric, spec.scoring.range)
    out: list[Finding] = []
    for s in sets:
        rows = rows_of(s)

        def finding(kind: str, figure: str, detail: str, s: ScoreEvidence = s) -> Finding:
            return Finding(
                check="PROV-DATA",
                candidate=cid,
                subject=s.id,
                model=s.model,
                kind=kind,  # type: ignore[arg-type]  # one of Finding's kinds
                severity="FAIL",
                figure=figure,
                detail=detail,
                evidence=(link(s),),
            )

        bad = out_of_range(rows, scale)
        if bad and scale is not None:
            out.append(
                finding(
                    "impossible-value",
                    spec.scoring.metric,
                    f"{len(bad)} of {len(rows)} scores lie outside {spec.scoring.metric}'s "
                    f"range {scale.text()} ({scale.source}), e.g. item {bad[0].item!r} scored "
                    f"{bad[0].score:g}; a score is never rescaled",
                )
            )
        coverage = cover(rows, spec, dataset)
        if coverage.unknown:
            out.append(
                finding(
                    "unknown-item",
                    "item_id",
                    f"{len(coverage.unknown)} scored item(s) are not in the dataset "
                    f"{spec.dataset.name} ({coverage.by}): "
                    + named([u.item for u in coverage.unknown]),
                )
            )
        if coverage.excess:
            out.append(
                finding(
                    "unknown-item",
                    "item_id",
                    f"{coverage.scored} items scored, but the dataset {spec.dataset.name} holds "
                    f"{coverage.size} (dataset.size_items)",
                )
            )
    return out
