"""The two questions of issue 31, asked of Spark and of DuckDB over the same Parquet dataset.

Used by tests/warehouse/test_spark.py and benchmarks/bench_warehouse.py ``--spark``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evidencepack.warehouse import storage
from evidencepack.warehouse.models import TABLES
from evidencepack.warehouse.named import bind, named_query
from evidencepack.warehouse.query import run_query

VLLM_0_9_2 = {"runtime": "vllm", "version": "0.9.2"}
SPARK_RUNTIME = """
SELECT p.decision_id, p.decision_date, c.candidate, c.pack_digest
FROM candidates c JOIN packs p ON c.pack_digest = p.pack_digest
WHERE lower(c.runtime) = lower(:runtime) AND c.runtime_version = :version
"""
SPARK_COST = """
SELECT concat(year(decision_date), '-Q', quarter(decision_date)) AS quarter, currency,
       count(*) AS decisions, round(avg(cost_per_million_output_tokens), 4) AS mean_per_1m,
       round(min(cost_per_million_output_tokens), 4) AS min_per_1m,
       round(max(cost_per_million_output_tokens), 4) AS max_per_1m
FROM candidates
WHERE is_chosen AND cost_per_million_output_tokens IS NOT NULL
GROUP BY 1, 2 ORDER BY 1, 2
"""

Answers = tuple[set[tuple[Any, ...]], list[tuple[Any, ...]]]


QUICK_SPARK = {
    "spark.sql.shuffle.partitions": "1",
    "spark.default.parallelism": "1",
    "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
}
"""A test's settings for a short local session (not the benchmark's): one shuffle partition on
one core (not 200 tasks for a GROUP BY of a few rows), and the JVM's quick-starting compiler
and collector. They change how fast Spark answers, not what it answers."""


def local_spark(config: dict[str, str] | None = None) -> Any:
    """A local Spark session on one core, bound to 127.0.0.1, no UI; ``config``: more settings."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # never another interface
    builder = (
        SparkSession.builder.master("local[1]")
        .appName("evidencepack-warehouse")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
    )
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def spark_views(spark: Any, root: Path) -> None:
    """Register every table of the warehouse in ``root`` as a Spark temp view, read as it is."""
    for table in TABLES:
        folder = root / storage.TABLES_DIR / table
        if folder.is_dir():  # requests: only with add --requests
            frame = spark.read.option("basePath", str(folder)).parquet(str(folder))
            frame.createOrReplaceTempView(table)


def spark_answers(spark: Any, root: Path) -> Answers:
    """(decisions resting on vllm 0.9.2, cost per 1M tokens by quarter) from Spark."""
    spark_views(spark, root)
    runtime = {
        (r.decision_id, r.decision_date, r.candidate, r.pack_digest)
        for r in spark.sql(SPARK_RUNTIME, args=VLLM_0_9_2).collect()
    }
    return runtime, [tuple(r) for r in spark.sql(SPARK_COST).collect()]


def duckdb_answers(root: Path) -> Answers:
    """The same two answers from the named queries, over DuckDB."""
    query = named_query("by-runtime")
    rows = run_query(root, query.sql, bind(query, VLLM_0_9_2)).records()
    runtime = {
        (r["decision_id"], r["decision_date"], r["candidate"], r["pack_digest"]) for r in rows
    }
    assert len(runtime) == len(rows)
    query = named_query("cost-by-quarter")
    return runtime, list(run_query(root, query.sql, bind(query, {})).rows)
