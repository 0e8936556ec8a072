"""One DuckDB connection whose errors are evidencepack's: the base of every DuckDB wrapper.

``Store`` (the evidence store), ``staging.stage.Staging`` (one file's per-request rows) and
``staging.items.ItemStaging`` (one file's per-item scores) each subclass ``Connection`` and say, in
``_error``, what a failed statement means for them (a store error, or a bad input file naming
its line). Values always travel as parameters, never as SQL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from ..errors import EvidencePackError


class Connection:
    """A DuckDB database (a file, or ``:memory:``) open for one owner."""

    def __init__(
        self,
        database: str = ":memory:",
        config: Mapping[str, str] | None = None,
        *,
        cursor_of: duckdb.DuckDBPyConnection | None = None,
    ) -> None:
        """Open ``database``; or, with ``cursor_of``, a new connection to that open database (its
        temporary tables are this connection's own, and go when it is closed)."""
        try:
            if cursor_of is not None:
                self.con = cursor_of.cursor()
                return
            self.con = duckdb.connect(database, config=dict(config or {}))
            if config:
                # Nothing run later may turn the configured switches back on.
                self.con.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            raise self._open_error(exc) from exc

    def _error(self, exc: duckdb.Error, doing: str) -> EvidencePackError:
        """What a failed statement means to this owner (``doing``: ``query``, ``insert``, ...)."""
        raise NotImplementedError

    def _open_error(self, exc: duckdb.Error) -> EvidencePackError:
        """What a database that cannot be opened means to this owner."""
        return self._error(exc, "open")

    def close(self) -> None:
        """Close the connection (an in-memory database is gone with it)."""
        self.con.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> Any:
        """Run one parameterised statement; a DuckDB error is re-raised as ``_error`` says."""
        try:
            return self.con.execute(sql, params) if params is not None else self.con.execute(sql)
        except duckdb.Error as exc:
            raise self._error(exc, "query") from exc

    def execute_over(
        self, name: str, data: Any, sql: str, params: Sequence[Any] = (), *, doing: str = "insert"
    ) -> None:
        """Run ``sql`` with ``data`` (columns: numpy arrays or lists) visible as the view ``name``.

        The bulk path: DuckDB scans the arrays directly, no Python row loop. ``name`` and ``sql``
        are evidencepack's own, never input.
        """
        try:
            self.con.register(name, data)
            try:
                self.con.execute(sql, list(params))
            finally:
                self.con.unregister(name)
        except duckdb.Error as exc:
            raise self._error(exc, doing) from exc


def literal_path(path: object) -> str:
    """``path`` as a DuckDB file pattern that matches only itself.

    DuckDB's file readers (``read_json``, ``read_csv``, ``read_parquet``, ...) expand glob
    characters: ``run[1].json`` would read ``run1.json``, and ``run*.json`` every run. Each ``*``,
    ``?`` and ``[`` is put in brackets, so it matches itself. Every reader passes its file so.
    """
    return re.sub(r"([*?\[])", r"[\1]", str(path))
