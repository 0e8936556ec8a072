"""A decision as rows of the store's analysis tables (their DDL: ``store/analysis.py``)."""

from __future__ import annotations

import json
from typing import Any

from .models import DecisionDocument


def decision_rows(doc: DecisionDocument) -> dict[str, list[tuple[Any, ...]]]:
    """``doc``'s content as rows of the store's analysis tables (``store/analysis.py``), each
    row led by the decision id."""
    did = doc.decision_id
    return {
        "decisions": [
            (
                did,
                doc.spec_sha256,
                doc.as_of,
                doc.objective,
                doc.recommendation,
                doc.chosen,
                doc.chosen_agrees,
                doc.verdict,
                doc.summary,
                doc.model_dump_json(by_alias=True),
            )
        ],
        "candidate_verdicts": [
            (
                did,
                v.id,
                v.eligible,
                v.accelerators_needed,
                v.servers_needed,
                v.cost_per_million_output_tokens,
                v.cost_per_month,
                v.currency,
                v.quality_estimate,
                v.quality_meets_bar,
                list(v.failed_checks),
            )
            for v in doc.candidates
        ],
        "checks": [
            (
                did,
                i,
                c.id,
                c.candidate,
                c.status,
                c.hard,
                c.reason,
                [e.row for e in c.evidence],
                c.waived.approver if c.waived else None,
            )
            for i, c in enumerate(doc.checks)
        ],
        "findings": [
            (
                did,
                i,
                f.check,
                f.candidate,
                f.subject,
                f.model,
                f.kind,
                f.severity,
                f.figure,
                f.detail,
                [e.pack_path for e in f.evidence if e.pack_path],
            )
            for i, f in enumerate(doc.findings)
        ],
        "comparability": [
            (
                did,
                r.candidate,
                r.subject,
                r.kind,
                r.like_for_like,
                json.dumps([d.model_dump() for d in r.differences]),
                list(r.unknown),
                list(r.declared),
            )
            for r in doc.comparability
        ],
        "load_points": [
            (
                did,
                c.candidate,
                lp.run,
                lp.offered_rate_rps,
                lp.concurrency,
                lp.achieved_rate_rps,
                lp.output_tokens_per_s,
                lp.ttft_p99_ms,
                lp.tpot_p99_ms,
                lp.e2e_p99_ms,
                lp.error_rate,
                lp.meets_slo,
                list(lp.misses),
            )
            for c in doc.capacity
            for lp in c.load_points
        ],
        "capacity": [
            (
                did,
                c.candidate,
                c.method,
                c.confidence,
                c.operating_point_rps,
                c.operating_point_run,
                c.output_tokens_per_s_at_op,
                c.required_rate_rps,
                c.replicas,
                c.accelerators,
                c.servers,
                c.arithmetic,
                c.reason,
            )
            for c in doc.capacity
        ],
        "cost": [
            (
                did,
                c.candidate,
                c.currency,
                c.price_per_accelerator_hour,
                c.utilisation,
                c.per_million_output_tokens,
                c.per_request,
                c.per_month,
                c.spread_per_million_output_tokens.minimum
                if c.spread_per_million_output_tokens
                else None,
                c.spread_per_million_output_tokens.maximum
                if c.spread_per_million_output_tokens
                else None,
                c.arithmetic,
            )
            for c in doc.cost
        ],
        "quality": [
            (
                did,
                q.candidate,
                q.metric,
                q.n_items,
                q.estimate,
                q.ci_low,
                q.ci_high,
                q.confidence_level,
                q.method,
                q.judged_value,
                q.bar_threshold,
                q.meets_bar,
            )
            for q in doc.quality
        ],
        "mlperf_references": [
            (
                did,
                r.candidate,
                r.key,
                r.scenario,
                r.per_accelerator_value,
                r.stack_matches,
                r.discount,
                r.discounted_per_accelerator_value,
                r.measured_ratio,
            )
            for r in doc.references
        ],
        "claims": [
            (did, c.id, c.kind, c.candidate, c.statement, c.value, c.unit) for c in doc.claims
        ],
        "claim_evidence": [
            (did, c.id, e.row, e.file_sha256, e.pack_path) for c in doc.claims for e in c.evidence
        ],
    }
