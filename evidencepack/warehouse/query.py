"""Questions over the warehouse: DuckDB views over the Parquet dataset, read-only.

Each table is a view over ``read_parquet('DIR/tables/<table>/**/*.parquet',
hive_partitioning=true)`` in a fresh in-memory DuckDB that may read only the dataset's folder
and runs one SELECT (or EXPLAIN) statement: a query can neither write the warehouse nor read
other files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, UsageError
from . import storage
from .catalog import Catalog, open_catalog
from .models import TABLES, columns

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class QueryResult:
    """A query's column names and rows, in the order the query gave them."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def records(self) -> list[dict[str, Any]]:
        """The rows as column -> value mappings."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _views(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    for table, model in TABLES.items():
        folder = root / storage.TABLES_DIR / table
        if any(folder.glob("**/*.parquet")):
            # The relation API names the glob as a value: no path is spliced into SQL text.
            relation = con.read_parquet(storage.table_glob(root, table), hive_partitioning=True)
            relation.create_view(table)
        else:
            # No pack yet: an empty view with the table's columns, so every query still runs.
            cols = [f"CAST(NULL AS {kind}) AS {name}" for name, kind in columns(model).items()]
            cols.append("CAST(NULL AS BIGINT) AS decision_year")
            con.execute(f'CREATE VIEW "{table}" AS SELECT {", ".join(cols)} WHERE false')


def _lock_down(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    tables = str(root.resolve() / storage.TABLES_DIR) + "/"
    con.execute("SET allowed_directories = $d", {"d": [tables]})
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def run_query(
    root: Path,
    sql: str,
    params: Mapping[str, object] | None = None,
    catalog: Catalog | None = None,
) -> QueryResult:
    """Run one SELECT over the warehouse in ``root`` with ``params`` bound by name ($name)."""
    import duckdb

    if not root.is_dir():
        raise UsageError(
            f"{root}: no warehouse here (add a pack first: evidencepack warehouse add)"
        )
    if storage.needs_recovery(root):
        with storage.locked(root, exclusive=True):
            storage.recover(root, catalog or open_catalog(root))
    con = duckdb.connect()
    try:
        with storage.locked(root, exclusive=False):
            _views(con, root.resolve())
            _lock_down(con, root)
            _only_reads(con, sql)
            cursor = con.execute(sql, dict(params) if params else None)
            names = tuple(d[0] for d in cursor.description or ())
            rows = tuple(tuple(r) for r in cursor.fetchall())
    except (
        duckdb.ParserException,
        duckdb.BinderException,
        duckdb.CatalogException,
        duckdb.PermissionException,
        duckdb.ConversionException,
    ) as exc:
        # The query's own fault (a typo, an unknown column, a file outside the dataset): usage.
        raise UsageError(f"the query failed: {exc}") from exc
    except duckdb.Error as exc:
        raise StoreError(f"the query failed: {exc}") from exc
    finally:
        con.close()
    return QueryResult(names, rows)


def _only_reads(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(f"the query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise UsageError(f"give one SQL statement (got {len(statements)})")
    kind = statements[0].type
    if kind not in (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN):
        raise UsageError(f"the warehouse is read-only here: only SELECT runs (got {kind.name})")
