"""Questions over the warehouse: DuckDB views over the Parquet dataset, read-only.

Each table is a view over the fixed list of its Parquet files the catalog records (a file no held
pack owns is never read; one whose bytes changed since it was added is refused), read without
Hive partitioning (``decision_year`` is the year of ``decision_date``, so no ``key=value`` part
of the folder's path can change a row), in a fresh in-memory DuckDB that may then read only those
files, has no temporary folder and runs one SELECT or plain EXPLAIN (never EXPLAIN ANALYZE, which
runs its statement): a query can neither write anywhere nor read other files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest, StoreError
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


def held_files_by_table(root: Path, catalog: Catalog) -> dict[str, list[str]]:
    """Each table's recorded Parquet files (absolute paths), each checked against the size and
    sha256 the catalog recorded (a rewritten file is refused, never read)."""
    by_table: dict[str, list[str]] = {}
    digests, held_files = catalog.owners_and_files()
    for name, held in sorted(held_files.items()):
        path = root / name
        strangers = [d for d in held.packs if d not in digests]
        if strangers:
            raise StoreError(
                f"{path}: holds rows of {strangers[0]}, which the catalog does not hold (as a "
                "pack or watch; evidencepack warehouse verify lists what differs)"
            )
        try:
            size = path.stat().st_size if not path.is_symlink() else -1
        except OSError:
            size = -2
        if size == held.size_bytes and storage.file_digest(path) != held.sha256:
            size = -3  # the same size, other bytes
        if size != held.size_bytes:
            problem = "missing" if size == -2 else "changed since it was added"
            raise StoreError(
                f"{path}: {problem}; the warehouse's files are not as recorded "
                "(evidencepack warehouse verify lists what differs)"
            )
        by_table.setdefault(Path(name).parts[1], []).append(str(path))
    return by_table


def _views(con: duckdb.DuckDBPyConnection, files: dict[str, list[str]]) -> None:
    for table, model in TABLES.items():
        if files.get(table):
            # The relation API names the files as values: no path is spliced into SQL text.
            relation = con.read_parquet(files[table], hive_partitioning=False)
            relation.select("*, year(decision_date)::BIGINT AS decision_year").create_view(table)
        else:
            # No pack yet: an empty view with the table's columns, so every query still runs.
            cols = [f"CAST(NULL AS {kind}) AS {name}" for name, kind in columns(model).items()]
            cols.append("CAST(NULL AS BIGINT) AS decision_year")
            con.execute(f'CREATE VIEW "{table}" AS SELECT {", ".join(cols)} WHERE false')


def _lock_down(con: duckdb.DuckDBPyConnection, files: dict[str, list[str]]) -> None:
    con.execute("SET temp_directory = ''")  # nothing spilled anywhere: the query runs in memory
    con.execute("SET allowed_paths = $p", {"p": sorted(f for fs in files.values() for f in fs)})
    con.execute("SET allowed_directories = $d", {"d": []})
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
        raise InvalidRequest(
            f"{root}: no warehouse here (add a pack first: evidencepack warehouse add)"
        )
    catalog = catalog or open_catalog(root)
    storage.guard(root)
    if storage.needs_recovery(root):
        with storage.locked(root, exclusive=True):
            storage.recover(root, catalog)
    con = duckdb.connect()
    try:
        with storage.locked(root, exclusive=False):
            _only_reads(con, sql)
            files = held_files_by_table(root.resolve(), catalog)
            _views(con, files)
            _lock_down(con, files)
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
        raise InvalidRequest(f"the query failed: {exc}") from exc
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
        raise InvalidRequest(f"the query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise InvalidRequest(f"give one SQL statement (got {len(statements)})")
    kind = statements[0].type
    if kind not in (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN):
        raise InvalidRequest(f"the warehouse is read-only here: only SELECT runs (got {kind.name})")
    if kind == duckdb.StatementType.EXPLAIN:
        # EXPLAIN ANALYZE runs its statement (a COPY would write): only a plain EXPLAIN.
        keywords = [
            sql[at:].split(None, 1)[0].strip("(),;").lower()
            for at, token in duckdb.tokenize(sql)
            if token == duckdb.token_type.keyword
        ]
        if "analyze" in keywords or "analyse" in keywords:
            raise InvalidRequest(
                "the warehouse is read-only here: EXPLAIN ANALYZE runs its statement; "
                "give a SELECT or a plain EXPLAIN"
            )
