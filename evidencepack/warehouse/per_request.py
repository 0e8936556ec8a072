"""``add --requests``: a pack's per-request rows, copied in bulk from its evidence store.

The pack's ``evidence.duckdb`` (signed with the rest of the pack, so verified before it is read)
holds every request of every serving run (``run_requests``) and which file and candidate each run
came from (``serving_runs``). One ``COPY (SELECT ...) TO 'file.parquet'`` on a read-only
connection to it writes the pack's rows, each with the pack's digest, decision id and date: no
row passes through Python. A run's ``run_id`` is the name the decision gives it (its fit subject,
the ``runs`` table's ``run_id`` for a load point), found the way the analysis names runs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, StoreError
from ..pack.layout import STORE_NAME
from .models import RequestRow, columns

if TYPE_CHECKING:
    import duckdb

    from ..analyze.models import DecisionDocument

# Each column of the requests table from the store's tables (r: run_requests, s: serving_runs,
# l: the decision's run names); the pack's key is bound. Identifiers are ours, never input.
_EXPRESSIONS = {
    "pack_digest": "$digest",
    "decision_id": "$decision_id",
    "decision_date": "$decision_date",
    "candidate": "s.candidate",
    "run_id": "l.run_name",
    "stored_run_id": "r.run_id",
    "run_file": "s.file_path",
    "tool": "s.tool",
}


@dataclass(frozen=True)
class RequestsSource:
    """Where a verified pack's per-request rows are, and the names its decision gives runs."""

    store: Path
    label: str
    run_names: frozenset[tuple[str | None, str]]
    """(candidate, run name) of every run the decision names (fit subjects, load points)."""
    spec_paths: dict[tuple[str | None, str], str]
    """(candidate, pack path) -> the spec path that cited the file."""


def requests_source(folder: Path, decision: DecisionDocument, label: str) -> RequestsSource:
    """The per-request rows of the verified pack in ``folder`` (``label`` names it in errors)."""
    store = folder / STORE_NAME
    if not store.is_file():
        raise InputError(f"{label}: {STORE_NAME} is missing: the pack holds no per-request rows")
    names = {(f.candidate, f.subject) for f in decision.fit if f.kind == "run"}
    names |= {(c.candidate, p.run) for c in decision.capacity for p in c.load_points}
    spec_paths = {(f.candidate, f.pack_path): f.spec_path for f in decision.inputs}
    return RequestsSource(store, label, frozenset(names), spec_paths)


def _run_names(
    con: duckdb.DuckDBPyConnection, source: RequestsSource
) -> tuple[list[str], list[str]]:
    """(stored run ids, their names in the decision): a run's name is its spec path, or its
    file's own path when the cited folder held several read files, with ``#index`` when its
    file holds several runs (as ``analyze/gather.py`` labels runs): the one the decision
    names."""
    runs = con.execute(
        "SELECT run_id, candidate, file_path, "
        "CAST(split_part(run_id, '#', 2) AS BIGINT) AS run_index, "
        "count(*) OVER (PARTITION BY file_path, candidate) AS in_file "
        "FROM serving_runs ORDER BY run_id"
    ).fetchall()
    ids: list[str] = []
    names: list[str] = []
    for run_id, candidate, path, index, in_file in runs:
        spec_path = source.spec_paths.get((candidate, path))
        for base in [p for p in (spec_path, path.removeprefix("inputs/")) if p]:
            name = base if in_file == 1 else f"{base}#{index}"
            if (candidate, name) in source.run_names:
                ids.append(str(run_id))
                names.append(name)
                break
    return ids, names


def stage_requests(
    source: RequestsSource, digest: str, decision_id: str, decision_date: dt.date, out: Path
) -> int:
    """Write the pack's per-request rows to the Parquet file ``out``; the number of rows."""
    import duckdb

    types = columns(RequestRow)
    select = ", ".join(
        f"CAST({_EXPRESSIONS.get(name, f'r.{name}')} AS {kind}) AS {name}"
        for name, kind in types.items()
    )
    try:
        con = duckdb.connect(str(source.store), read_only=True)
    except duckdb.Error as exc:
        raise InputError(f"{source.label}: {STORE_NAME} cannot be opened: {exc}") from exc
    try:
        ids, names = _run_names(con, source)
        con.execute("SET allowed_directories = $d", {"d": [str(out.parent.resolve()) + "/"]})
        con.execute("SET enable_external_access = false")
        cursor = con.execute(
            f"COPY (SELECT {select} FROM run_requests r JOIN serving_runs s ON s.run_id = r.run_id "
            "LEFT JOIN (SELECT unnest(CAST($ids AS VARCHAR[])) AS run_id, "
            "unnest(CAST($names AS VARCHAR[])) AS run_name) l ON l.run_id = r.run_id "
            "ORDER BY r.run_id, r.request_index) TO $out (FORMAT PARQUET)",
            {
                "digest": digest,
                "decision_id": decision_id,
                "decision_date": decision_date,
                "ids": ids,
                "names": names,
                "out": str(out),
            },
        )
        written = cursor.fetchone()
    except (duckdb.CatalogException, duckdb.BinderException) as exc:
        raise InputError(
            f"{source.label}: {STORE_NAME} does not hold the per-request tables this version "
            f"reads (run_requests, serving_runs): {exc}"
        ) from exc
    except duckdb.Error as exc:
        raise StoreError(f"{source.label}: cannot copy the per-request rows: {exc}") from exc
    finally:
        con.close()
    count = int(written[0]) if written else 0
    if count == 0:
        out.unlink(missing_ok=True)
    return count
