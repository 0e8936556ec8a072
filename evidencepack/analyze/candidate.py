"""One candidate analysed whole: the record ``decide`` builds per candidate.

``CandidateAnalysis`` holds everything worked out for one candidate (its comparability rows,
which evidence fits, capacity, cost at its price terms, quality, MLPerf references, findings,
checks and claims); ``decide`` builds one per candidate and the decision from all of them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..intake.records import in_spec
from ..spec.models import Candidate, PackSpec
from .capacity import RunPoint, conservative, per_replica, size_candidate
from .check_base import CandidateContext
from .checklist import per_accelerator, stack_matches
from .checks import run_checks
from .claims import claims_for
from .comparability import compare, compare_reference, envelope_for
from .cost import cost_of
from .coverage import score_findings
from .energy_evidence import measured_energy, measured_energy_claims
from .evidence import CandidateEvidence, Conditions, ReferenceEvidence
from .fit import judge_run, judge_scores
from .judgements import (
    BasisCost,
    EnergyFigure,
    EnergyUse,
    EvidenceFit,
    PublicReference,
    TrainingReference,
)
from .models import (
    Capacity,
    CheckResult,
    Claim,
    ComparabilityRow,
    Cost,
    EvidenceLink,
    Finding,
    MlperfReference,
    Quality,
)
from .price import PriceTerms, price_terms
from .provenance_checks import data_findings
from .public import public_claims, public_references
from .quality import judge_score_sets
from .reference_fit import ReferenceFit, judge_reference
from .score_fit import with_coverage
from .tco import basis_costs, energy_use, price_basis, tco_claims
from .training import training_claims, training_references

IDENTITY_CHECKS = ("C2", "C4", "C5", "PROV-MODEL", "FIT")
"""Checks whose PASS rests on which model and stack the evidence is of: marked ``declared``
when that identity comes only from the spec's declared values."""


@dataclass(frozen=True)
class CandidateAnalysis:
    """Everything the analysis worked out for one candidate."""

    candidate: Candidate
    evidence: CandidateEvidence
    fitting: CandidateEvidence
    rows: tuple[ComparabilityRow, ...]
    fits: tuple[EvidenceFit, ...]
    points: tuple[RunPoint, ...]
    """The fitting runs' load points per replica, as sizing read them."""
    capacity: Capacity
    price: PriceTerms
    cost: Cost
    energy: EnergyUse | None
    measured_energy: tuple[EnergyFigure, ...]
    """Measured energy cited as evidence (ML.ENERGY points), each judged against the
    candidate; never in the cost."""
    bases: tuple[BasisCost, ...]
    """The cost on every basis the candidate states, the quoted price's first."""
    quality: Quality
    references: tuple[MlperfReference, ...]
    public: tuple[PublicReference, ...]
    training: tuple[TrainingReference, ...]
    findings: tuple[Finding, ...]
    checks: tuple[CheckResult, ...]
    claims: tuple[Claim, ...]


def shared_files(evidence: Mapping[str, CandidateEvidence]) -> dict[str, tuple[str, ...]]:
    """Each run or score file (one a run or score set was read from) whose bytes several
    candidates cite, and the candidates citing them."""
    read = {item.file.sha256 for ev in evidence.values() for item in ev.items()}
    read |= {also.sha256 for ev in evidence.values() for run in ev.runs for also in run.also}
    citing: dict[str, set[str]] = {}
    for cid, ev in evidence.items():
        for _, _, file in ev.cited:
            if file.sha256 in read:
                citing.setdefault(file.sha256, set()).add(cid)
    return {digest: tuple(sorted(c)) for digest, c in citing.items() if len(c) > 1}


