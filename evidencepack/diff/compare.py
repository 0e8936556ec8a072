"""Compare two decisions: inputs, run conditions, checks, figures, and whether the decision holds.

Works on two ``DecisionDocument`` values (each pack's ``decision.json``, which embeds its spec)
and never re-reads an input. The decision holds when the recommendation and the chosen candidate
are unchanged, the chosen candidate is still eligible, no hard check newly fails, and no
``--fail-on-*`` threshold is breached.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..analyze.judgements import COST_BASIS
from ..analyze.models import CandidateVerdict, CheckResult, DecisionDocument, Quality
from ..spec.models import Candidate, PackSpec
from .models import (
    CandidateDiff,
    Change,
    CheckChange,
    DiffDocument,
    FieldChange,
    InputChange,
    Outcome,
    PackSide,
    StackChange,
    Threshold,
)

STACK_SECTIONS = ("stack", "hardware", "price", "description", "api")
"""A candidate's run conditions; its ``evidence`` shows up as input changes instead."""
SPEC_SKIPPED = ("candidates", "envelope")
"""Spec sections reported on their own (stacks, envelope)."""


@dataclass(frozen=True)
class Thresholds:
    """``--fail-on-cost-increase`` / ``--fail-on-capacity-loss`` as fractions (0.1 = 10%)."""

    cost_increase: float | None = None
    capacity_loss: float | None = None


def change(old: float | None, new: float | None) -> Change:
    """``old -> new`` with the absolute and relative change (relative to ``|old|``)."""
    absolute = None if old is None or new is None else new - old
    relative = None
    if absolute is not None and old:
        relative = absolute / abs(old)
    return Change(old=old, new=new, absolute=absolute, relative=relative)


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Dotted path -> text for every leaf of a JSON-like value (lists by index)."""
    if isinstance(value, Mapping):
        for key in sorted(value):
            yield from _flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _flatten(item, f"{prefix}[{index}]")
    elif value is not None:
        yield prefix, str(value)


def field_changes(old: Any, new: Any, prefix: str = "") -> tuple[FieldChange, ...]:
    """Every leaf that differs between two JSON-like values, by dotted path."""
    before, after = dict(_flatten(old, prefix)), dict(_flatten(new, prefix))
    return tuple(
        FieldChange(field=name, old=before.get(name), new=after.get(name))
        for name in sorted(before.keys() | after.keys())
        if before.get(name) != after.get(name)
    )


def _json(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True)


def input_changes(old: DecisionDocument, new: DecisionDocument) -> tuple[InputChange, ...]:
    """Inputs added, removed or changed, matched by pack path, role and candidate."""
    before = {(f.pack_path, f.role, f.candidate): f for f in old.inputs}
    after = {(f.pack_path, f.role, f.candidate): f for f in new.inputs}
    out = []
    for key in sorted(before.keys() | after.keys(), key=lambda k: (k[2] or "", k[1], k[0])):
        a, b = before.get(key), after.get(key)
        if a is not None and b is not None and a.sha256 == b.sha256:
            continue
        out.append(
            InputChange(
                change="added" if a is None else "removed" if b is None else "changed",
                pack_path=key[0],
                role=key[1],
                candidate=key[2],
                old_sha256=a.sha256 if a else None,
                new_sha256=b.sha256 if b else None,
                old_size_bytes=a.size_bytes if a else None,
                new_size_bytes=b.size_bytes if b else None,
            )
        )
    return tuple(out)


def stack_text(candidate: Candidate) -> str:
    """``vllm 0.9.2 fp8 on 1x MI325X (1 per replica), 2.90 USD/h``: the stack in one line."""
    s, h, p = candidate.stack, candidate.hardware, candidate.price
    if (api := candidate.api) is not None:
        q = api.prices
        if q.focus is not None and not q.known():
            return (
                f"{api.provider} {api.model} {api.version} (hosted API), prices per 1M tokens "
                f"read from {q.focus.path}"
            )
        return (
            f"{api.provider} {api.model} {api.version} (hosted API), {q.input_per_million:g} / "
            f"{q.output_per_million:g} {q.currency} per 1M input / output tokens"
        )
    return (
        f"{s.runtime} {s.version} {s.precision} on {h.nodes}x{h.accelerators_per_node} "
        f"{h.accelerator} ({h.accelerators_per_replica} per replica), "
        f"{p.per_accelerator_hour:g} {p.currency}/accelerator-hour"
    )


def stack_changes(old: PackSpec, new: PackSpec) -> tuple[StackChange, ...]:
    """Each candidate whose stack, hardware, price or description changed, was added or removed."""
    before = {c.id: c for c in old.candidates}
    after = {c.id: c for c in new.candidates}
    out = []
    for cid in [c.id for c in old.candidates] + [c for c in after if c not in before]:
        a, b = before.get(cid), after.get(cid)
        if a is None or b is None:
            out.append(
                StackChange(
                    candidate=cid,
                    change="added" if a is None else "removed",
                    old=stack_text(a) if a else None,
                    new=stack_text(b) if b else None,
                )
            )
            continue
        fields = field_changes(
            {k: _json(a)[k] for k in STACK_SECTIONS}, {k: _json(b)[k] for k in STACK_SECTIONS}
        )
        if fields:
            out.append(
                StackChange(
                    candidate=cid,
                    change="changed",
                    old=stack_text(a),
                    new=stack_text(b),
                    fields=fields,
                )
            )
    return tuple(out)


def _check_key(check: CheckResult) -> tuple[str, str]:
    return (check.id, check.candidate or "")


def check_changes(old: DecisionDocument, new: DecisionDocument) -> tuple[CheckChange, ...]:
    """Each check whose status or waiver changed, or that one pack has and the other not."""
    before = {_check_key(c): c for c in old.checks}
    after = {_check_key(c): c for c in new.checks}
    order = [_check_key(c) for c in old.checks] + [k for k in after if k not in before]
    out = []
    for key in order:
        a, b = before.get(key), after.get(key)
        same_status = a is not None and b is not None and a.status == b.status
        if same_status and (a.waived is None) == (b.waived is None):  # type: ignore[union-attr]
            continue
        out.append(
            CheckChange(
                id=key[0],
                candidate=key[1] or None,
                hard=(b or a).hard,  # type: ignore[union-attr]
                old_status=a.status if a else None,
                new_status=b.status if b else None,
                old_reason=a.reason if a else None,
                new_reason=b.reason if b else None,
                old_waived=bool(a and a.waived),
                new_waived=bool(b and b.waived),
                newly_blocking=bool(b and b.blocking and not (a and a.blocking)),
            )
        )
    return tuple(out)


def _quality(decision: DecisionDocument, verdict: CandidateVerdict) -> Quality | None:
    """The quality row behind the verdict's estimate (the first one if several match)."""
    rows = [q for q in decision.quality if q.candidate == verdict.id]
    matching = [q for q in rows if q.estimate == verdict.quality_estimate]
    return next(iter(matching or rows), None)


