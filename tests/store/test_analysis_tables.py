"""The analysis tables are their row models: the DDL generated from each model creates exactly
its columns, and ``replace_decision`` takes rows of the table's own model only."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from evidencepack.store import Store
from evidencepack.store.analysis import TABLES, replace_decision
from evidencepack.store.analysis_rows import ApprovalRow, WaiverRow
from evidencepack.store.table_model import Table, table_columns


def test_each_table_has_its_models_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "e.duckdb") as store:
        for table in TABLES.values():
            described = store.execute(f"DESCRIBE {table.name}").fetchall()
            assert [(r[0], r[1], r[2] == "YES") for r in described] == [
                (c.name, c.sql_type, c.nullable) for c in table_columns(table.model)
            ], table.name


def test_rows_go_in_by_name_and_a_row_of_another_model_is_refused(tmp_path: Path) -> None:
    approval = ApprovalRow(
        decision_id="d1", name="A. Person", role="CFO", approved_on=dt.date(2026, 1, 2)
    )
    with Store(tmp_path / "e.duckdb") as store:
        replace_decision(store, "d1", {"approvals": [approval]})
        assert store.execute("SELECT role, name FROM approvals").fetchall() == [
            ("CFO", "A. Person")
        ]
        with pytest.raises(TypeError, match="a row is a WaiverRow"):
            replace_decision(store, "d1", {"waivers": [approval]})
        with pytest.raises(ValueError, match="no analysis table"):
            replace_decision(store, "d1", {"nope": [approval]})
        # The refused replacement rolled back: the decision's rows are as they were.
        assert store.execute("SELECT count(*) FROM approvals").fetchone() == (1,)


def test_a_column_type_the_store_cannot_hold_is_refused() -> None:
    from pydantic import BaseModel

    class Odd(BaseModel):
        """A row with a column DuckDB has no type for here."""

        decision_id: str
        when: dt.datetime

    with pytest.raises(TypeError, match="no DuckDB column type"):
        Table("odd", Odd).ddl()
    assert "expires DATE NOT NULL" in Table("waivers", WaiverRow).ddl()
