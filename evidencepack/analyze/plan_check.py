"""PLAN: the spec still states the plan registered before the evidence (``check --plan``).

A FAIL names each value that changed since registration (the bar, the SLO, the traffic, the
objective, the candidates), with its value then and now; a PASS says when and by whom the plan
was registered. The result links the packed plan bundle by its sha256, so ``verify`` holds the
decision against the very plan it was checked with.
"""

from __future__ import annotations

from ..spec.models import PackSpec
from ..spec.plan import PLAN_NAME, RegisteredPlan, plan_changes
from .check_base import Check
from .models import CheckResult, EvidenceLink

PLAN = Check("PLAN", "Plan unchanged since registration", hard=True)
"""Judged by ``decide`` for the whole decision, when a registered plan is given."""


def plan_check(spec: PackSpec, plan: RegisteredPlan) -> CheckResult:
    """PLAN for ``spec`` against the registered ``plan``."""
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
    return PLAN.result(None, "PASS", f"{registered}; unchanged", [link])
