"""The check table: every check evidencepack makes, one entry each, in the order it reports them.

An entry (``check_base.Check``) holds a check's id, title, whether a FAIL is hard, and the
function that judges one candidate (``check_base.CandidateContext``); ``decide`` runs
``run_checks`` for each candidate and makes DECISION itself over all of them. Hard checks guard
the evidence itself: a hard FAIL (not waived) fails the release gate. SLO and QUALITY failures
are not hard: they make a candidate ineligible, which is an outcome.

A new check is a function beside its kind (``checklist``, ``provenance_checks``, here) and one
entry in ``CHECKS``.
"""

from __future__ import annotations

from .check_base import CandidateContext, Check, model_of
from .checklist import C1, C2, C3, C4, C5
from .evidence import CandidateEvidence, link
from .governance import GOVERNANCE
from .models import Capacity, CheckResult, Quality, Status
from .price import PRICE
from .provenance_checks import PROV_DATA, PROV_FILES, PROV_MLPERF, PROV_MODEL


def slo_check(cid: str, capacity: Capacity, ev: CandidateEvidence) -> CheckResult:
    """SLO-MET: a measured load met the SLO (the operating point X*); else ineligible."""
    if capacity.operating_point_rps is None:
        return SLO_MET.result(cid, "FAIL", capacity.reason, [link(r) for r in ev.runs])
    runs = [r for r in ev.runs if r.id == capacity.operating_point_run]
    point = next(lp for lp in capacity.load_points if lp.run == capacity.operating_point_run)
    figures = "; ".join(
        f"{name} p99 {value:.1f} ms"
        for name, value in (("TTFT", point.ttft_p99_ms), ("TPOT", point.tpot_p99_ms))
        if value is not None
    )
    model = f", {model_of(runs[0])}" if runs else ""
    result = SLO_MET.result(
        cid,
        "PASS",
        f"X* = {capacity.operating_point_rps:.3f} req/s per replica within the SLO "
        f"({capacity.operating_point_run}{model}: {figures}); {capacity.reason}",
        [link(r) for r in runs],
    )
    if capacity.confidence != "single_point":
        return result
    # One run cited is the spec's choice: said, never a warning.
    return result.model_copy(
        update={"notes": ("one load point only: X* is a single measurement, lower confidence",)}
    )


def quality_check(cid: str, quality: Quality, ev: CandidateEvidence) -> CheckResult:
    """QUALITY: the quality bar is met, else the candidate is ineligible; met on scores graded
    by the candidate's own model is a WARN (self-judged)."""
    status: Status = "FAIL"
    if quality.meets_bar:
        status = "WARN" if quality.self_judged else "PASS"
    return QUALITY.result(cid, status, quality.reason, [link(s) for s in ev.scores])


def fit_check(context: CandidateContext) -> CheckResult:
    """FIT: the candidate's runs and score sets describe it and the question; what does not fit
    never sizes or judges. FAIL when runs (or score sets) are cited and none fits."""
    cid, ev = context.candidate.id, context.evidence
    fits = list(context.fits)
    links = [link(x) for x in ev.items()]
    if not fits:
        return FIT.result(cid, "PASS", "no runs or score sets cited: nothing to fit", links)
    parts, failed = [], False
    for kind, noun in (("run", "run"), ("scores", "score set")):
        mine = [f for f in fits if f.kind == kind]
        if not mine:
            continue
        good = [f for f in mine if f.fits]
        bad = [f for f in mine if not f.fits]
        if not good:
            failed = True
            parts.append(f"no {noun} fits this candidate and question")
        else:
            parts.append(f"{len(good)} of {len(mine)} {noun}s fit")
        parts += [f"{f.subject} does not fit: {'; '.join(f.reasons)}" for f in bad]
    status: Status = "FAIL" if failed else ("WARN" if any(not f.fits for f in fits) else "PASS")
    return FIT.result(cid, status, "; ".join(parts), links)


FIT = Check(
    "FIT",
    "Runs and score sets describe this candidate and question",
    hard=True,
    judge=fit_check,
)
SLO_MET = Check(
    "SLO-MET",
    "SLO met at a measured load",
    hard=False,
    judge=lambda c: slo_check(c.candidate.id, c.capacity, c.usable),
)
QUALITY = Check(
    "QUALITY",
    "Quality bar met",
    hard=False,
    judge=lambda c: quality_check(c.candidate.id, c.quality, c.usable),
)
DECISION = Check("DECISION", "Decision follows from the evidence", hard=True)
"""Judged by ``decide`` over every candidate's verdict, not per candidate."""

CHECKS: tuple[Check, ...] = (
    C1,
    C2,
    C3,
    C4,
    C5,
    FIT,
    SLO_MET,
    QUALITY,
    PRICE,
    PROV_FILES,
    PROV_MLPERF,
    PROV_DATA,
    PROV_MODEL,
)
"""Every per-candidate check, in the order the report lists them."""

TITLES = {check.id: check.title for check in (*CHECKS, DECISION, GOVERNANCE)}


def run_checks(context: CandidateContext) -> list[CheckResult]:
    """Every check of the table over one candidate (a check with nothing to judge is left out)."""
    results = (check.judge(context) for check in CHECKS if check.judge is not None)
    return [result for result in results if result is not None]
