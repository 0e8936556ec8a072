"""Waivers: a current waiver marks a failing or warning check as waived; an expired one is
rejected and listed, as is a waiver that matches no check.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ..spec import PackSpec
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
            if waiver.expires < as_of:
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


def rejected_waivers(spec: PackSpec, as_of: dt.date, used: set[int]) -> list[str]:
    """Expired waivers that matched a check, and waivers that matched nothing."""
    rejected = []
    for index, waiver in enumerate(spec.waivers):
        target = f"{waiver.check} for {waiver.candidate}" if waiver.candidate else waiver.check
        if index not in used:
            rejected.append(f"{target}: matches no failing or warning check; not applied")
        elif waiver.expires < as_of:
            rejected.append(f"{target}: expired on {waiver.expires} (as of {as_of}); not applied")
    return rejected
