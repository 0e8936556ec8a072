"""The warehouse's Parquet dataset read as it is by Apache Spark (PySpark, local mode): the same
answers as DuckDB to "which decisions rest on vllm 0.9.2" and "cost per 1M tokens by quarter"."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.models import TABLES
from evidencepack.warehouse.named import bind, named_query
from evidencepack.warehouse.query import run_query

from .conftest import Built

RUNTIME = """
SELECT p.decision_id, p.decision_date, c.candidate, c.pack_digest
FROM candidates c JOIN packs p ON c.pack_digest = p.pack_digest
WHERE lower(c.runtime) = lower(:runtime) AND c.runtime_version = :version
"""
COST = """
SELECT concat(year(decision_date), '-Q', quarter(decision_date)) AS quarter, currency,
       count(*) AS decisions, round(avg(cost_per_million_output_tokens), 4) AS mean_per_1m,
       round(min(cost_per_million_output_tokens), 4) AS min_per_1m,
       round(max(cost_per_million_output_tokens), 4) AS max_per_1m
FROM candidates
WHERE is_chosen AND cost_per_million_output_tokens IS NOT NULL
GROUP BY 1, 2 ORDER BY 1, 2
"""


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark session bound to 127.0.0.1 (skipped without PySpark or Java)."""
    pyspark_sql = pytest.importorskip("pyspark.sql", reason="PySpark is not installed")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java (Debian: apt-get install default-jre-headless)")
    session = (
        pyspark_sql.SparkSession.builder.master("local[1]")
        .appName("evidencepack-warehouse-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def test_spark_reads_the_dataset_and_gives_duckdbs_answers(
    built: Built, spark: Any, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    packs = [built.sample, built.stack_bump, *built.variants]
    assert {o.status for o in add_packs(root, packs, built.policy)} == {"added"}
    for table in TABLES:
        folder = str(root / storage.TABLES_DIR / table)
        spark.read.option("basePath", folder).parquet(folder).createOrReplaceTempView(table)

    params = {"runtime": "vllm", "version": "0.9.2"}
    got = {
        (r.decision_id, r.decision_date, r.candidate, r.pack_digest)
        for r in spark.sql(RUNTIME, args=params).collect()
    }
    query = named_query("by-runtime")
    duck = run_query(root, query.sql, bind(query, params)).records()
    assert got == {
        (r["decision_id"], r["decision_date"], r["candidate"], r["pack_digest"]) for r in duck
    }
    assert len(got) == len(duck) > 0

    got_cost = [tuple(r) for r in spark.sql(COST).collect()]
    query = named_query("cost-by-quarter")
    assert got_cost == list(run_query(root, query.sql, bind(query, {})).rows)
    assert len(got_cost) == 8

    # The partition column Spark discovers is the decision's year, as DuckDB reads it.
    years = {r[0] for r in spark.sql("SELECT DISTINCT decision_year FROM packs").collect()}
    assert years == {r[0] for r in run_query(root, "SELECT DISTINCT decision_year FROM packs").rows}
