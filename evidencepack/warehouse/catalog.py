"""The catalog of held packs: an embedded DuckDB file by default (``DIR/catalog.duckdb``, table
``packs``, primary key ``pack_digest``), or PostgreSQL (``catalog_pg.py``) for an organisation."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import StoreError
from .models import PACK_COLUMNS, PackRow, columns, to_pack

if TYPE_CHECKING:
    import duckdb

CATALOG_NAME = "catalog.duckdb"
ORDER = "ORDER BY decision_date, decision_id, pack_digest"


class Catalog(Protocol):
    """Which packs the warehouse holds, and where each came from."""

    def held_digests(self) -> set[str]:
        """The evidence digests held."""
        ...

    def held_packs(self) -> list[PackRow]:
        """Every held pack's row, by decision date, id and digest."""
        ...

    def record(self, pack: PackRow) -> bool:
        """Insert the pack in one transaction; False when it was held already."""
        ...


def _ddl() -> str:
    cols = ", ".join(f"{name} {kind}" for name, kind in columns(PackRow).items())
    return f"CREATE TABLE IF NOT EXISTS packs ({cols}, PRIMARY KEY (pack_digest))"


class DuckDBCatalog:
    """The catalog as an embedded DuckDB file in the warehouse folder."""

    def __init__(self, root: Path) -> None:
        self.path = root / CATALOG_NAME

    @contextmanager
    def _connect(self, *, read_only: bool) -> Iterator[duckdb.DuckDBPyConnection]:
        import duckdb

        try:
            con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            raise StoreError(f"{self.path}: cannot open the warehouse catalog: {exc}") from exc
        try:
            if not read_only:
                con.execute(_ddl())
            yield con
        except duckdb.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc
        finally:
            con.close()

    def held_digests(self) -> set[str]:
        """The evidence digests held (none for a new warehouse)."""
        if not self.path.exists():
            return set()
        with self._connect(read_only=True) as con:
            return {d for (d,) in con.execute("SELECT pack_digest FROM packs").fetchall()}

    def held_packs(self) -> list[PackRow]:
        """Every held pack's row, by decision date, id and digest."""
        if not self.path.exists():
            return []
        with self._connect(read_only=True) as con:
            cursor = con.execute(f"SELECT {', '.join(PACK_COLUMNS)} FROM packs {ORDER}")
            return [to_pack(row) for row in cursor.fetchall()]

    def record(self, pack: PackRow) -> bool:
        """Insert the pack in one transaction; False when it was held already."""
        values = pack.model_dump()
        with self._connect(read_only=False) as con:
            con.execute("BEGIN TRANSACTION")
            held = con.execute(
                "SELECT count(*) FROM packs WHERE pack_digest = ?", [pack.pack_digest]
            ).fetchone()
            if held and held[0]:
                con.execute("ROLLBACK")
                return False
            marks = ", ".join("?" for _ in PACK_COLUMNS)
            con.execute(
                f"INSERT INTO packs ({', '.join(PACK_COLUMNS)}) VALUES ({marks})",
                [values[n] for n in PACK_COLUMNS],
            )
            con.execute("COMMIT")
        return True


def open_catalog(root: Path, url: str | None = None) -> Catalog:
    """The warehouse's catalog: PostgreSQL at ``url`` (postgresql://...), else DIR's DuckDB file."""
    if url is None:
        return DuckDBCatalog(root)
    from .catalog_pg import PostgresCatalog

    return PostgresCatalog(url)
