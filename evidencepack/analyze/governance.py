"""GOVERNANCE: the sign-off follows the rules of the house (``spec.governance``).

A waiver's approver is not the decision's owner (``segregation``); a waiver ends within
``max_waiver_days`` of the decision; an approval is dated on or after the newest evidence it
approves (``approvals_after_evidence``). Each breach names the people, the dates and the rule.
The check is hard and judged over the whole decision; no waiver covers it (a waiver cannot
accept a breach of the rules that govern waivers).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from ..spec.models import PackSpec, Waiver
from .check_base import Check
from .evidence import CandidateEvidence
from .fit import parse_when
from .models import CheckResult

GOVERNANCE = Check("GOVERNANCE", "Sign-off follows the rules of the house", hard=True)
"""Judged by ``decide`` over the whole decision, not per candidate."""


def _person(name: str) -> str:
    """A name compared loosely: case and runs of spaces do not make another person."""
    return " ".join(name.casefold().split())


def _target(waiver: Waiver) -> str:
    return f"{waiver.check} waiver" + (f" for {waiver.candidate}" if waiver.candidate else "")


def newest_evidence(
    spec: PackSpec, evidence: Mapping[str, CandidateEvidence]
) -> tuple[dt.date, str] | None:
    """The newest dated piece of evidence the decision rests on, and what it is: a run or score
    set (the date its file records), a price, rental or purchase figure, the facility's figures
    or an exchange rate (the date the spec or the price file gives)."""
    dated: list[tuple[dt.date, str]] = []
    for candidate in spec.candidates:
        ev = evidence.get(candidate.id)
        for item in ev.items() if ev is not None else []:
            when = parse_when(item.timestamp)
            if when is not None:
                dated.append((when, item.id))
        if candidate.price.as_of is not None:
            dated.append((candidate.price.as_of, f"the price of {candidate.id}"))
        dated.extend(
            (rent.as_of, f"the {rent.kind} rent of {candidate.id}")
            for rent in candidate.rent
            if rent.as_of is not None
        )
        if candidate.own is not None and candidate.own.as_of is not None:
            dated.append((candidate.own.as_of, f"the purchase figures of {candidate.id}"))
    if spec.facility is not None and spec.facility.as_of is not None:
        dated.append((spec.facility.as_of, "the facility figures"))
    dated += [
        (r.as_of, f"the {r.currency} exchange rate ({r.source})") for r in spec.exchange_rates
    ]
    # The latest date; of several on it, the first named (candidates in the spec's order).
    return max(dated, key=lambda pair: pair[0]) if dated else None


def governance_check(spec: PackSpec, evidence: Mapping[str, CandidateEvidence]) -> CheckResult:
    """GOVERNANCE over the spec's waivers and approvals; FAIL naming each breach."""
    rules = spec.governance
    owner = spec.decision.owner
    decided = spec.decision.date
    breaches: list[str] = []
    if rules.segregation:
        breaches += [
            f"the {_target(w)} is approved by {w.approver}, the decision's owner: a waiver's "
            "approver is not the decision's owner (governance.segregation)"
            for w in spec.waivers
            if _person(w.approver) == _person(owner)
        ]
    try:
        latest = decided + dt.timedelta(days=rules.max_waiver_days)
    except OverflowError:
        latest = dt.date.max
    breaches += [
        f"the {_target(w)} approved by {w.approver} expires {w.expires}, past {latest}: a "
        f"waiver ends within {rules.max_waiver_days} days of the decision date {decided} "
        "(governance.max_waiver_days)"
        for w in spec.waivers
        if w.expires > latest
    ]
    newest = newest_evidence(spec, evidence)
    if rules.approvals_after_evidence and newest is not None:
        when, what = newest
        breaches += [
            f"{a.name} ({a.role}) approved on {a.date}, before the newest evidence approved "
            f"({what}, dated {when}): an approval is dated on or after the evidence it "
            "approves (governance.approvals_after_evidence)"
            for a in spec.approvals
            if a.date < when
        ]
    if breaches:
        return GOVERNANCE.result(None, "FAIL", "; ".join(breaches))
    parts = [f"owner {owner}"]
    if spec.approvals:
        names = ", ".join(f"{a.name} ({a.role}, {a.date})" for a in spec.approvals)
        parts.append(f"approved by {names}")
        if newest is not None and rules.approvals_after_evidence:
            parts[-1] += f", on or after the newest evidence ({newest[1]}, dated {newest[0]})"
    else:
        parts.append("no approval recorded")
    if spec.waivers:
        parts.append(
            f"{len(spec.waivers)} waiver(s), each ending by {latest}"
            + (", none approved by the owner" if rules.segregation else "")
        )
    return GOVERNANCE.result(None, "PASS", "; ".join(parts))
