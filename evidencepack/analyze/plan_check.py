"""PLAN: the spec still states the plan registered before the evidence (``check --plan``).

A FAIL names each value that changed since registration (the bar, the SLO, the traffic, the
objective, the candidates), with its value then and now; a PASS says when and by whom the plan
was registered. The result links the packed plan bundle by its sha256, so ``verify`` holds the
decision against the very plan it was checked with.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from ..spec.models import PackSpec
from ..spec.plan import PLAN_NAME, RegisteredPlan, plan_changes
from .check_base import Check
from .evidence import CandidateEvidence
from .fit import parse_when
from .models import CheckResult, EvidenceLink

PLAN = Check("PLAN", "Plan unchanged since registration", hard=True)
"""Judged by ``decide`` for the whole decision, when a registered plan is given."""


SHOWN = 3
"""Evidence dated before the plan named by id; past these, counted."""


def _dated_before(evidence: Mapping[str, CandidateEvidence], registered: dt.date) -> list[str]:
    """Each run and score set whose file records a date before the plan's registration."""
    found = []
    for candidate in evidence.values():
        dated = [(r.id, r.timestamp) for r in candidate.runs]
        dated += [(s.id, s.timestamp) for s in candidate.scores]
        for item, stamp in dated:
            when = parse_when(stamp)
            if when is not None and when < registered:
                found.append(f"{item} ({when.isoformat()})")
    return sorted(found)


def plan_check(
    spec: PackSpec, plan: RegisteredPlan, evidence: Mapping[str, CandidateEvidence]
) -> CheckResult:
    """PLAN for ``spec`` against the registered ``plan``: FAIL when a hard value changed since;
    WARN when evidence is dated before the plan was registered (a plan made after the results
    proves nothing about them)."""
    document = plan.document
    registered = f"registered on {document.registered_at[:10]} by {plan.registered_by}"
    link = EvidenceLink(row="plan", file_sha256=plan.bundle_sha256, pack_path=PLAN_NAME)
    problems: list[str] = []
    if document.decision_id != spec.decision.id:
        problems.append(
            f"decision.id: {document.decision_id} at registration, now {spec.decision.id}"
        )
    problems += [change.message for change in plan_changes(document, spec)]
    if problems:
        return PLAN.result(
            None, "FAIL", f"{registered}; changed since: {'; '.join(problems)}", [link]
        )
    before = _dated_before(evidence, dt.date.fromisoformat(document.registered_at[:10]))
    if before:
        named = ", ".join(before[:SHOWN]) + (
            f" and {len(before) - SHOWN} more" if len(before) > SHOWN else ""
        )
        return PLAN.result(
            None,
            "WARN",
            f"{registered}; unchanged; but {len(before)} run(s) or score set(s) are dated "
            f"before the registration: {named}",
            [link],
        )
    return PLAN.result(None, "PASS", f"{registered}; unchanged", [link])
