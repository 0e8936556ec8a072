"""The MLPerf tables: created by the store, filled only through the NDJSON bulk path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evidencepack.errors import StoreError
from evidencepack.store import Store
from evidencepack.store.mlperf import TABLES, bulk_insert_sql, write_ndjson


def test_every_table_exists_with_its_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "e.duckdb") as store:
        for table, columns in TABLES.items():
            found = store.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position",
                [table],
            )
            assert [r["column_name"] for r in found] == [name for name, _ in columns]


def test_bulk_insert_is_idempotent_and_keeps_types() -> None:
    rows = [
        {"location": "a", "reason": "r1", "problems": ["a:1: x"]},
        {"location": "b", "reason": "r2", "problems": ["b:2: 'quoted'; DROP TABLE files"]},
    ]
    with Store() as store:
        for _ in range(2):
            path = write_ndjson(rows)
            try:
                store.execute(bulk_insert_sql("mlperf_rejections"), [path])
            finally:
                os.unlink(path)
        stored = store.rows("SELECT * FROM mlperf_rejections ORDER BY location")
        assert stored == rows
        assert store.rows("SELECT count(*) AS n FROM files") == [{"n": 0}]


def test_seeds_beyond_int64_survive_a_round_trip() -> None:
    row = {
        "key": "k",
        "position": 0,
        "rule": "round.seeds",
        "round": "v5.1",
        "expected": "18209322760996052031",
        "actual": "18209322760996052031",
        "status": "pass",
        "source": "x:1",
    }
    with Store() as store:
        path = write_ndjson([row])
        try:
            store.execute(bulk_insert_sql("mlperf_checks"), [path])
        finally:
            os.unlink(path)
        assert store.rows("SELECT * FROM mlperf_checks ORDER BY key") == [row]


def test_a_missing_not_null_column_fails_the_insert() -> None:
    with Store() as store:
        path = write_ndjson([{"location": "a", "reason": "r"}])  # no problems
        try:
            with pytest.raises(StoreError):
                store.execute(bulk_insert_sql("mlperf_rejections"), [path])
        finally:
            os.unlink(path)
