"""Assemble the decision: run every analysis over each candidate's evidence, apply waivers,
pick the recommendation by the spec's objective, check the chosen candidate, list the claims.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import __version__
from ..intake.records import SPEC_PATH, InputFile
from ..spec.api import API_HARDWARE
from ..spec.models import Candidate, PackSpec
from ..spec.plan import RegisteredPlan
from .candidate import CandidateAnalysis, analyse_candidate, shared_files
from .checks import DECISION
from .evidence import CandidateEvidence
from .governance import governance_check
from .judgements import Robustness
from .models import (
    CandidateVerdict,
    CheckResult,
    Claim,
    DecisionDocument,
    EvidenceLink,
    Quality,
    Status,
    Verdict,
    Waived,
)
from .plan_check import plan_check
from .price_read import PricedFrom
from .ranking import IDS_SHOWN, id_list, ranked_verdicts
from .record import CandidateRecord, document_lists, price_claim_id
from .robustness import robustness
from .tco import on_basis, summarise
from .waivers import apply_waivers, rejected_waivers


@dataclass(frozen=True)
class Decision:
    """The analysis of a pack: one record per candidate, and ``decision.json`` made from them."""

    document: DecisionDocument
    records: tuple[CandidateRecord, ...]
    """One per candidate, in the spec's order: what the report renders."""


def decide(
    spec: PackSpec,
    spec_sha256: str,
    evidence: Mapping[str, CandidateEvidence],
    inputs: Sequence[InputFile],
    *,
    as_of: dt.date | None = None,
    written: PackSpec | None = None,
    priced: Mapping[str, PricedFrom] | None = None,
    plan: RegisteredPlan | None = None,
) -> Decision:
    """The whole analysis of a pack. ``as_of`` (default: the decision date) dates the waivers;
    ``written`` is the spec as the pack records it when ``spec`` carries rates read from cited
    price files (``priced``: the file each was read from); ``plan``, the registered plan the
    spec is held against (check PLAN)."""
    as_of = as_of or spec.decision.date
    written = written or spec
    priced = priced or {}
    spec_link = EvidenceLink(row="spec", file_sha256=spec_sha256, pack_path=SPEC_PATH)
    shared = shared_files(evidence)
    analyses = [
        analyse_candidate(
            spec,
            candidate,
            evidence.get(candidate.id, CandidateEvidence(candidate.id)),
            shared,
            spec_link,
        )
        for candidate in spec.candidates
    ]
    used: set[int] = set()
    applied: list[Waived] = []
    waived: list[tuple[CheckResult, ...]] = []
    for a in analyses:
        mine, got = apply_waivers(spec, a.checks, as_of, used)
        waived.append(tuple(mine))
        applied += got
    checks = [check for mine in waived for check in mine]
    verdicts = [_verdict(spec, a, mine) for a, mine in zip(analyses, waived, strict=True)]
    recommendation = _recommend(spec, verdicts, [a.quality for a in analyses])
    bases = summarise(
        spec,
        [b for a in analyses for b in a.bases],
        [a.energy for a in analyses if a.energy is not None],
        [v.id for v in verdicts if v.eligible],
        [f for a in analyses for f in a.measured_energy],
    )
    robust = robustness(spec, analyses, checks, recommendation)
    decision_check = _decision_check(spec, verdicts, recommendation, robust)
    # GOVERNANCE judges the waivers themselves: no waiver covers it (nor DECISION's FAIL).
    whole = [decision_check, governance_check(spec, evidence)]
    if plan is not None:
        whole.insert(0, plan_check(written, plan, evidence))
    waived_decision, more_applied = apply_waivers(spec, whole, as_of, used)
    checks += waived_decision
    applied += more_applied
    rejected = rejected_waivers(spec, as_of, used, checks)
    verdict = _overall(spec, checks, recommendation)
    records = tuple(
        _record(a, v, mine, written, priced.get(a.candidate.id))
        for a, v, mine in zip(analyses, verdicts, waived, strict=True)
    )
    lists = document_lists(records)
    document = DecisionDocument.model_validate(
        {
            **lists,
            "tool_version": __version__,
            "spec_sha256": spec_sha256,
            "decision_id": spec.decision.id,
            "question": spec.decision.question,
            "owner": spec.decision.owner,
            "as_of": as_of,
            "objective": spec.objective,
            "recommendation": recommendation,
            "chosen": spec.chosen,
            "chosen_agrees": None if spec.chosen is None else spec.chosen == recommendation,
            "verdict": verdict,
            "summary": _summary(spec, verdicts, recommendation, verdict, checks),
            "checks": lists["checks"] + tuple(waived_decision),
            "robustness": robust,
            "cost_bases": bases,
            "waivers_applied": tuple(applied),
            "waivers_rejected": tuple(rejected),
            "inputs": tuple(sorted(inputs, key=lambda f: f.pack_path)),
            "spec": written,
        }
    )
    return Decision(document=document, records=records)