@dataclass(frozen=True)
class _Figures:
    eligible: bool
    currency: str
    values: dict[str, float | None]


FIGURES = (
    "operating_point_rps",
    "accelerators",
    "servers",
    "cost_per_month",
    "cost_per_million_output_tokens",
    "quality_estimate",
    "quality_ci_low",
    "quality_ci_high",
)


def _figures(decision: DecisionDocument) -> dict[str, _Figures]:
    capacity = {c.candidate: c for c in decision.capacity}
    out = {}
    for verdict in decision.candidates:
        cap = capacity.get(verdict.id)
        quality = _quality(decision, verdict)
        out[verdict.id] = _Figures(
            eligible=verdict.eligible,
            currency=verdict.currency,
            values={
                "operating_point_rps": cap.operating_point_rps if cap else None,
                "accelerators": _num(verdict.accelerators_needed),
                "servers": _num(verdict.servers_needed),
                "cost_per_month": verdict.cost_per_month,
                "cost_per_million_output_tokens": verdict.cost_per_million_output_tokens,
                "quality_estimate": verdict.quality_estimate,
                "quality_ci_low": quality.ci_low if quality else None,
                "quality_ci_high": quality.ci_high if quality else None,
            },
        )
    return out


def _num(value: int | None) -> float | None:
    return None if value is None else float(value)


def candidate_diffs(old: DecisionDocument, new: DecisionDocument) -> tuple[CandidateDiff, ...]:
    """Per candidate: X*, accelerators, servers, cost, quality and eligibility, old -> new."""
    before, after = _figures(old), _figures(new)
    order = [v.id for v in old.candidates] + [v.id for v in new.candidates if v.id not in before]
    out = []
    for cid in order:
        a, b = before.get(cid), after.get(cid)
        values = {
            name: change(a.values[name] if a else None, b.values[name] if b else None)
            for name in FIGURES
        }
        out.append(
            CandidateDiff(
                id=cid,
                presence="both" if a and b else "added" if b else "removed",
                currency=b.currency if b else a.currency if a else None,
                old_eligible=a.eligible if a else None,
                new_eligible=b.eligible if b else None,
                **values,
            )
        )
    return tuple(out)


def _label(check: CheckChange) -> str:
    return f"{check.id}[{check.candidate}]" if check.candidate else check.id


def _threshold(
    name: str, limit: float | None, figure: str, diff: CandidateDiff | None, worse: int
) -> Threshold | None:
    """A threshold on ``figure`` of the chosen candidate; ``worse`` is +1 when a rise is bad."""
    if limit is None:
        return None
    seen = getattr(diff, figure).relative if diff else None
    breached = seen is not None and seen * worse > limit and not math.isclose(seen * worse, limit)
    return Threshold.model_validate(
        {
            "name": name,
            "limit": limit,
            "figure": figure,
            "candidate": diff.id if diff else None,
            "change": seen,
            "breached": breached,
        }
    )


