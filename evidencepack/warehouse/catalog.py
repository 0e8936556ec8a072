"""The catalog of held packs: an embedded DuckDB file by default (``DIR/catalog.duckdb``, table
``packs``, primary key ``pack_digest``), or PostgreSQL (``catalog_pg.py``) for an organisation.

Beside the packs, the catalog holds the watches added (table ``watches``, primary key
``watch_digest``, each naming its pack) and records every Parquet file of the folder's dataset
(table ``files``: its path under the folder, sha256, size and the packs whose rows it holds),
written in the same transaction as the pack's (or watch's) row: queries read only the files
recorded, ``verify`` checks each against its digest.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import StoreError
from .models import (
    PACK_COLUMNS,
    WATCH_COLUMNS,
    HeldFile,
    PackKey,
    PackRow,
    WatchRow,
    columns,
    to_pack,
    to_watch,
)

if TYPE_CHECKING:
    import duckdb

CATALOG_NAME = "catalog.duckdb"
ORDER = "ORDER BY decision_date, decision_id, pack_digest"
WATCH_ORDER = "ORDER BY decision_date, decision_id, pack_digest, as_of, watch_digest"
FILES_DDL = (
    "CREATE TABLE IF NOT EXISTS files (file VARCHAR PRIMARY KEY, sha256 VARCHAR NOT NULL, "
    "size_bytes BIGINT NOT NULL, packs VARCHAR NOT NULL)"
)


class Catalog(Protocol):
    """Which packs the warehouse holds, and where each came from."""

    def held_digests(self) -> set[str]:
        """The evidence digests held."""
        ...

    def held_packs(self) -> list[PackRow]:
        """Every held pack's row, by decision date, id and digest."""
        ...

    def record(self, pack: PackRow, files: Sequence[HeldFile] = ()) -> bool:
        """Insert the pack and its files in one transaction; False when it was held already."""
        ...

    def held_files(self) -> dict[str, HeldFile]:
        """This folder's recorded Parquet files, by path under the folder."""
        ...

    def swap_files(self, old: Sequence[str], new: HeldFile) -> None:
        """A compaction: ``new`` replaces the files ``old``, in one transaction."""
        ...

    def held_watches(self) -> list[WatchRow]:
        """Every held watch's row, by its pack's decision date, id and digest, then as-of."""
        ...

    def record_watch(self, watch: WatchRow, files: Sequence[HeldFile] = ()) -> bool:
        """Insert the watch and its files in one transaction; False when it was held already."""
        ...

    def owners_and_files(self) -> tuple[set[str], dict[str, HeldFile]]:
        """Every digest a Parquet file of the dataset may belong to (the held packs' evidence
        digests and the held watches' digests) and ``held_files``, read together over one
        connection: what a query reads before each run, one catalog round trip, not three."""
        ...


def _ddl(table: str = "packs", model: type[PackKey] = PackRow, key: str = "pack_digest") -> str:
    cols = ", ".join(f"{name} {kind}" for name, kind in columns(model).items())
    return f"CREATE TABLE IF NOT EXISTS {table} ({cols}, PRIMARY KEY ({key}))"


PACKS_DDL = _ddl()
WATCHES_DDL = _ddl("watches", WatchRow, "watch_digest")


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
                con.execute(PACKS_DDL)
                con.execute(WATCHES_DDL)
                con.execute(FILES_DDL)
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

    def held_files(self) -> dict[str, HeldFile]:
        """This folder's recorded Parquet files (none before the first add)."""
        if not self.path.exists():
            return {}
        with self._connect(read_only=True) as con:
            return _held_files(con)

    def owners_and_files(self) -> tuple[set[str], dict[str, HeldFile]]:
        """The held packs' and watches' digests and the recorded files, over one connection."""
        if not self.path.exists():
            return set(), {}
        with self._connect(read_only=True) as con:
            digests = {d for (d,) in con.execute("SELECT pack_digest FROM packs").fetchall()}
            if _has_table(con, "watches"):
                digests |= {
                    d for (d,) in con.execute("SELECT watch_digest FROM watches").fetchall()
                }
            return digests, _held_files(con)

    def swap_files(self, old: Sequence[str], new: HeldFile) -> None:
        """A compaction: ``new`` replaces the files ``old``, in one transaction."""
        with self._connect(read_only=False) as con:
            con.execute("BEGIN TRANSACTION")
            for name in old:
                con.execute("DELETE FROM files WHERE file = ?", [name])
            _insert_file(con, new)
            con.execute("COMMIT")

    def record(self, pack: PackRow, files: Sequence[HeldFile] = ()) -> bool:
        """Insert the pack and its files in one transaction; False when it was held already."""
        return self._record("packs", PACK_COLUMNS, "pack_digest", pack, files)

    def held_watches(self) -> list[WatchRow]:
        """Every held watch's row (none before the first watch is added)."""
        if not self.path.exists():
            return []
        with self._connect(read_only=True) as con:
            if not _has_table(con, "watches"):
                return []
            cursor = con.execute(f"SELECT {', '.join(WATCH_COLUMNS)} FROM watches {WATCH_ORDER}")
            return [to_watch(row) for row in cursor.fetchall()]

    def record_watch(self, watch: WatchRow, files: Sequence[HeldFile] = ()) -> bool:
        """Insert the watch and its files in one transaction; False when it was held already."""
        return self._record("watches", WATCH_COLUMNS, "watch_digest", watch, files)

    def _record(
        self,
        table: str,
        names: tuple[str, ...],
        key: str,
        row: PackKey,
        files: Sequence[HeldFile],
    ) -> bool:
        values = row.model_dump()
        with self._connect(read_only=False) as con:
            con.execute("BEGIN TRANSACTION")
            # table and key are this module's constants, never a user's text.
            held = con.execute(
                f"SELECT count(*) FROM {table} WHERE {key} = ?", [values[key]]
            ).fetchone()
            if held and held[0]:
                con.execute("ROLLBACK")
                return False
            marks = ", ".join("?" for _ in names)
            con.execute(
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})",
                [_value(values[n]) for n in names],
            )
            for held_file in files:
                _insert_file(con, held_file)
            con.execute("COMMIT")
        return True


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the catalog has table ``name`` (one written by an older version may not)."""
    known = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]
    ).fetchone()
    return bool(known and known[0])


def _held_files(con: duckdb.DuckDBPyConnection) -> dict[str, HeldFile]:
    if not _has_table(con, "files"):
        return {}
    rows = con.execute("SELECT file, sha256, size_bytes, packs FROM files").fetchall()
    return {f: HeldFile(f, s, int(n), tuple(p.split(",")) if p else ()) for f, s, n, p in rows}


def _value(value: object) -> object:
    """A row's value as DuckDB takes it (a tuple of text is a list)."""
    return list(value) if isinstance(value, tuple) else value


def _insert_file(con: duckdb.DuckDBPyConnection, held: HeldFile) -> None:
    con.execute(
        "INSERT OR REPLACE INTO files (file, sha256, size_bytes, packs) VALUES (?, ?, ?, ?)",
        [held.file, held.sha256, held.size_bytes, ",".join(held.packs)],
    )


def open_catalog(root: Path, url: str | None = None) -> Catalog:
    """The warehouse's catalog: PostgreSQL at ``url`` (postgresql://...), else DIR's DuckDB file."""
    if url is None:
        return DuckDBCatalog(root)
    from .catalog_pg import PostgresCatalog

    return PostgresCatalog(url, root)
