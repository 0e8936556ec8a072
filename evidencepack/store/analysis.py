"""DDL of the analysis tables and ``replace_decision``, which fills them with one decision's rows
(``analyze/decision_rows.py`` makes them from decision.json's content).

Tables: ``decisions`` (one row per compiled decision), ``candidate_verdicts``, ``checks``,
``findings`` (the data findings PROV-DATA rests on),
``comparability``, ``load_points``, ``capacity``, ``cost``, ``quality``, ``mlperf_references``,
``claims`` and ``claim_evidence``; all keyed by ``decision_id``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def replace_decision(
    store: Store, decision_id: str, rows: dict[str, list[tuple[Any, ...]]]
) -> None:
    """Replace the rows of ``decision_id`` in every analysis table with ``rows`` (table ->
    rows in the table's column order), in one transaction."""
    did = decision_id
    with store.transaction():
        for table in _TABLES:
            store.execute(f"DELETE FROM {table} WHERE decision_id = ?", [did])  # fixed names
            if rows.get(table):
                marks = ", ".join("?" * len(rows[table][0]))
                store.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
