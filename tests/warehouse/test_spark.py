"""The warehouse's Parquet dataset read as it is by Apache Spark (PySpark, local mode): the same
answers as DuckDB to "which decisions rest on vllm 0.9.2" and "cost per 1M tokens by quarter"."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.compact import compact
from evidencepack.warehouse.query import run_query

from .answers import QUICK_SPARK, duckdb_answers, local_spark, spark_answers
from .conftest import Built


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark session bound to 127.0.0.1 (skipped without PySpark or Java)."""
    pytest.importorskip("pyspark.sql", reason="PySpark is not installed")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java (Debian: apt-get install default-jre-headless)")
    session = local_spark(QUICK_SPARK)
    try:
        yield session
    finally:
        session.stop()


def test_spark_reads_the_dataset_and_gives_duckdbs_answers(
    built: Built, requests_pack: Path, spark: Any, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    packs = [built.sample, built.stack_bump, *built.variants]
    assert {o.status for o in add_packs(root, packs, built.policy)} == {"added"}
    runtime, cost = spark_answers(spark, root)
    assert (runtime, cost) == duckdb_answers(root)
    assert runtime
    assert len(cost) == 8

    # The partition column Spark discovers is the decision's year, as DuckDB reads it.
    years = {r[0] for r in spark.sql("SELECT DISTINCT decision_year FROM packs").collect()}
    assert years == {r[0] for r in run_query(root, "SELECT DISTINCT decision_year FROM packs").rows}

    # Per-request rows and a compacted dataset are read as they are, with the same answers.
    (added,) = add_packs(root, [requests_pack], built.policy, requests=True)
    assert added.requests
    before = duckdb_answers(root)
    assert compact(root)
    assert duckdb_answers(root) == before
    assert spark_answers(spark, root) == before
    sql = "SELECT pack_digest, count(*), sum(output_tokens) FROM requests GROUP BY pack_digest"
    (row,) = run_query(root, sql).rows
    assert row[:2] == (added.digest, added.requests)
    assert [tuple(r) for r in spark.sql(sql).collect()] == [row]
