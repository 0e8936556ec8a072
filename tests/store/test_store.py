"""The store core: migration, the files table, transactions, version guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.core.provenance import file_record, sha256_file
from evidencepack.errors import StoreError
from evidencepack.store import Store

from ..conftest import SAMPLE_SPEC


def test_record_file_is_idempotent(tmp_path: Path) -> None:
    record = file_record(SAMPLE_SPEC, tool="evidencepack")
    with Store(tmp_path / "e.duckdb") as store:
        store.record_file(record, "spec")
        store.record_file(record, "spec")
        rows = store.rows("SELECT sha256, role, size_bytes FROM files ORDER BY path")
    assert rows == [
        {
            "sha256": sha256_file(SAMPLE_SPEC),
            "role": "spec",
            "size_bytes": SAMPLE_SPEC.stat().st_size,
        }
    ]


def test_transaction_rolls_back() -> None:
    store = Store()
    record = file_record(SAMPLE_SPEC)

    def half_way() -> None:
        with store.transaction():
            store.record_file(record, "spec")
            raise RuntimeError("input failed half-way")

    with pytest.raises(RuntimeError):
        half_way()
    assert store.rows("SELECT count(*) AS n FROM files") == [{"n": 0}]


def test_bad_sql_becomes_store_error() -> None:
    with pytest.raises(StoreError, match="query failed"):
        Store().execute("SELECT * FROM no_such_table")


def test_store_error_names_the_store_file(tmp_path: Path) -> None:
    path = tmp_path / "evidence.duckdb"
    with Store(path) as store, pytest.raises(StoreError) as caught:
        store.execute("SELECT * FROM no_such_table")
    assert caught.value.message.startswith(f"evidence store {path}: query failed")


def test_version_guard(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    Store(path).close()
    with Store(path) as store:
        store.execute("UPDATE store_meta SET value = '999' WHERE key = 'store_version'")
    with pytest.raises(StoreError, match="format version 999"):
        Store(path)