def analyse_candidate(
    spec: PackSpec,
    candidate: Candidate,
    ev: CandidateEvidence,
    shared: Mapping[str, Sequence[str]],
    spec_link: EvidenceLink,
) -> CandidateAnalysis:
    """One candidate's whole analysis. A waiver covers a check's result, never the evidence:
    no waiver admits a run its data findings or its tool's INVALID verdict keep out."""
    envelope = envelope_for(spec, candidate)
    tolerance = spec.fit.token_tolerance
    run_rows = [
        compare(r.id, "run", candidate.id, envelope, r.observed, r.declared, tolerance)
        for r in ev.runs
    ]
    score_rows = [
        compare(s.id, "scores", candidate.id, envelope, s.observed, s.declared, tolerance)
        for s in ev.scores
    ]
    rows = [
        *run_rows,
        *score_rows,
        *(_reference_row(candidate.id, envelope, r) for r in ev.references),
    ]
    run_fits = [
        judge_run(spec, candidate, r, row, shared) for r, row in zip(ev.runs, run_rows, strict=True)
    ]
    score_fits = [
        with_coverage(spec, s, judge_scores(spec, candidate, s, row, shared), ev.dataset)
        for s, row in zip(ev.scores, score_rows, strict=True)
    ]
    fitting = dataclasses.replace(
        ev,
        runs=[r for r, f in zip(ev.runs, run_fits, strict=True) if f.fits],
        scores=[s for s, f in zip(ev.scores, score_fits, strict=True) if f.fits],
    )
    points = [
        conservative(per_replica(r.point, f.replicas or 1), spec.fit.min_requests_for_p99)
        for r, f in zip(ev.runs, run_fits, strict=True)
        if f.fits
    ]
    capacity = size_candidate(spec, candidate, points)
    op = next((lp for lp in capacity.load_points if lp.run == capacity.operating_point_run), None)
    repeats = [
        lp
        for lp in capacity.load_points
        if op is not None
        and lp.meets_slo
        and (lp.offered_rate_rps, lp.concurrency) == (op.offered_rate_rps, op.concurrency)
    ]
    terms = price_terms(spec, candidate)
    cost = cost_of(spec, candidate, capacity, repeats, terms)
    quality = judge_score_sets(spec, candidate.id, fitting.scores, ev.dataset)
    ref_fits = [judge_reference(spec, candidate, ref) for ref in ev.references]
    references = tuple(
        _reference(spec, candidate, ref, fit, capacity)
        for ref, fit in zip(ev.references, ref_fits, strict=True)
    )
    # MLPerf Power counts only for the same system: another accelerator's watts are not its own.
    same = [r for r, fit in zip(references, ref_fits, strict=True) if fit.same_system]
    energy = energy_use(candidate, capacity, same)
    bases = (price_basis(candidate, cost), *basis_costs(spec, candidate, capacity, energy))
    measured = measured_energy(spec, candidate, ev.public)
    public, public_rows = public_references(spec, candidate, ev, envelope, capacity)
    rows += public_rows
    found = data_findings(candidate.id, ev, spec.slo)
    found += score_findings(spec, candidate.id, fitting.scores, ev.dataset)
    fits = (*run_fits, *score_fits, *_shared_elsewhere(candidate.id, ev, shared))
    context = CandidateContext(
        spec, candidate, ev, rows, capacity, quality, found, fits=fits, fitting=fitting
    )
    checks = _with_basis(spec, candidate, run_checks(context), fits)
    claims = claims_for(candidate, fitting, capacity, cost, quality, spec_link)
    claims += public_claims(public)
    training = training_references(spec, candidate, ev)
    claims += training_claims(ev, training)
    claims += energy_claims(candidate.id, ev, references, ref_fits)
    claims += tco_claims(candidate.id, energy, bases, spec_link)
    claims += measured_energy_claims(measured, ev.public)
    if terms.rate is not None:
        claims.append(
            Claim(
                id=f"cost.{candidate.id}.exchange_rate",
                kind="inherited",
                candidate=candidate.id,
                statement=f"exchange rate {terms.rate.currency} to {terms.currency} as of "
                f"{terms.rate.as_of} ({terms.rate.source})",
                value=terms.rate.rate,
                unit=f"{terms.currency}/{terms.rate.currency}",
                evidence=(spec_link,),
            )
        )
    return CandidateAnalysis(
        candidate=candidate,
        evidence=ev,
        fitting=fitting,
        rows=tuple(rows),
        fits=fits,
        points=tuple(points),
        capacity=capacity,
        price=terms,
        cost=cost,
        energy=energy,
        measured_energy=tuple(measured),
        bases=bases,
        quality=quality,
        references=references,
        public=tuple(public),
        training=tuple(training),
        findings=tuple(found),
        checks=tuple(checks),
        claims=tuple(claims),
    )


IDENTITY_ITEMS = {"C2": ("scores",), "C4": ("run",)}
"""Which evidence an identity check judges (the others judge runs and score sets alike)."""


def _shared_elsewhere(
    cid: str, ev: CandidateEvidence, shared: Mapping[str, Sequence[str]]
) -> list[EvidenceFit]:
    """Cited files whose bytes another candidate cites too and that gave this candidate nothing
    (they were read for the other one): shown as not fitting here as well."""
    read = {item.file.sha256 for item in ev.items()} | {
        also.sha256 for run in ev.runs for also in run.also
    }
    out: dict[str, EvidenceFit] = {}
    for role, reference, file in ev.cited:
        others = [c for c in shared.get(file.sha256, ()) if c != cid]
        if not others or file.sha256 in read or reference in out:
            continue
        out[reference] = EvidenceFit(
            subject=reference,
            kind="run" if role == "runs" else "scores",
            candidate=cid,
            fits=False,
            reasons=(
                f"the same bytes ({in_spec(file)}) are cited as evidence of {', '.join(others)}: "
                "one file cannot describe two configurations",
            ),
            basis="unknown",
        )
    return list(out.values())


