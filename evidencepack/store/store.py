"""The DuckDB evidence store: one connection, versioned DDL, the files table every input cites.

Each stage owns one DDL module in this package (``files``, ``mlperf``, ``runs``, ...) exposing
``DDL: tuple[str, ...]``; ``_DDL_MODULES`` lists them in creation order. Any DDL change bumps
``STORE_VERSION``. Every ``duckdb.Error`` is re-raised here as StoreError.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from ..core.limits import regular_file_problem
from ..core.provenance import FileRecord
from ..errors import InputError, StoreError
from .connection import Connection
from .staged import StagedRows

STORE_VERSION = 5

_DDL_MODULES: tuple[str, ...] = ("files", "mlperf", "runs", "analysis")
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
_CONFIG = {
    # A SQLite file given as --db made DuckDB download its sqlite extension over HTTP: the
    # store never installs or loads extensions. File access stays: the bulk paths read inputs
    # with read_json / read_csv.
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
    "allow_community_extensions": "false",
}
_DUCKDB_MAGIC = b"DUCK"


def _check_store_file(path: Path) -> None:
    """An existing ``--db`` must be a regular DuckDB file (never open a FIFO or a SQLite file)."""
    if not path.exists() and not path.is_symlink():
        return
    problem = regular_file_problem(path)
    if problem:
        raise InputError(f"{path}: {problem}; the evidence store is a DuckDB file")
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise StoreError(f"cannot open the evidence store {path}: {exc}") from exc
    if head and head[8:12] != _DUCKDB_MAGIC:
        kind = " (a SQLite database)" if head.startswith(b"SQLite format") else ""
        raise InputError(f"{path}: not a DuckDB evidence store{kind}")


class Store(Connection):
    """A DuckDB database (a file, or in memory when ``path`` is None) with evidencepack's tables."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        if path is not None:
            _check_store_file(path)
        super().__init__(str(path) if path else ":memory:", config=_CONFIG)
        self._migrate()

    def _error(self, exc: duckdb.Error, doing: str) -> StoreError:
        return StoreError(f"{self.name}: {doing} failed: {exc}")

    def _open_error(self, exc: duckdb.Error) -> StoreError:
        return StoreError(f"cannot open the evidence store {self.path}: {exc}")

    @property
    def name(self) -> str:
        """The store as error messages name it."""
        return f"evidence store {self.path}" if self.path else "in-memory evidence store"

    def __enter__(self) -> Store:
        return self

    # -- queries ----------------------------------------------------------------------------

    def insert_rows(self, insert: str, rows: Sequence[Sequence[Any]], tail: str = "") -> None:
        """``rows`` in ONE statement: ``insert`` (evidencepack's own ``INSERT INTO t (...)
        VALUES``) with a ``(?, ...)`` group per row, ``tail`` ending it (an ``ON CONFLICT``),
        the values flattened into the parameters. A small file's or a decision's cost is its
        number of statements, and ``executemany`` sent one per row."""
        if not rows:
            return
        marks = ", ".join(["(" + ", ".join("?" * len(rows[0])) + ")"] * len(rows))
        self.execute(f"{insert} {marks}{tail}", [value for row in rows for value in row])

    def rows(
        self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Rows as dicts (column name -> value)."""
        cursor = self.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def insert_columns(
        self,
        table: str,
        columns: Mapping[str, Any] | StagedRows,
        *,
        decode: Mapping[str, tuple[str, Sequence[str]]] | None = None,
    ) -> None:
        """Bulk-insert columnar rows into ``table``: numpy arrays (masked where NULL), or rows
        staged inside this store's database (``StagedRows``), moved by one ``INSERT ... SELECT``
        without leaving DuckDB.

        The one bulk path for large inputs: DuckDB scans the arrays or the staged table
        directly, no row loop. ``decode`` maps a target column to (an integer column of
        ``columns``, the texts it indexes), so a repeated id travels as a small integer until
        DuckDB expands it. ``table`` and the column names are evidencepack's own identifiers,
        never input.
        """
        decode = dict(decode or {})
        sources = {source for source, _ in decode.values()}
        given = columns.names if isinstance(columns, StagedRows) else tuple(columns)
        names = [n for n in given if n not in sources]
        every = [table, *names, *decode, *sources]
        if not all(_IDENTIFIER.fullmatch(n) for n in every):
            raise StoreError(f"bulk insert into {table!r}: not a plain identifier")
        if not names and not decode:
            return
        targets = ", ".join([*decode, *names])
        exprs = [f"list_extract(?::VARCHAR[], {source} + 1)" for source, _ in decode.values()]
        params = [list(values) for _, values in decode.values()]
        select = ", ".join([*exprs, *names])
        doing = f"bulk insert into {table}"
        if isinstance(columns, StagedRows):
            if columns.owner is not self.con:
                raise StoreError(f"{self.name}: {doing}: the rows were staged for another store")
            sql = f"INSERT INTO {table} ({targets}) SELECT {select} FROM ({columns.select})"
            try:
                self.con.execute(sql, params)
            except duckdb.Error as exc:
                raise self._error(exc, doing) from exc
            return
        self.execute_over(
            "_bulk",
            dict(columns),
            f"INSERT INTO {table} ({targets}) SELECT {select} FROM _bulk",
            params,
            doing=doing,
        )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: a failed input leaves no rows behind."""
        self.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    # -- files ------------------------------------------------------------------------------

    def record_file(self, record: FileRecord, role: str) -> None:
        """Record a file read (idempotent on path and sha256)."""
        self.record_files([record], role)

    def record_files(self, records: Sequence[FileRecord], role: str) -> None:
        """Record files read, in one statement (idempotent on path and sha256)."""
        if not records:
            return
        rows = [
            [
                r.sha256,
                r.path,
                r.size_bytes,
                role,
                r.tool,
                r.tool_version,
                list(r.warnings),
            ]
            for r in records
        ]
        self.insert_rows(
            "INSERT INTO files (sha256, path, size_bytes, role, tool, tool_version, warnings) "
            "VALUES",
            rows,
            " ON CONFLICT (sha256, path) DO NOTHING",
        )

    # -- schema -----------------------------------------------------------------------------

    def _migrate(self) -> None:
        self.execute(
            "CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
        )
        found = self.execute("SELECT value FROM store_meta WHERE key = 'store_version'").fetchone()
        if found is not None and int(found[0]) != STORE_VERSION:
            raise StoreError(
                f"the evidence store {self.path} has format version {found[0]}; this evidencepack "
                f"writes version {STORE_VERSION}: import into a new file"
            )
        for name in _DDL_MODULES:
            module = importlib.import_module(f"{__package__}.{name}")
            for statement in module.DDL:
                self.execute(statement)
        self.execute(
            "INSERT INTO store_meta VALUES ('store_version', ?) ON CONFLICT (key) DO NOTHING",
            [str(STORE_VERSION)],
        )
