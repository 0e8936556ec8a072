"""One row model per table: the pack's DuckDB tables, the warehouse's Parquet files and the
published JSON Schemas all have the model's columns, types and nullability."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pydantic import BaseModel

from evidencepack.schemas import schemas_dir
from evidencepack.store.analysis import TABLES as PACK_TABLES
from evidencepack.store.table_model import Table, table_columns
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.models import DECISION_TABLES, TABLES, PackKey

from .conftest import Built

_JSON_TYPES = {
    "VARCHAR": {"type": "string"},
    "JSON": {"type": "string"},
    "BIGINT": {"type": "integer"},
    "DOUBLE": {"type": "number"},
    "BOOLEAN": {"type": "boolean"},
    "DATE": {"type": "string", "format": "date"},
    "VARCHAR[]": {"type": "array", "items": {"type": "string"}},
}


def _described(model: type[BaseModel]) -> None:
    assert model.__doc__, model
    for name, info in model.model_fields.items():
        assert info.description, f"{model.__name__}.{name} has no description"


def test_the_packs_duckdb_tables_are_the_row_models(built: Built) -> None:
    con = duckdb.connect(str(built.sample / "evidence.duckdb"), read_only=True)
    try:
        for table in PACK_TABLES.values():
            _described(table.model)
            rows = con.execute(f"DESCRIBE {table.name}").fetchall()
            got = [(r[0], r[1], r[2] == "YES") for r in rows]
            # A primary key column is NOT NULL in DuckDB; its field may not be optional either.
            want = [(c.name, c.sql_type, c.nullable) for c in table_columns(table.model)]
            assert got == want, table.name
            assert not [c for c in table_columns(table.model) if c.nullable and c.name in table.key]
            (count,) = con.execute(f"SELECT count(*) FROM {table.name}").fetchone() or (0,)
            assert count or table.name in ("waivers", "approvals", "claim_evidence"), table.name
    finally:
        con.close()


def test_the_warehouse_tables_are_the_packs_own_rows_with_the_packs_key() -> None:
    for name in DECISION_TABLES:
        pack_model = PACK_TABLES[name].model
        fields = {n: f.description for n, f in pack_model.model_fields.items()}
        keyed = TABLES[name].model_fields
        assert list(keyed) == [*PackKey.model_fields, *[n for n in fields if n != "decision_id"]]
        assert {n: keyed[n].description for n in fields} == fields, name
        assert TABLES[name].__doc__ == pack_model.__doc__


@pytest.fixture(scope="module")
def warehouse_with_requests(
    built: Built,
    requests_pack: Path,
    broken_watch: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    root = tmp_path_factory.mktemp("row-models") / "wh"
    # A variant carries a waiver; the watch of the sample fills table watches.
    packs = [requests_pack, built.sample, *built.variants[:5], broken_watch]
    outcomes = add_packs(root, packs, built.policy, requests=True)
    assert {o.status for o in outcomes} == {"added"}
    return root


def test_the_parquet_files_are_the_row_models(warehouse_with_requests: Path) -> None:
    for name, model in TABLES.items():
        _described(model)
        files = sorted((warehouse_with_requests / storage.TABLES_DIR / name).rglob("*.parquet"))
        assert files, name
        table = Table(name, model)
        for path in files:
            rows = duckdb.execute(
                "DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning = false)", [str(path)]
            ).fetchall()
            assert {r[0]: r[1] for r in rows} == {
                c.name: c.sql_type for c in table_columns(model)
            }, path
            assert [r[0] for r in rows] == [c.name for c in table_columns(model)], path
            # Parquet columns are optional; no row breaks the model's NOT NULL.
            for column in table_columns(table.model):
                if not column.nullable:
                    (nulls,) = duckdb.execute(
                        "SELECT count(*) FROM read_parquet(?, hive_partitioning = false) "
                        f"WHERE {column.name} IS NULL",  # a fixed name from the model
                        [str(path)],
                    ).fetchone() or (0,)
                    assert nulls == 0, (path, column.name)


@pytest.mark.parametrize("name", list(TABLES))
def test_the_json_schema_is_the_row_model(name: str) -> None:
    model = TABLES[name]
    schema = json.loads(
        (schemas_dir() / f"warehouse-{name}.v1.schema.json").read_text(encoding="utf-8")
    )
    assert schema["description"] == model.__doc__
    assert schema["additionalProperties"] is False
    columns = table_columns(model)
    assert set(schema["properties"]) == {c.name for c in columns}  # the file's keys are sorted
    assert schema["required"] == [c.name for c in columns]
    for column in columns:
        prop = schema["properties"][column.name]
        assert prop["description"] == model.model_fields[column.name].description
        want = _JSON_TYPES[column.sql_type]
        if column.nullable:
            kinds = prop["anyOf"]
            assert {"type": "null"} in kinds, column.name
            assert len(kinds) == 2, column.name
            (kind,) = [k for k in kinds if k != {"type": "null"}]
        else:
            kind = {k: v for k, v in prop.items() if k in ("type", "format", "items")}
        assert {k: v for k, v in kind.items() if k in ("type", "format", "items")} == want, (
            name,
            column.name,
        )