def outcome(
    old: DecisionDocument,
    new: DecisionDocument,
    checks: tuple[CheckChange, ...],
    candidates: tuple[CandidateDiff, ...],
    thresholds: Thresholds,
) -> Outcome:
    """Whether the decision holds, and every reason it does not."""
    reasons = []
    if old.recommendation != new.recommendation:
        reasons.append(
            f"the recommendation changed: {old.recommendation or 'none'} -> "
            f"{new.recommendation or 'none'}"
        )
    if old.chosen != new.chosen:
        reasons.append(f"the chosen candidate changed: {old.chosen} -> {new.chosen}")
    subject = new.chosen or new.recommendation
    verdicts = {v.id: v for v in new.candidates}
    eligible = verdicts[subject].eligible if subject in verdicts else None
    if subject is not None and not eligible:
        reasons.append(f"the chosen candidate {subject} is no longer eligible")
    if subject is None:
        reasons.append("no candidate is chosen or recommended in the new pack")
    blocking = tuple(_label(c) for c in checks if c.newly_blocking)
    if blocking:
        reasons.append(f"hard check(s) newly failing: {', '.join(blocking)}")
    diff = next((c for c in candidates if c.id == subject), None)
    limits = [
        _threshold("cost_increase", thresholds.cost_increase, "cost_per_month", diff, +1),
        _threshold("capacity_loss", thresholds.capacity_loss, "operating_point_rps", diff, -1),
    ]
    applied = tuple(t for t in limits if t is not None)
    for t in applied:
        if t.breached and t.change is not None:
            what = "cost per month rose" if t.name == "cost_increase" else "X* fell"
            reasons.append(
                f"{t.candidate}: {what} by {abs(t.change):.1%}, over the {t.limit:.1%} limit"
            )
    return Outcome(
        holds=not reasons,
        reasons=tuple(reasons),
        old_recommendation=old.recommendation,
        new_recommendation=new.recommendation,
        old_chosen=old.chosen,
        new_chosen=new.chosen,
        chosen_eligible=eligible,
        old_verdict=old.verdict,
        new_verdict=new.verdict,
        newly_blocking=blocking,
        thresholds=applied,
        old_margin=old.robustness.margin if old.robustness else None,
        new_margin=new.robustness.margin if new.robustness else None,
        new_holds_unless=new.robustness.sentence if new.robustness else None,
        basis_flips=basis_flips(old, new),
    )


def basis_flips(old: DecisionDocument, new: DecisionDocument) -> tuple[str, ...]:
    """Each cost basis whose cheapest eligible candidate changed, and each that flips the new
    call but did not flip the old one."""
    before = old.cost_bases.rankings if old.cost_bases else {}
    after = new.cost_bases.rankings if new.cost_bases else {}
    out = []
    for basis in sorted(before.keys() | after.keys()):
        first_old = next(iter(before.get(basis, ())), None)
        first_new = next(iter(after.get(basis, ())), None)
        if first_old != first_new:
            out.append(
                f"cheapest on {basis.replace('_', ' ')}: {first_old or 'none'} -> "
                f"{first_new or 'none'}"
            )

    def flipping(doc: DecisionDocument) -> dict[str, str]:
        flips = doc.robustness.flips if doc.robustness else ()
        return {f.change: f.becomes for f in flips if f.input == COST_BASIS and f.becomes}

    was = flipping(old)
    out += [
        f"{change} now flips the call to {becomes}"
        for change, becomes in flipping(new).items()
        if was.get(change) != becomes
    ]
    return tuple(out)


def _spec_changes(old: PackSpec, new: PackSpec) -> tuple[FieldChange, ...]:
    a, b = _json(old), _json(new)
    return field_changes(
        {k: v for k, v in a.items() if k not in SPEC_SKIPPED},
        {k: v for k, v in b.items() if k not in SPEC_SKIPPED},
    )


def compare(
    old: DecisionDocument,
    new: DecisionDocument,
    old_side: PackSide,
    new_side: PackSide,
    thresholds: Thresholds | None = None,
) -> DiffDocument:
    """The whole diff of two decisions."""
    checks = check_changes(old, new)
    candidates = candidate_diffs(old, new)
    inputs = input_changes(old, new)
    envelope = field_changes(_json(old.spec.envelope), _json(new.spec.envelope), "envelope")
    spec = _spec_changes(old.spec, new.spec)
    stacks = stack_changes(old.spec, new.spec)
    figures_same = all(
        getattr(c, name).old == getattr(c, name).new for c in candidates for name in FIGURES
    ) and all(c.old_eligible == c.new_eligible for c in candidates)
    return DiffDocument(
        old=old_side,
        new=new_side,
        compared=True,
        other_decision=old.decision_id != new.decision_id,
        identical=not (inputs or envelope or spec or stacks or checks) and figures_same,
        inputs=inputs,
        spec=spec,
        envelope=envelope,
        stacks=stacks,
        checks=checks,
        candidates=candidates,
        outcome=outcome(old, new, checks, candidates, thresholds or Thresholds()),
    )


def not_compared(
    old_side: PackSide,
    new_side: PackSide,
    problems: Iterable[str],
    reason: Literal["verification failed", "different decisions"] = "verification failed",
) -> DiffDocument:
    """The diff when nothing was compared: the sides, and why."""
    return DiffDocument(
        old=old_side,
        new=new_side,
        compared=False,
        not_compared_because=reason,
        problems=tuple(problems),
    )
