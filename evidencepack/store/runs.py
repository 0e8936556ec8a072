"""The DDL of the inputs stage's tables: serving runs (with latency stats, checks, findings and
per-request rows) and score sets (with per-item scores).

``document`` holds each run's or set's full normalised model as JSON so the queries return
exactly what was read; the flat columns are there for SQL. The SQL that fills and reads these
tables is the inputs stage's (``intake/stored.py``), as the MLPerf tables' is ``mlperf/``'s:
the store knows no input model.
"""

from __future__ import annotations

DDL: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS serving_runs (
        run_id VARCHAR PRIMARY KEY,
        file_sha256 VARCHAR NOT NULL,
        file_path VARCHAR NOT NULL,
        role VARCHAR NOT NULL,
        candidate VARCHAR,
        format_id VARCHAR NOT NULL,
        tool VARCHAR NOT NULL,
        tool_version VARCHAR,
        layout VARCHAR,
        label VARCHAR,
        timestamp VARCHAR,
        model_name VARCHAR,
        model_digest VARCHAR,
        precision VARCHAR,
        runtime_name VARCHAR,
        runtime_version VARCHAR,
        backend VARCHAR,
        load_kind VARCHAR,
        request_rate_per_s DOUBLE,
        arrival VARCHAR,
        concurrency INTEGER,
        requests_sent BIGINT,
        requests_completed BIGINT,
        requests_failed BIGINT,
        duration_s DOUBLE,
        request_throughput_per_s DOUBLE,
        output_token_throughput_per_s DOUBLE,
        total_token_throughput_per_s DOUBLE,
        goodput_per_s DOUBLE,
        input_tokens_mean DOUBLE,
        output_tokens_mean DOUBLE,
        per_request_rows BIGINT NOT NULL,
        document JSON NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS run_latency (
        run_id VARCHAR NOT NULL,
        metric VARCHAR NOT NULL,
        definition VARCHAR NOT NULL,
        weighting VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        count BIGINT,
        mean_ms DOUBLE,
        p50_ms DOUBLE,
        p90_ms DOUBLE,
        p95_ms DOUBLE,
        p99_ms DOUBLE,
        min_ms DOUBLE,
        max_ms DOUBLE,
        std_ms DOUBLE,
        PRIMARY KEY (run_id, metric)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS run_checks (
        run_id VARCHAR NOT NULL,
        metric VARCHAR NOT NULL,
        statistic VARCHAR NOT NULL,
        tool_value DOUBLE NOT NULL,
        recomputed_value DOUBLE NOT NULL,
        lower DOUBLE NOT NULL,
        upper DOUBLE NOT NULL,
        ok BOOLEAN NOT NULL,
        -- the run whose per-request rows were used, when they are in another file
        against_run_id VARCHAR,
        PRIMARY KEY (run_id, metric, statistic)
    )
    """,
    # What readers and cross-checks found wrong with a run (readers/models.RunFinding).
    """
    CREATE TABLE IF NOT EXISTS run_findings (
        run_id VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        severity VARCHAR NOT NULL,
        figure VARCHAR,
        detail VARCHAR NOT NULL
    )
    """,
    # No key: a million rows go in by one bulk INSERT; (run_id, request_index) is unique by
    # construction in staging/stage.py.
    """
    CREATE TABLE IF NOT EXISTS run_requests (
        run_id VARCHAR NOT NULL,
        request_index BIGINT NOT NULL,
        ok BOOLEAN NOT NULL,
        error VARCHAR,
        input_tokens BIGINT,
        output_tokens BIGINT,
        start_s DOUBLE,
        ttft_ms DOUBLE,
        e2e_ms DOUBLE,
        tpot_ms DOUBLE,
        tool_itl_ms DOUBLE,
        itl_gap_count INTEGER,
        itl_gap_max_ms DOUBLE
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS score_sets (
        set_id VARCHAR PRIMARY KEY,
        file_sha256 VARCHAR NOT NULL,
        file_path VARCHAR NOT NULL,
        role VARCHAR NOT NULL,
        candidate VARCHAR,
        format_id VARCHAR NOT NULL,
        tool VARCHAR NOT NULL,
        tool_version VARCHAR,
        task VARCHAR,
        task_hash VARCHAR,
        scorer VARCHAR,
        metric VARCHAR NOT NULL,
        filter VARCHAR,
        direction VARCHAR,
        kind VARCHAR,
        value DOUBLE,
        stderr DOUBLE,
        n_items BIGINT NOT NULL,
        n_passed BIGINT,
        mean_item_score DOUBLE,
        model_name VARCHAR,
        model_digest VARCHAR,
        precision VARCHAR,
        runtime_name VARCHAR,
        runtime_version VARCHAR,
        dataset_name VARCHAR,
        dataset_version VARCHAR,
        dataset_digest VARCHAR,
        document JSON NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS score_items (
        set_id VARCHAR NOT NULL,
        item_id VARCHAR NOT NULL,
        score DOUBLE NOT NULL,
        label VARCHAR,
        passed BOOLEAN,
        metadata JSON,
        PRIMARY KEY (set_id, item_id)
    )
    """,
)
