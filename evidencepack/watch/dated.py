"""What a decision rests on that lapses or changes: prices past their validity, waivers past
their expiry, old approvals, and today's traffic and SLO against the pack's (``watch --spec``).

Each finding carries its effect on the watched (chosen) candidate: an expired waiver of a
check that failed is *broken* (the failure stands again); an expired price of the chosen
candidate, or an approval older than the limit, is *degraded* (the figures or the sign-off need
renewing); an expired price of another candidate is a *note* (the comparison rests on it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from ..analyze.models import DecisionDocument
from ..spec.models import PackSpec
from .models import Effect, WatchFinding

DEFAULT_APPROVAL_MAX_DAYS = 365
"""An approval older than this on the watch's date asks for a new sign-off (degraded)."""


def _prices(spec: PackSpec) -> Iterable[tuple[str, str, dt.date]]:
    """(candidate, what, valid_until) of every dated price figure of every candidate."""
    for candidate in spec.candidates:
        if candidate.price is not None and candidate.price.valid_until is not None:
            source = candidate.price.source or "price"
            yield candidate.id, f"price ({source})", candidate.price.valid_until
        for rent in candidate.rent or ():
            if rent.valid_until is not None:
                yield candidate.id, f"{rent.kind} rent ({rent.source or 'rent'})", rent.valid_until
        own = candidate.own
        if own is not None and own.valid_until is not None:
            yield candidate.id, f"purchase quote ({own.source or 'own'})", own.valid_until


def dated_findings(
    spec: PackSpec,
    decision: DecisionDocument,
    watched: str,
    as_of: dt.date,
    *,
    approval_max_days: int = DEFAULT_APPROVAL_MAX_DAYS,
) -> list[WatchFinding]:
    """Every dated thing of the pack's spec judged at ``as_of``."""
    found = []
    for candidate, what, until in _prices(spec):
        if until >= as_of:
            continue
        price_effect: Effect = "degraded" if candidate == watched else "note"
        found.append(
            WatchFinding(
                kind="price",
                candidate=candidate,
                effect=price_effect,
                detail=f"{candidate}'s {what} was valid until {until.isoformat()}; it has "
                f"expired by {as_of.isoformat()}",
            )
        )
    # The check results a waiver covered for the watched candidate (or the whole decision).
    covered = {w.check for w in decision.waivers_applied if w.candidate in (None, watched)}
    for waiver in spec.waivers:
        if waiver.expires >= as_of:
            continue
        in_use = waiver.candidate in (None, watched) and waiver.check in covered
        effect: Effect = "broken" if in_use else "note"
        whom = waiver.candidate or "every candidate"
        found.append(
            WatchFinding(
                kind="waiver",
                candidate=waiver.candidate,
                effect=effect,
                detail=f"the waiver of {waiver.check} for {whom} (approved by {waiver.approver}) "
                f"expired on {waiver.expires.isoformat()}"
                + (": the failure it waived stands again" if effect == "broken" else ""),
            )
        )
    for approval in spec.approvals:
        age = (as_of - approval.date).days
        if age > approval_max_days:
            found.append(
                WatchFinding(
                    kind="approval",
                    effect="degraded",
                    detail=f"the approval by {approval.name} ({approval.role}) of "
                    f"{approval.date.isoformat()} is {age} days old on {as_of.isoformat()}, over "
                    f"{approval_max_days}: the decision needs a new sign-off",
                )
            )
    return found


def spec_changes(old: PackSpec, new: PackSpec) -> list[WatchFinding]:
    """Today's traffic and SLO (``new``) against the pack's (``old``)."""
    found = []
    peak_old, peak_new = old.traffic.peak_requests_per_s, new.traffic.peak_requests_per_s
    covered = peak_old * (1 + old.headroom)
    if peak_new > covered:
        found.append(
            WatchFinding(
                kind="traffic",
                effect="broken",
                detail=f"the peak grew from {peak_old:g} to {peak_new:g} requests/s, past the "
                f"{covered:g} the decision sized for ({old.headroom:.0%} headroom)",
            )
        )
    elif peak_new > peak_old:
        found.append(
            WatchFinding(
                kind="traffic",
                effect="degraded",
                detail=f"the peak grew from {peak_old:g} to {peak_new:g} requests/s, within the "
                f"{covered:g} the decision sized for: the headroom is smaller",
            )
        )
    for side in ("input_tokens", "output_tokens"):
        before = getattr(old.traffic, side).mean
        after = getattr(new.traffic, side).mean
        if after > before * 1.1:
            found.append(
                WatchFinding(
                    kind="traffic",
                    effect="degraded",
                    detail=f"mean {side.replace('_', ' ')} grew from {before:g} to {after:g}: "
                    "the runs the decision sized with had shorter requests",
                )
            )
    for limit in ("ttft_p99_ms", "tpot_p99_ms", "e2e_p99_ms", "max_error_rate"):
        before, after = getattr(old.slo, limit), getattr(new.slo, limit)
        if after is not None and (before is None or after < before):
            found.append(
                WatchFinding(
                    kind="slo",
                    effect="degraded",
                    detail=f"the SLO's {limit} tightened from {before} to {after}: the new run "
                    "is judged on the new limit",
                )
            )
    return found