def _record(
    analysis: CandidateAnalysis,
    verdict: CandidateVerdict,
    checks: tuple[CheckResult, ...],
    written: PackSpec,
    source: PricedFrom | None,
) -> CandidateRecord:
    """One candidate's record: the analysis with its verdict, waived checks and price source."""
    cid = analysis.candidate.id
    return CandidateRecord(
        verdict=verdict,
        candidate=written.candidate(cid),
        price=analysis.candidate.price,
        price_claim=None if source is None else _price_claim(analysis.candidate, source),
        capacity=analysis.capacity,
        cost=analysis.cost,
        quality=analysis.quality,
        bases=analysis.bases,
        references=analysis.references,
        public=analysis.public,
        training=analysis.training,
        comparability=analysis.rows,
        fits=analysis.fits,
        findings=analysis.findings,
        checks=checks,
        claims=analysis.claims,
    )


def _price_claim(candidate: Candidate, source: PricedFrom) -> Claim:
    """The rate read from a cited price file, linked to that file's digest."""
    price = candidate.price
    statement = f"price per accelerator-hour read from {source.summary}"
    value, unit = price.per_accelerator_hour, f"{price.currency}/accelerator-hour"
    if candidate.api is not None:
        statement = f"price per 1M output tokens read from {source.summary}"
        value, unit = candidate.api.prices.output_per_million, f"{price.currency}/1M tokens"
    return Claim(
        id=price_claim_id(candidate.id),
        kind="inherited",
        candidate=candidate.id,
        statement=statement,
        value=value,
        unit=unit,
        evidence=(
            EvidenceLink(
                row=source.file.spec_path,
                file_sha256=source.file.sha256,
                pack_path=source.file.pack_path,
            ),
        ),
    )


def _overall(spec: PackSpec, checks: Sequence[CheckResult], recommendation: str | None) -> Verdict:
    """FAIL on a blocking check or without a recommendation; PASS WITH WAIVERS when any waiver
    (of a failure or a warning) applies to the recommended or chosen candidate (or the
    decision); else PASS."""
    if recommendation is None or any(c.blocking for c in checks):
        return "FAIL"
    concerned = {None, recommendation, spec.chosen}
    if any(c.waived is not None and c.candidate in concerned for c in checks):
        return "PASS WITH WAIVERS"
    return "PASS"


def _verdict(
    spec: PackSpec, analysis: CandidateAnalysis, mine: Sequence[CheckResult]
) -> CandidateVerdict:
    """One candidate's standing from its own checks (waivers applied)."""
    candidate, capacity, cost, quality = (
        analysis.candidate,
        analysis.capacity,
        analysis.cost,
        analysis.quality,
    )
    failed = [c for c in mine if c.status == "FAIL" and c.waived is None]
    reasons = [f"{c.id}: {c.reason}" for c in failed]
    eligible = not failed and capacity.accelerators is not None
    if capacity.accelerators is None and not any(c.id == "SLO-MET" for c in failed):
        reasons.append(capacity.reason)
    waived = [_waiver_note(c, quality) for c in mine if c.status == "FAIL" and c.waived]
    basis = on_basis(analysis.bases, spec.cost_basis)
    return CandidateVerdict(
        id=candidate.id,
        accelerator=candidate.hardware.accelerator,
        stack=f"{candidate.stack.runtime} {candidate.stack.version} {candidate.stack.precision}",
        eligible=eligible,
        accelerators_needed=capacity.accelerators,
        servers_needed=capacity.servers,
        cost_per_million_output_tokens=basis.per_million_output_tokens if basis else None,
        cost_per_month=basis.per_month if basis else None,
        cost_per_year=basis.per_year if basis else None,
        accelerators_billed=cost.accelerators_billed,
        currency=basis.currency if basis else cost.currency,
        quality_estimate=quality.estimate,
        quality_meets_bar=quality.meets_bar,
        failed_checks=tuple(sorted({c.id for c in failed})),
        reasons=tuple(reasons),
        waived_checks=tuple(sorted({c.id for c in mine if c.status == "FAIL" and c.waived})),
        waivers=tuple(waived),
    )


