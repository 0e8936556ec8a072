"""Rows a file's staging left inside the store's own database, ready to move into a store table.

Within ``staging.staging_db.shared_staging(store)``, a large file is staged in an in-memory catalog
attached to the store's DuckDB (one catalog per file), so its rows reach the store's tables by
one ``INSERT ... SELECT`` inside DuckDB: no copy through Python or numpy, and no second copy of
the rows held at the peak (issue 29). The catalog is detached once the rows are moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class StagedRows:
    """``select`` (evidencepack's own SQL) reads a file's staged rows, in staging order, from
    ``catalog``, a catalog attached to the database of ``owner`` (the store's connection);
    ``names`` are the columns it yields."""

    owner: duckdb.DuckDBPyConnection
    catalog: str
    select: str
    names: tuple[str, ...]

    def release(self) -> None:
        """Drop the staged rows (detach their catalog); releasing twice is harmless."""
        detach(self.owner, self.catalog)


def detach(owner: duckdb.DuckDBPyConnection, catalog: str) -> None:
    """Detach ``catalog`` (an identifier of evidencepack's own) from ``owner``'s database, through
    a cursor of its own so the owner's open transaction is left as it is."""
    with owner.cursor() as cursor:
        cursor.execute(f"DETACH DATABASE IF EXISTS {catalog}")
