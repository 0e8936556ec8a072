"""The comparability matrix as the report shows it: one row per candidate (its own stack against
the frozen envelope, then its evidence against its stack) and the merged rows of Appendix A."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analyze.models import ComparabilityRow
from ..readers.normalise import normalise_precision, normalise_runtime, versions_match
from ..spec.models import PackSpec
from .evidence import split_common_folder

if TYPE_CHECKING:
    from .html import CandidateView


@dataclass(frozen=True)
class ComparabilityView:
    """Consecutive comparability rows of one candidate that say the same thing, as one row."""

    findings: ComparabilityRow
    """The first of the rows; the others differ from it only in the subject."""
    folder: str
    subjects: tuple[str, ...]


@dataclass(frozen=True)
class ComparabilitySummary:
    """One candidate's comparability in one row: how many subjects match the envelope, which
    fields differ and which nobody states."""

    candidate: CandidateView
    subjects: int
    like_for_like: int
    differing: tuple[str, ...]
    unknown: tuple[str, ...]
    stack: tuple[str, ...] = ()
    """How the candidate's own stack differs from the frozen envelope (runtime, version,
    precision): its evidence is held to that stack, so ``differing`` cannot show it."""


def _stack_against_envelope(spec: PackSpec, candidate_id: str) -> tuple[str, ...]:
    """The candidate's stack against the spec's envelope, as C5 judges it."""
    candidate = next((c for c in spec.candidates if c.id == candidate_id), None)
    if candidate is None:
        return ()
    stack, envelope = candidate.stack, spec.envelope
    found = []
    if normalise_runtime(stack.runtime) != normalise_runtime(envelope.runtime.name):
        found.append(f"runtime ({stack.runtime}, envelope {envelope.runtime.name})")
    elif not versions_match(stack.version, envelope.runtime.version):
        found.append(f"runtime version ({stack.version}, envelope {envelope.runtime.version})")
    if normalise_precision(stack.precision) != normalise_precision(envelope.precision):
        found.append(f"precision ({stack.precision}, envelope {envelope.precision})")
    return tuple(found)


def comparability_summary(candidate: CandidateView, spec: PackSpec) -> ComparabilitySummary:
    """One candidate's row of the matrix: subjects, like for like, what differs, who states."""
    mine = candidate.record.comparability
    return ComparabilitySummary(
        candidate=candidate,
        subjects=len(mine),
        like_for_like=sum(1 for r in mine if r.like_for_like),
        differing=tuple(dict.fromkeys(d.field for r in mine for d in r.differences)),
        unknown=tuple(dict.fromkeys(u for r in mine for u in r.unknown)),
        stack=_stack_against_envelope(spec, candidate.verdict.id),
    )


def merge_comparability(rows: tuple[ComparabilityRow, ...]) -> tuple[ComparabilityView, ...]:
    """Merge runs of consecutive rows with the same candidate, kind and findings (a load sweep's
    five runs usually say the same thing), keeping every subject."""
    merged: list[tuple[ComparabilityRow, list[str]]] = []
    for row in rows:
        if merged and _same_findings(merged[-1][0], row):
            merged[-1][1].append(row.subject)
        else:
            merged.append((row, [row.subject]))
    views = []
    for row, subjects in merged:
        folder, labels = split_common_folder(subjects)
        views.append(ComparabilityView(findings=row, folder=folder, subjects=labels))
    return tuple(views)


def _same_findings(a: ComparabilityRow, b: ComparabilityRow) -> bool:
    return a.model_dump(exclude={"subject"}) == b.model_dump(exclude={"subject"})
