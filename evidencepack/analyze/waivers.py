"""Waivers: a current waiver marks a failing or warning check as waived; an expired one is
rejected and listed, as is a waiver that matches no check.

A waiver is current when it expires on or after both the decision date and the as-of date: a
waiver that expired before the decision was made never covers it, whatever ``--as-of`` says.
The DECISION check's failures (no candidate eligible, the chosen candidate ineligible) cannot be
waived: a waiver accepts a finding about the evidence, never the absence of a decision.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ..spec.models import PackSpec
from .models import CheckResult, Waived


def apply_waivers(
    spec: PackSpec, checks: Sequence[CheckResult], as_of: dt.date, used: set[int]
) -> tuple[list[CheckResult], list[Waived]]:
    """Mark each FAIL/WARN check a current waiver covers; ``used`` collects the waivers matched."""
    applied: list[Waived] = []
    out = []
    for check in checks:
        for index, waiver in enumerate(spec.waivers):
            if check.status == "PASS" or waiver.check != check.id:
                continue
            if waiver.candidate not in (None, check.candidate):
                continue
            used.add(index)
            if not current(spec, waiver.expires, as_of) or _unwaivable(check):
                continue
            waived = Waived(
                check=waiver.check,
                candidate=check.candidate,
                reason=waiver.reason,
                approver=waiver.approver,
                expires=waiver.expires,
            )
            applied.append(waived)
            check = check.model_copy(update={"waived": waived})
            break
        out.append(check)
    return out, applied


def current(spec: PackSpec, expires: dt.date, as_of: dt.date) -> bool:
    """Whether a waiver expiring on ``expires`` holds for a decision judged as of ``as_of``."""
    return expires >= max(as_of, spec.decision.date)


UNWAIVABLE = ("DECISION", "GOVERNANCE")
"""Checks whose FAIL no waiver covers: the absence of a decision, and a breach of the rules
that govern waivers and sign-off."""


def _unwaivable(check: CheckResult) -> bool:
    return check.id in UNWAIVABLE and check.status == "FAIL"


def rejected_waivers(
    spec: PackSpec, as_of: dt.date, used: set[int], checks: Sequence[CheckResult] = ()
) -> list[str]:
    """Expired waivers that matched a check, and waivers that matched nothing."""
    rejected = []
    for index, waiver in enumerate(spec.waivers):
        target = f"{waiver.check} for {waiver.candidate}" if waiver.candidate else waiver.check
        if index not in used:
            rejected.append(f"{target}: matches no failing or warning check; not applied")
        elif waiver.check in UNWAIVABLE and any(
            _unwaivable(c) and c.id == waiver.check for c in checks
        ):
            what = "the decision itself" if waiver.check == "DECISION" else "the sign-off rules"
            rejected.append(f"{target}: {what} cannot be waived; not applied")
        elif not current(spec, waiver.expires, as_of):
            when = max(as_of, spec.decision.date)
            rejected.append(f"{target}: expired on {waiver.expires} (as of {when}); not applied")
    return rejected
