"""A decision as rows of the analysis tables, one row model per table (``store/analysis_rows.py``).

The same rows fill the pack's ``evidence.duckdb`` (``store/analysis.py``) and, with the pack's
digest and decision date in front, the warehouse's tables (``warehouse/rows.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel

from ..store import analysis_rows as r
from .models import DecisionDocument


def decision_rows(doc: DecisionDocument) -> dict[str, Sequence[BaseModel]]:
    """``doc``'s content as rows of the analysis tables, by table name (``store.analysis.TABLES``),
    each row led by the decision id."""
    did = doc.decision_id
    return {
        "decisions": [
            r.DecisionSummaryRow(
                decision_id=did,
                spec_sha256=doc.spec_sha256,
                as_of=doc.as_of,
                objective=doc.objective,
                recommendation=doc.recommendation,
                chosen=doc.chosen,
                chosen_agrees=doc.chosen_agrees,
                verdict=str(doc.verdict),
                summary=doc.summary,
                document=doc.model_dump_json(by_alias=True),
            )
        ],
        "candidates": _candidates(doc),
        "checks": [
            r.CheckRow(
                decision_id=did,
                ordinal=i,
                check_id=c.id,
                title=c.title,
                candidate=c.candidate,
                status=str(c.status),
                hard=c.hard,
                reason=c.reason,
                evidence=tuple(e.row for e in c.evidence),
                waived=c.waived is not None,
                waiver_approver=c.waived.approver if c.waived else None,
                waiver_expires=c.waived.expires if c.waived else None,
            )
            for i, c in enumerate(doc.checks)
        ],
        "findings": [
            r.FindingRow(
                decision_id=did,
                ordinal=i,
                check_id=f.check,
                candidate=f.candidate,
                subject=f.subject,
                model=f.model,
                kind=str(f.kind),
                severity=f.severity,
                figure=f.figure,
                detail=f.detail,
                pack_paths=tuple(e.pack_path for e in f.evidence if e.pack_path),
            )
            for i, f in enumerate(doc.findings)
        ],
        "comparability": [
            r.ComparabilityRow(
                decision_id=did,
                candidate=c.candidate,
                subject=c.subject,
                kind=c.kind,
                like_for_like=c.like_for_like,
                differences=json.dumps([d.model_dump() for d in c.differences]),
                unknown=c.unknown,
                declared=c.declared,
            )
            for c in doc.comparability
        ],
        "runs": _runs(doc),
        "capacity": [
            r.CapacityRow(
                decision_id=did,
                candidate=c.candidate,
                method=c.method,
                confidence=c.confidence,
                operating_point_rps=c.operating_point_rps,
                operating_point_run=c.operating_point_run,
                output_tokens_per_s_at_op=c.output_tokens_per_s_at_op,
                required_rate_rps=c.required_rate_rps,
                replicas=c.replicas,
                accelerators=c.accelerators,
                servers=c.servers,
                arithmetic=c.arithmetic,
                reason=c.reason,
            )
            for c in doc.capacity
        ],
        "cost": [
            r.CostRow(
                decision_id=did,
                candidate=c.candidate,
                currency=c.currency,
                price_per_accelerator_hour=c.price_per_accelerator_hour,
                billed_per=c.billed_per,
                utilisation=c.utilisation,
                per_million_output_tokens=c.per_million_output_tokens,
                per_request=c.per_request,
                per_month=c.per_month,
                per_year=c.per_year,
                spread_min=s.minimum if (s := c.spread_per_million_output_tokens) else None,
                spread_max=s.maximum if s else None,
                arithmetic=c.arithmetic,
            )
            for c in doc.cost
        ],
        "quality": [
            r.QualityRow(
                decision_id=did,
                candidate=q.candidate,
                metric=q.metric,
                n_items=q.n_items,
                estimate=q.estimate,
                ci_low=q.ci_low,
                ci_high=q.ci_high,
                confidence_level=q.confidence_level,
                method=q.method,
                bar_threshold=q.bar_threshold,
                judged_on=q.judged_on,
                judged_value=q.judged_value,
                meets_bar=q.meets_bar,
            )
            for q in doc.quality
        ],
        "cited_results": _references(doc),
        "claims": [
            r.ClaimRow(
                decision_id=did,
                claim_id=c.id,
                kind=str(c.kind),
                candidate=c.candidate,
                statement=c.statement,
                value=c.value,
                unit=c.unit,
            )
            for c in doc.claims
        ],
        "claim_evidence": [
            r.ClaimEvidenceRow(
                decision_id=did,
                claim_id=c.id,
                row_id=e.row,
                file_sha256=e.file_sha256,
                pack_path=e.pack_path,
            )
            for c in doc.claims
            for e in c.evidence
        ],
        "waivers": _waivers(doc),
        "approvals": [
            r.ApprovalRow(decision_id=did, name=a.name, role=a.role, approved_on=a.date)
            for a in doc.spec.approvals
        ],
    }


def _candidates(doc: DecisionDocument) -> list[r.CandidateRow]:
    specs = {c.id: c for c in doc.spec.candidates}
    rows = []
    for c in doc.candidates:
        spec = specs[c.id]
        price = spec.price
        rows.append(
            r.CandidateRow(
                decision_id=doc.decision_id,
                candidate=c.id,
                accelerator=c.accelerator,
                runtime=spec.stack.runtime,
                runtime_version=spec.stack.version,
                precision=spec.stack.precision,
                eligible=c.eligible,
                is_recommended=c.id == doc.recommendation,
                is_chosen=c.id == doc.chosen,
                accelerators_needed=c.accelerators_needed,
                servers_needed=c.servers_needed,
                accelerators_billed=c.accelerators_billed,
                cost_per_month=c.cost_per_month,
                cost_per_year=c.cost_per_year,
                cost_per_million_output_tokens=c.cost_per_million_output_tokens,
                currency=c.currency,
                quality_estimate=c.quality_estimate,
                quality_meets_bar=c.quality_meets_bar,
                price_per_accelerator_hour=price.per_accelerator_hour if price else None,
                price_as_of=price.as_of if price else None,
                price_source=price.source if price else None,
                failed_checks=c.failed_checks,
            )
        )
    return rows


def _waivers(doc: DecisionDocument) -> list[r.WaiverRow]:
    applied = {(w.check, w.candidate, w.approver, w.expires) for w in doc.waivers_applied}
    return [
        r.WaiverRow(
            decision_id=doc.decision_id,
            check_id=w.check,
            candidate=w.candidate,
            reason=w.reason,
            approver=w.approver,
            expires=w.expires,
            applied=(w.check, w.candidate, w.approver, w.expires) in applied,
        )
        for w in doc.spec.waivers
    ]


def _references(doc: DecisionDocument) -> list[r.ReferenceRow]:
    rows = [
        r.ReferenceRow(
            decision_id=doc.decision_id,
            candidate=m.candidate,
            kind="mlperf",
            key=m.key,
            round=m.round,
            source=m.benchmark,
            scenario=m.scenario,
            accelerator=m.accelerator,
            validity=m.validity,
            per_accelerator_value=m.per_accelerator_value,
            stack_matches=m.stack_matches,
            discount=m.discount,
            discounted_per_accelerator_value=m.discounted_per_accelerator_value,
            measured_ratio=m.measured_ratio,
        )
        for m in doc.references
    ]
    rows += [
        r.ReferenceRow(
            decision_id=doc.decision_id,
            candidate=p.candidate,
            kind="public",
            key=p.subject,
            round=None,
            source=p.source_tool,
            scenario=None,
            accelerator=p.accelerator,
            validity=None,
            per_accelerator_value=p.output_tokens_per_s_per_accelerator,
            stack_matches=None,
            discount=None,
            discounted_per_accelerator_value=None,
            measured_ratio=p.measured_ratio,
        )
        for p in doc.public_references
    ]
    return rows


def _runs(doc: DecisionDocument) -> list[r.RunRow]:
    tools: dict[str, str] = {}
    for f in doc.inputs:
        if f.role == "runs" and f.tool:
            tools.setdefault(f.spec_path, f.tool)
    return [
        r.RunRow(
            decision_id=doc.decision_id,
            candidate=c.candidate,
            run_id=p.run,
            tool=tools.get(p.run),
            offered_rate_rps=p.offered_rate_rps,
            concurrency=p.concurrency,
            achieved_rate_rps=p.achieved_rate_rps,
            output_tokens_per_s=p.output_tokens_per_s,
            ttft_p99_ms=p.ttft_p99_ms,
            tpot_p99_ms=p.tpot_p99_ms,
            e2e_p99_ms=p.e2e_p99_ms,
            error_rate=p.error_rate,
            meets_slo=p.meets_slo,
            misses=p.misses,
        )
        for c in doc.capacity
        for p in c.load_points
    ]
