"""DDL of the analysis tables and ``save_decision``: the decision.json content, as rows.

Tables: ``decisions`` (one row per compiled decision), ``candidate_verdicts``, ``checks``,
``findings`` (the data findings PROV-DATA rests on),
``comparability``, ``load_points``, ``capacity``, ``cost``, ``quality``, ``mlperf_references``,
``claims`` and ``claim_evidence``; all keyed by ``decision_id``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..analyze.models import DecisionDocument
    from . import Store

DDL: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS decisions (
        decision_id VARCHAR PRIMARY KEY, spec_sha256 VARCHAR NOT NULL, as_of DATE NOT NULL,
        objective VARCHAR NOT NULL, recommendation VARCHAR, chosen VARCHAR,
        chosen_agrees BOOLEAN, verdict VARCHAR NOT NULL, summary VARCHAR NOT NULL,
        document JSON NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS candidate_verdicts (
        decision_id VARCHAR, candidate VARCHAR, eligible BOOLEAN, accelerators_needed INTEGER,
        servers_needed INTEGER, cost_per_million_output_tokens DOUBLE, cost_per_month DOUBLE,
        currency VARCHAR, quality_estimate DOUBLE, quality_meets_bar BOOLEAN,
        failed_checks VARCHAR[], PRIMARY KEY (decision_id, candidate))""",
    """CREATE TABLE IF NOT EXISTS checks (
        decision_id VARCHAR, ordinal INTEGER, check_id VARCHAR, candidate VARCHAR,
        status VARCHAR, hard BOOLEAN, reason VARCHAR, evidence VARCHAR[], waived_by VARCHAR,
        PRIMARY KEY (decision_id, ordinal))""",
    """CREATE TABLE IF NOT EXISTS comparability (
        decision_id VARCHAR, candidate VARCHAR, subject VARCHAR, kind VARCHAR,
        like_for_like BOOLEAN, differences JSON, unknown VARCHAR[], declared VARCHAR[],
        PRIMARY KEY (decision_id, candidate, kind, subject))""",
    """CREATE TABLE IF NOT EXISTS load_points (
        decision_id VARCHAR, candidate VARCHAR, run VARCHAR, offered_rate_rps DOUBLE,
        concurrency INTEGER, achieved_rate_rps DOUBLE, output_tokens_per_s DOUBLE,
        ttft_p99_ms DOUBLE, tpot_p99_ms DOUBLE, e2e_p99_ms DOUBLE, error_rate DOUBLE,
        meets_slo BOOLEAN, misses VARCHAR[], PRIMARY KEY (decision_id, candidate, run))""",
    """CREATE TABLE IF NOT EXISTS capacity (
        decision_id VARCHAR, candidate VARCHAR, method VARCHAR, confidence VARCHAR,
        operating_point_rps DOUBLE, operating_point_run VARCHAR,
        output_tokens_per_s_at_op DOUBLE, required_rate_rps DOUBLE, replicas INTEGER,
        accelerators INTEGER, servers INTEGER, arithmetic VARCHAR, reason VARCHAR,
        PRIMARY KEY (decision_id, candidate))""",
    """CREATE TABLE IF NOT EXISTS cost (
        decision_id VARCHAR, candidate VARCHAR, currency VARCHAR,
        price_per_accelerator_hour DOUBLE, utilisation DOUBLE, per_million_output_tokens DOUBLE,
        per_request DOUBLE, per_month DOUBLE, spread_min DOUBLE, spread_max DOUBLE,
        arithmetic VARCHAR, PRIMARY KEY (decision_id, candidate))""",
    """CREATE TABLE IF NOT EXISTS quality (
        decision_id VARCHAR, candidate VARCHAR, metric VARCHAR, n_items INTEGER,
        estimate DOUBLE, ci_low DOUBLE, ci_high DOUBLE, confidence_level DOUBLE,
        method VARCHAR, judged_value DOUBLE, bar_threshold DOUBLE, meets_bar BOOLEAN,
        PRIMARY KEY (decision_id, candidate))""",
    """CREATE TABLE IF NOT EXISTS mlperf_references (
        decision_id VARCHAR, candidate VARCHAR, result_key VARCHAR, scenario VARCHAR,
        per_accelerator_value DOUBLE, stack_matches BOOLEAN, discount DOUBLE,
        discounted_per_accelerator_value DOUBLE, measured_ratio DOUBLE,
        PRIMARY KEY (decision_id, candidate, result_key))""",
    """CREATE TABLE IF NOT EXISTS claims (
        decision_id VARCHAR, claim_id VARCHAR, kind VARCHAR, candidate VARCHAR,
        statement VARCHAR, value DOUBLE, unit VARCHAR, PRIMARY KEY (decision_id, claim_id))""",
    """CREATE TABLE IF NOT EXISTS findings (
        decision_id VARCHAR, ordinal INTEGER, check_id VARCHAR, candidate VARCHAR,
        subject VARCHAR, model VARCHAR, kind VARCHAR, severity VARCHAR, figure VARCHAR,
        detail VARCHAR, pack_paths VARCHAR[], PRIMARY KEY (decision_id, ordinal))""",
    """CREATE TABLE IF NOT EXISTS claim_evidence (
        decision_id VARCHAR, claim_id VARCHAR, row_id VARCHAR, file_sha256 VARCHAR,
        pack_path VARCHAR)""",
)

_TABLES = (
    "candidate_verdicts",
    "checks",
    "findings",
    "comparability",
    "load_points",
    "capacity",
    "cost",
    "quality",
    "mlperf_references",
    "claims",
    "claim_evidence",
    "decisions",
)


def save_decision(store: Store, doc: DecisionDocument) -> None:
    """Replace the rows of ``doc.decision_id`` with ``doc``'s content, in one transaction."""
    did = doc.decision_id
    rows: dict[str, list[tuple[Any, ...]]] = {
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
    with store.transaction():
        for table in _TABLES:
            store.execute(f"DELETE FROM {table} WHERE decision_id = ?", [did])  # fixed names
            if rows[table]:
                marks = ", ".join("?" * len(rows[table][0]))
                store.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
