"""Assemble the decision: run every analysis over each candidate's evidence, apply waivers,
pick the recommendation by the spec's objective, check the chosen candidate, list the claims.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Literal

from .. import __version__
from ..pack.layout import SPEC_PATH
from ..spec import Candidate, PackSpec
from .capacity import size_candidate
from .check_base import CandidateContext
from .checklist import per_accelerator, stack_matches
from .checks import DECISION, run_checks
from .claims import claims_for
from .comparability import compare, envelope_for
from .cost import cost_of
from .evidence import CandidateEvidence, Conditions, ReferenceEvidence
from .models import (
    CandidateVerdict,
    Capacity,
    CheckResult,
    Claim,
    ComparabilityRow,
    Cost,
    DecisionDocument,
    EvidenceLink,
    Finding,
    InputFile,
    MlperfReference,
    Quality,
    Status,
)
from .provenance_checks import data_findings
from .quality import judge_score_sets
from .waivers import apply_waivers, rejected_waivers


def decide(
    spec: PackSpec,
    spec_sha256: str,
    evidence: Mapping[str, CandidateEvidence],
    inputs: Sequence[InputFile],
    *,
    as_of: dt.date | None = None,
) -> DecisionDocument:
    """The whole analysis of a pack. ``as_of`` (default: the decision date) dates the waivers."""
    as_of = as_of or spec.decision.date
    spec_link = EvidenceLink(row="spec", file_sha256=spec_sha256, pack_path=SPEC_PATH)
    rows: list[ComparabilityRow] = []
    capacities: list[Capacity] = []
    costs: list[Cost] = []
    qualities: list[Quality] = []
    references: list[MlperfReference] = []
    checks: list[CheckResult] = []
    claims: list[Claim] = []
    findings: list[Finding] = []
    for candidate in spec.candidates:
        ev = evidence.get(candidate.id, CandidateEvidence(candidate.id))
        envelope = envelope_for(spec, candidate)
        mine = [
            compare(r.id, "run", candidate.id, envelope, r.observed, r.declared) for r in ev.runs
        ]
        mine += [
            compare(s.id, "scores", candidate.id, envelope, s.observed, s.declared)
            for s in ev.scores
        ]
        mine += [
            compare(
                ref.key,
                "mlperf",
                candidate.id,
                Conditions(
                    precision=envelope.precision,
                    runtime=envelope.runtime,
                    runtime_version=envelope.runtime_version,
                    hardware=envelope.hardware,
                ),
                Conditions(
                    precision=ref.precision,
                    runtime=ref.runtime,
                    runtime_version=ref.runtime_version,
                    hardware=ref.accelerator,
                ),
                Conditions(),
            )
            for ref in ev.references
        ]
        rows += mine
        points = [r.point for r in ev.runs]
        if _waiver_names(spec, "PROV-DATA", candidate.id, as_of):
            # A current waiver of PROV-DATA admits the runs its findings would exclude.
            points = [dataclasses.replace(p, excluded=None, invalid=None) for p in points]
        capacity = size_candidate(spec, candidate, points)
        op = next(
            (lp for lp in capacity.load_points if lp.run == capacity.operating_point_run), None
        )
        repeats = [
            lp
            for lp in capacity.load_points
            if op is not None
            and lp.meets_slo
            and (lp.offered_rate_rps, lp.concurrency) == (op.offered_rate_rps, op.concurrency)
        ]
        cost = cost_of(spec, candidate, capacity, repeats)
        quality = judge_score_sets(spec, candidate.id, ev.scores)
        capacities.append(capacity)
        costs.append(cost)
        qualities.append(quality)
        references += [_reference(spec, candidate, ref, capacity) for ref in ev.references]
        found = data_findings(candidate.id, ev)
        findings += found
        context = CandidateContext(spec, candidate, ev, mine, capacity, quality, found)
        checks += run_checks(context)
        claims += claims_for(candidate, ev, capacity, cost, quality, spec_link)

    used: set[int] = set()
    checks, applied = apply_waivers(spec, checks, as_of, used)
    verdicts = [
        _verdict(spec.candidate(c.id), checks, cap, cost, q)
        for c, cap, cost, q in zip(spec.candidates, capacities, costs, qualities, strict=True)
    ]
    recommendation = _recommend(spec, verdicts, qualities)
    decision_check = _decision_check(spec, verdicts, recommendation)
    waived_decision, more_applied = apply_waivers(spec, [decision_check], as_of, used)
    checks += waived_decision
    applied += more_applied
    rejected = rejected_waivers(spec, as_of, used)
    verdict: Literal["PASS", "FAIL"] = "FAIL" if any(c.blocking for c in checks) else "PASS"
    return DecisionDocument(
        tool_version=__version__,
        spec_sha256=spec_sha256,
        decision_id=spec.decision.id,
        question=spec.decision.question,
        owner=spec.decision.owner,
        as_of=as_of,
        objective=spec.objective,
        recommendation=recommendation,
        chosen=spec.chosen,
        chosen_agrees=None if spec.chosen is None else spec.chosen == recommendation,
        verdict=verdict,
        summary=_summary(spec, verdicts, recommendation, verdict, checks),
        candidates=tuple(verdicts),
        checks=tuple(checks),
        comparability=tuple(rows),
        capacity=tuple(capacities),
        cost=tuple(costs),
        quality=tuple(qualities),
        references=tuple(references),
        claims=tuple(claims),
        findings=tuple(findings),
        waivers_applied=tuple(applied),
        waivers_rejected=tuple(rejected),
        inputs=tuple(sorted(inputs, key=lambda f: f.pack_path)),
        spec=spec,
    )


def _waiver_names(spec: PackSpec, check_id: str, candidate: str, as_of: dt.date) -> bool:
    return any(
        w.check == check_id and w.candidate in (None, candidate) and w.expires >= as_of
        for w in spec.waivers
    )


def _reference(
    spec: PackSpec, candidate: Candidate, ref: ReferenceEvidence, capacity: Capacity
) -> MlperfReference:
    matches, _ = stack_matches(ref, candidate)
    value = per_accelerator(ref)
    discount = 0.0 if matches else spec.stack_mismatch_discount
    discounted = value * (1 - discount) if value is not None else None
    measured = capacity.output_tokens_per_s_at_op
    per_acc = measured / candidate.hardware.accelerators_per_replica if measured else None
    return MlperfReference(
        candidate=candidate.id,
        key=ref.key,
        round=ref.round,
        scenario=ref.scenario,
        benchmark=ref.benchmark,
        validity=ref.validity,
        system=ref.system,
        accelerator=ref.accelerator,
        accelerators_total=ref.accelerators_total,
        headline_value=ref.headline_value,
        headline_unit=ref.headline_unit,
        per_accelerator_value=value,
        stack_runtime=" ".join(x for x in (ref.runtime, ref.runtime_version) if x) or None,
        stack_precision=ref.precision,
        stack_matches=matches,
        discount=discount,
        discounted_per_accelerator_value=discounted,
        measured_ratio=(value / per_acc) if value is not None and per_acc else None,
        accuracy=dict(ref.accuracy),
    )


def _verdict(
    candidate: Candidate,
    checks: Sequence[CheckResult],
    capacity: Capacity,
    cost: Cost,
    quality: Quality,
) -> CandidateVerdict:
    failed = [
        c for c in checks if c.candidate == candidate.id and c.status == "FAIL" and c.waived is None
    ]
    reasons = [f"{c.id}: {c.reason}" for c in failed]
    eligible = not failed and capacity.accelerators is not None
    if capacity.accelerators is None and not any(c.id == "SLO-MET" for c in failed):
        reasons.append(capacity.reason)
    return CandidateVerdict(
        id=candidate.id,
        accelerator=candidate.hardware.accelerator,
        stack=f"{candidate.stack.runtime} {candidate.stack.version} {candidate.stack.precision}",
        eligible=eligible,
        accelerators_needed=capacity.accelerators,
        servers_needed=capacity.servers,
        cost_per_million_output_tokens=cost.per_million_output_tokens,
        cost_per_month=cost.per_month,
        cost_per_year=cost.per_year,
        accelerators_billed=cost.accelerators_billed,
        currency=cost.currency,
        quality_estimate=quality.estimate,
        quality_meets_bar=quality.meets_bar,
        failed_checks=tuple(sorted({c.id for c in failed})),
        reasons=tuple(reasons),
    )


def _recommend(
    spec: PackSpec, verdicts: Sequence[CandidateVerdict], qualities: Sequence[Quality]
) -> str | None:
    judged = {q.candidate: q.judged_value or 0.0 for q in qualities}
    eligible = [v for v in verdicts if v.eligible]
    if not eligible:
        return None
    big = float("inf")
    if spec.objective == "fewest_accelerators":
        best = min(
            eligible, key=lambda v: (v.accelerators_needed or big, v.cost_per_month or big, v.id)
        )
    elif spec.objective == "highest_quality":
        sign = -1 if spec.scoring.direction == "higher_is_better" else 1
        best = min(eligible, key=lambda v: (sign * judged[v.id], v.cost_per_month or big, v.id))
    else:
        best = min(
            eligible,
            key=lambda v: (v.cost_per_month or big, v.cost_per_million_output_tokens or big, v.id),
        )
    return best.id


def _decision_check(
    spec: PackSpec, verdicts: Sequence[CandidateVerdict], recommendation: str | None
) -> CheckResult:
    def check(status: Status, reason: str) -> CheckResult:
        return DECISION.result(None, status, reason)

    by_id = {v.id: v for v in verdicts}
    if recommendation is None:
        return check(
            "FAIL",
            "no candidate is eligible: "
            + "; ".join(
                f"{v.id} ({', '.join(v.failed_checks) or 'no capacity'})" for v in verdicts
            ),
        )
    if spec.chosen is None:
        return check(
            "PASS",
            f"recommendation {recommendation} by {spec.objective}; the spec "
            "names no chosen candidate",
        )
    chosen = by_id[spec.chosen]
    if not chosen.eligible:
        return check(
            "FAIL",
            f"the chosen candidate {spec.chosen} is not eligible: " + "; ".join(chosen.reasons),
        )
    if spec.chosen != recommendation:
        best = by_id[recommendation]
        return check(
            "WARN",
            f"the chosen candidate {spec.chosen} differs from the "
            f"recommendation {recommendation} by {spec.objective} "
            f"({_money(chosen)} vs {_money(best)} per month)",
        )
    return check(
        "PASS", f"the chosen candidate {spec.chosen} is the recommendation by {spec.objective}"
    )


def _money(v: CandidateVerdict) -> str:
    return f"{v.cost_per_month:,.0f} {v.currency}" if v.cost_per_month is not None else "n/a"


def _units(v: CandidateVerdict) -> str:
    """What is bought: ``9 accelerators needed, 16 paid for on 2 server(s)``."""
    text = f"{v.accelerators_needed} accelerators needed"
    if v.accelerators_billed is not None and v.accelerators_billed != v.accelerators_needed:
        text += f", {v.accelerators_billed} paid for"
    return text + f" on {v.servers_needed} server(s)"


def _summary(
    spec: PackSpec,
    verdicts: Sequence[CandidateVerdict],
    recommendation: str | None,
    verdict: str,
    checks: Sequence[CheckResult],
) -> str:
    blocking = sorted(
        {f"{c.id}" + (f" ({c.candidate})" if c.candidate else "") for c in checks if c.blocking}
    )
    if recommendation is None:
        text = "No candidate is eligible."
    else:
        v = next(x for x in verdicts if x.id == recommendation)
        text = (
            f"Recommend {v.id}: {_units(v)}, {_money(v)} per month, "
            f"{v.cost_per_million_output_tokens:.2f} {v.currency} per 1M output tokens."
        )
        if spec.chosen is not None:
            text += (
                " The chosen candidate agrees."
                if spec.chosen == recommendation
                else f" The spec chose {spec.chosen}."
            )
    if verdict == "FAIL":
        text += f" Blocking checks: {', '.join(blocking)}."
    return text
