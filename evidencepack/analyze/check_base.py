"""What every check is: an entry of the check table and the candidate context it judges.

A ``Check`` names one check (id, title, whether a FAIL is hard) and holds the function that
judges one candidate's ``CandidateContext``; ``analyze.checks.CHECKS`` lists them in the order
the report shows them. A check function builds its result with ``ENTRY.result(...)``, so a
check's title and hardness live in its entry only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..spec.models import Candidate, PackSpec
from .evidence import CandidateEvidence, RunEvidence
from .judgements import EvidenceFit
from .models import (
    Capacity,
    CheckResult,
    ComparabilityRow,
    EvidenceLink,
    Finding,
    Quality,
    Status,
)

_WORST = {"PASS": 0, "WARN": 1, "FAIL": 2}


@dataclass(frozen=True)
class CandidateContext:
    """Everything the checks judge about one candidate, computed once by ``decide``."""

    spec: PackSpec
    candidate: Candidate
    evidence: CandidateEvidence
    rows: Sequence[ComparabilityRow]
    """This candidate's comparability rows (its runs, score sets and MLPerf references)."""
    capacity: Capacity
    quality: Quality
    findings: Sequence[Finding]
    """The data findings of its runs (PROV-DATA)."""
    fits: Sequence[EvidenceFit] = ()
    """Whether each of its runs and score sets describes this candidate and question."""
    fitting: CandidateEvidence | None = None
    """Its evidence less what does not fit: what sizes capacity and judges quality."""

    @property
    def usable(self) -> CandidateEvidence:
        """The evidence that fits (all of it when no fit was judged)."""
        return self.fitting if self.fitting is not None else self.evidence


Judge = Callable[[CandidateContext], "CheckResult | None"]
"""Judges one candidate; None when the check has nothing to judge (no MLPerf reference cited)."""


@dataclass(frozen=True)
class Check:
    """One entry of the check table."""

    id: str
    title: str
    hard: bool
    """A hard FAIL (not waived) fails the release gate; a soft one makes a candidate ineligible."""
    judge: Judge | None = None
    """None for a check ``decide`` makes itself over all candidates (DECISION)."""

    def result(
        self,
        candidate: str | None,
        status: Status,
        reason: str,
        evidence: Iterable[EvidenceLink] = (),
    ) -> CheckResult:
        """This check's result for ``candidate``: its status, a one-line reason, its evidence."""
        return CheckResult(
            id=self.id,
            title=self.title,
            candidate=candidate,
            status=status,
            hard=self.hard,
            reason=reason,
            evidence=tuple(evidence),
        )


def worst(statuses: Iterable[Status]) -> Status:
    """FAIL over WARN over PASS (PASS when there is nothing)."""
    return max(statuses, key=lambda s: _WORST[s], default="PASS")


def model_of(run: RunEvidence) -> str:
    """The model a run names (recorded, else declared) for a check's reason."""
    return run.observed.model_name or run.declared.model_name or "an unnamed model"
