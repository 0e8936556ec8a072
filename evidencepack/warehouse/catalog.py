"""The catalog of held packs: an embedded DuckDB file, ``DIR/catalog.duckdb``, table ``packs``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError
from .models import PackRow, columns

if TYPE_CHECKING:
    import duckdb

CATALOG_NAME = "catalog.duckdb"


def _ddl() -> str:
    cols = ", ".join(f"{name} {kind}" for name, kind in columns(PackRow).items())
    return f"CREATE TABLE IF NOT EXISTS packs ({cols}, PRIMARY KEY (pack_digest))"


@contextmanager
def open_catalog(root: Path, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """The catalog's connection (created on first write); DuckDB errors become StoreError."""
    import duckdb

    path = root / CATALOG_NAME
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise StoreError(f"{path}: cannot open the warehouse catalog: {exc}") from exc
    try:
        if not read_only:
            con.execute(_ddl())
        yield con
    except duckdb.Error as exc:
        raise StoreError(f"{path}: {exc}") from exc
    finally:
        con.close()


def held_digests(root: Path) -> set[str]:
    """The evidence digests the catalog holds (none for a new warehouse)."""
    if not (root / CATALOG_NAME).exists():
        return set()
    with open_catalog(root, read_only=True) as con:
        return {d for (d,) in con.execute("SELECT pack_digest FROM packs").fetchall()}


def held_packs(root: Path) -> list[PackRow]:
    """Every held pack's catalog row, by decision date, id and digest."""
    if not (root / CATALOG_NAME).exists():
        return []
    names = list(columns(PackRow))
    with open_catalog(root, read_only=True) as con:
        cursor = con.execute(
            f"SELECT {', '.join(names)} FROM packs ORDER BY decision_date, decision_id, pack_digest"
        )
        return [PackRow.model_validate(dict(zip(names, r, strict=True))) for r in cursor.fetchall()]


def record_packs(root: Path, packs: Sequence[PackRow]) -> None:
    """Insert the packs' rows in one transaction: all of them or none."""
    names = list(columns(PackRow))
    marks = ", ".join("?" for _ in names)
    with open_catalog(root) as con:
        con.execute("BEGIN TRANSACTION")
        con.executemany(
            f"INSERT INTO packs ({', '.join(names)}) VALUES ({marks})",
            [[p.model_dump()[n] for n in names] for p in packs],
        )
        con.execute("COMMIT")