def _waiver_note(check: CheckResult, quality: Quality) -> str:
    """A waived failure in words, with the measured figure beside the bar for QUALITY."""
    waiver = check.waived
    assert waiver is not None
    text = f"{check.id} waived by {waiver.approver} until {waiver.expires}: {waiver.reason}"
    if check.id == "QUALITY":
        measured = f"{quality.judged_value:.4g}" if quality.judged_value is not None else "nothing"
        text += (
            f" (measured {quality.metric} {measured} on {quality.judged_on.replace('_', ' ')} "
            f"against the bar {quality.bar_threshold:g}: the bar is NOT met)"
        )
    else:
        text += f" (it failed: {check.reason})"
    return text


def _recommend(
    spec: PackSpec, verdicts: Sequence[CandidateVerdict], qualities: Sequence[Quality]
) -> str | None:
    higher = spec.scoring.direction == "higher_is_better"
    order = ranked_verdicts(spec.objective, higher, verdicts, qualities)
    return order[0] if order else None


def _decision_check(
    spec: PackSpec,
    verdicts: Sequence[CandidateVerdict],
    recommendation: str | None,
    robust: Robustness,
) -> CheckResult:
    """DECISION: a candidate is eligible and the chosen one is it (WARN: the chosen one differs
    from the recommendation, or the candidates are billed on different bases)."""
    by_id = {v.id: v for v in verdicts}
    if recommendation is None:
        return DECISION.result(
            None,
            "FAIL",
            "no candidate is eligible: "
            + "; ".join(
                f"{v.id} ({', '.join(v.failed_checks) or 'no capacity'})" for v in verdicts
            ),
        )
    status: Status = "PASS"
    if spec.chosen is None:
        reason = (
            f"recommendation {recommendation} by {spec.objective}; the spec names no chosen "
            "candidate"
        )
    elif not by_id[spec.chosen].eligible:
        return DECISION.result(
            None,
            "FAIL",
            f"the chosen candidate {spec.chosen} is not eligible: "
            + "; ".join(by_id[spec.chosen].reasons),
        )
    elif spec.chosen != recommendation:
        departs = (
            f"the chosen candidate {spec.chosen} differs from the recommendation "
            f"{recommendation} by {spec.objective} ({_money(by_id[spec.chosen])} vs "
            f"{_money(by_id[recommendation])} per month)"
        )
        if spec.chosen_reason is None:
            return DECISION.result(
                None,
                "FAIL",
                f"{departs} and the spec records no chosen_reason: a choice that departs from "
                "the recommendation states why",
            )
        status = "WARN"
        reason = f"{departs}; the reason recorded: {spec.chosen_reason}"
    else:
        reason = f"the chosen candidate {spec.chosen} is the recommendation by {spec.objective}"
    if robust.mixed_billing:
        status = "WARN"
        bases = _billing(robust.billing)
        rankings = "; ".join(
            f"all billed per {basis}: {id_list(order, ' > ') or 'none eligible'}"
            for basis, order in sorted(robust.common_basis.items())
        )
        reason += f"; the candidates are billed on different bases ({bases}): {rankings}"
    sentence = robust.sentence[:1].upper() + robust.sentence[1:]
    return DECISION.result(None, status, f"{reason}. {sentence}")


def _billing(billing: dict[str, str]) -> str:
    """Each candidate's billing basis, or past ``IDS_SHOWN`` candidates how many per basis."""
    if len(billing) <= IDS_SHOWN:
        return ", ".join(f"{cid} per {basis}" for cid, basis in sorted(billing.items()))
    counts = Counter(billing.values())
    return ", ".join(f"{counts[basis]} per {basis}" for basis in sorted(counts))


def _money(v: CandidateVerdict) -> str:
    return f"{v.cost_per_month:,.0f} {v.currency}" if v.cost_per_month is not None else "n/a"


def _units(v: CandidateVerdict) -> str:
    """What is bought: ``9 accelerators needed, 16 paid for on 2 server(s)``, or for a hosted
    API ``5 accounts needed at its rate limits``."""
    if v.accelerator.startswith(API_HARDWARE):
        return f"{v.accelerators_needed} API account(s) needed at its rate limits"
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
