"""The analysis tables, their DDL generated from one row model each (``store/analysis_rows.py``),
and ``replace_decision``, which fills them with one decision's rows (``analyze/decision_rows.py``
makes them from decision.json's content).

Tables: ``decisions`` (one row per compiled decision), ``candidates``, ``checks``, ``findings``
(the data findings PROV-DATA rests on), ``comparability``, ``runs`` (the load points),
``capacity``, ``cost``, ``quality``, ``cited_results`` (MLPerf results and public references),
``claims``, ``claim_evidence``, ``waivers`` and ``approvals``; all keyed by ``decision_id``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from . import analysis_rows as rows
from .table_model import Table

if TYPE_CHECKING:
    from . import Store

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table("decisions", rows.DecisionSummaryRow, ("decision_id",)),
        Table("candidates", rows.CandidateRow, ("decision_id", "candidate")),
        Table("checks", rows.CheckRow, ("decision_id", "ordinal")),
        Table("findings", rows.FindingRow, ("decision_id", "ordinal")),
        Table(
            "comparability", rows.ComparabilityRow, ("decision_id", "candidate", "kind", "subject")
        ),
        Table("runs", rows.RunRow, ("decision_id", "candidate", "run_id")),
        Table("capacity", rows.CapacityRow, ("decision_id", "candidate")),
        Table("cost", rows.CostRow, ("decision_id", "candidate")),
        Table("quality", rows.QualityRow, ("decision_id", "candidate")),
        Table("cited_results", rows.ReferenceRow),
        Table("claims", rows.ClaimRow, ("decision_id", "claim_id")),
        Table("claim_evidence", rows.ClaimEvidenceRow),
        Table("waivers", rows.WaiverRow),
        Table("approvals", rows.ApprovalRow),
    )
}
"""Table name -> its row model and key: the pack's analysis tables, in creation order."""

DDL: tuple[str, ...] = tuple(t.ddl() for t in TABLES.values())

ROWS_PER_STATEMENT = 200
"""Rows of one multi-row ``INSERT``: a decision's few hundred rows in a statement or two per
table (``executemany`` sent one statement per row: 0.1 s of a 1 s ``check``)."""


def replace_decision(
    store: Store, decision_id: str, table_rows: Mapping[str, Sequence[BaseModel]]
) -> None:
    """Replace the rows of ``decision_id`` in every analysis table with ``table_rows`` (table ->
    rows of its model), in one transaction."""
    unknown = set(table_rows) - set(TABLES)
    if unknown:
        raise ValueError(f"no analysis table {sorted(unknown)}")
    with store.transaction():
        for table in reversed(TABLES.values()):
            store.execute(f"DELETE FROM {table.name} WHERE decision_id = ?", [decision_id])
        for table in TABLES.values():
            values = table.values(table_rows.get(table.name, ()))
            for start in range(0, len(values), ROWS_PER_STATEMENT):
                store.insert_rows(table.insert(), values[start : start + ROWS_PER_STATEMENT])