def _with_basis(
    spec: PackSpec,
    candidate: Candidate,
    checks: Sequence[CheckResult],
    fits: Sequence[EvidenceFit],
) -> list[CheckResult]:
    """Mark the identity checks that pass on declared values alone (or partly); where the spec
    requires observed identity of the chosen candidate, such a pass fails."""
    strict = spec.fit.require_observed_identity and spec.chosen == candidate.id
    out = []
    for check in checks:
        kinds = IDENTITY_ITEMS.get(check.id, ("run", "scores"))
        judged = [f for f in fits if f.kind in kinds]
        bases = {f.basis for f in judged if f.fits} or {f.basis for f in judged}
        if check.id not in IDENTITY_CHECKS or check.status == "FAIL" or not bases:
            out.append(check)
            continue
        if bases == {"observed"}:
            out.append(check.model_copy(update={"basis": "observed"}))
            continue
        basis = "declared" if bases <= {"declared", "unknown"} else "mixed"
        if strict:
            check = check.model_copy(
                update={
                    "status": "FAIL",
                    "reason": f"{check.reason}; rests on {basis} identity, and the spec "
                    "requires the chosen candidate's model and stack to be recorded by its "
                    "files (fit.require_observed_identity)",
                }
            )
        notes = check.notes
        if basis == "declared" and not strict:
            notes += (
                "passes on declared identity only: the spec's declared model and stack stand "
                "where the files record none, as the spec allows (fit.require_observed_identity "
                "is off)",
            )
        out.append(check.model_copy(update={"basis": basis, "notes": notes}))
    return out


def _reference_row(cid: str, envelope: Conditions, ref: ReferenceEvidence) -> ComparabilityRow:
    stated = Conditions(
        precision=ref.precision,
        runtime=ref.runtime,
        runtime_version=ref.runtime_version,
        hardware=ref.accelerator,
    )
    fields = ("precision", "runtime", "runtime_version", "hardware")
    return compare_reference(ref.key, "mlperf", cid, envelope, stated, fields)


def _reference(
    spec: PackSpec,
    candidate: Candidate,
    ref: ReferenceEvidence,
    fit: ReferenceFit,
    capacity: Capacity,
) -> MlperfReference:
    compared = fit.same_system and fit.same_model is not False
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
        measured_ratio=(value / per_acc) if value is not None and per_acc and compared else None,
        accuracy=dict(ref.accuracy),
        average_watts=ref.energy.average_watts if ref.energy else None,
        kwh_per_million_output_tokens=ref.energy.kwh_per_million_tokens if ref.energy else None,
        energy_scope=ref.energy.scope if ref.energy else None,
        energy_method="wall" if ref.energy else None,
        design_power_watts=ref.design_power_watts,
        division=ref.division,
        availability=ref.availability,
        available_by=ref.available_by,
        supports=fit.supports,
        findings=tuple(text for _, text in fit.findings),
    )


def energy_claims(
    cid: str,
    ev: CandidateEvidence,
    references: Sequence[MlperfReference],
    fits: Sequence[ReferenceFit],
) -> list[Claim]:
    """MLPerf Power's energy per 1M output tokens of each cited result of the candidate's own
    system: inherited, with the wattage's scope (the whole system), linked to its files."""
    out = []
    for ref, seen, fit in zip(references, ev.references, fits, strict=True):
        if ref.kwh_per_million_output_tokens is None or not fit.same_system:
            continue
        out.append(
            Claim(
                id=f"energy.{cid}.{ref.key}",
                kind="inherited",
                candidate=cid,
                statement=f"MLPerf Power energy per 1M output tokens of {ref.key}, method "
                f"wall ({ref.average_watts:,.0f} W average; {ref.energy_scope})",
                value=ref.kwh_per_million_output_tokens,
                unit="kWh per 1M output tokens",
                evidence=(seen.link(),),
            )
        )
    return out


def waiver_names(spec: PackSpec, check_id: str, candidate: str, as_of: dt.date) -> bool:
    """Whether a current waiver of ``check_id`` names the candidate (or every candidate)."""
    return any(
        w.check == check_id
        and w.candidate in (None, candidate)
        and w.expires >= max(as_of, spec.decision.date)
        for w in spec.waivers
    )
