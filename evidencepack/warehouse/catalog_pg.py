"""The catalog in PostgreSQL (``--catalog postgresql://...``): many release pipelines, one list.

Each pack is one ``INSERT ... ON CONFLICT (pack_digest) DO NOTHING`` in its own transaction, so
concurrent adds of the same pack hold it once. psycopg errors become StoreError here.

Table ``files`` records each folder's Parquet files (keyed by the folder's absolute path and the
file's path under it): folders sharing the catalog each hold their own files, so one folder's
recovery never keeps a partial add because another folder added the same pack.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CouldNotRun, StoreError, option
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
    import psycopg

_PG_TYPES = {
    "VARCHAR": "text",
    "DATE": "date",
    "BIGINT": "bigint",
    "DOUBLE": "double precision",
    "VARCHAR[]": "text[]",
}


class PostgresCatalog:
    """The catalog as tables ``packs`` and ``watches`` in a PostgreSQL database."""

    def __init__(self, url: str, root: Path) -> None:
        if not url.startswith(("postgresql://", "postgres://")):
            raise StoreError(f"{option('catalog')} {url!r}: give a postgresql:// URL")
        self.url = url
        self.folder = str(root.resolve())

    @contextmanager
    def _connect(self) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
        try:
            import psycopg
            from psycopg import sql
        except ImportError as exc:
            raise CouldNotRun(
                "a PostgreSQL catalog needs psycopg: pip install 'evidencepack[postgresql]'"
            ) from exc
        try:
            with psycopg.connect(self.url) as con:
                for table, model, key in (
                    ("packs", PackRow, "pack_digest"),
                    ("watches", WatchRow, "watch_digest"),
                ):
                    cols = sql.SQL(", ").join(
                        sql.SQL("{} {}").format(sql.Identifier(n), sql.SQL(_PG_TYPES[k]))
                        for n, k in columns(model).items()
                    )
                    con.execute(
                        sql.SQL("CREATE TABLE IF NOT EXISTS {} ({}, PRIMARY KEY ({}))").format(
                            sql.Identifier(table), cols, sql.Identifier(key)
                        )
                    )
                con.execute(
                    "CREATE TABLE IF NOT EXISTS files (warehouse text NOT NULL, "
                    "file text NOT NULL, sha256 text NOT NULL, size_bytes bigint NOT NULL, "
                    "packs text NOT NULL, PRIMARY KEY (warehouse, file))"
                )
                con.commit()
                yield con
        except psycopg.Error as exc:
            raise StoreError(f"the PostgreSQL catalog: {exc}") from exc

    def held_digests(self) -> set[str]:
        """The evidence digests held."""
        with self._connect() as con:
            return {str(d) for (d,) in con.execute("SELECT pack_digest FROM packs").fetchall()}

    def held_packs(self) -> list[PackRow]:
        """Every held pack's row, by decision date, id and digest."""
        from psycopg import sql

        order = "ORDER BY decision_date, decision_id, pack_digest"
        query = sql.SQL("SELECT {} FROM packs " + order).format(
            sql.SQL(", ").join(map(sql.Identifier, PACK_COLUMNS))
        )
        with self._connect() as con:
            return [to_pack(tuple(row)) for row in con.execute(query).fetchall()]

    def held_files(self) -> dict[str, HeldFile]:
        """This folder's recorded Parquet files, by path under the folder."""
        with self._connect() as con:
            return self._held_files(con)

    def _held_files(self, con: psycopg.Connection[tuple[object, ...]]) -> dict[str, HeldFile]:
        rows = con.execute(
            "SELECT file, sha256, size_bytes, packs FROM files WHERE warehouse = %s",
            [self.folder],
        ).fetchall()
        return {
            str(f): HeldFile(str(f), str(s), int(str(n)), tuple(str(p).split(",")) if p else ())
            for f, s, n, p in rows
        }

    def owners_and_files(self) -> tuple[set[str], dict[str, HeldFile]]:
        """The held packs' and watches' digests and this folder's files, over one connection
        (in one transaction: one snapshot)."""
        with self._connect() as con:
            digests = {str(d) for (d,) in con.execute("SELECT pack_digest FROM packs").fetchall()}
            watches = con.execute("SELECT watch_digest FROM watches").fetchall()
            digests |= {str(d) for (d,) in watches}
            return digests, self._held_files(con)

    def swap_files(self, old: Sequence[str], new: HeldFile) -> None:
        """A compaction: ``new`` replaces the files ``old``, in one transaction."""
        with self._connect() as con:
            for name in old:
                con.execute(
                    "DELETE FROM files WHERE warehouse = %s AND file = %s", [self.folder, name]
                )
            self._insert_file(con, new)
            con.commit()

    def _insert_file(self, con: psycopg.Connection[tuple[object, ...]], held: HeldFile) -> None:
        con.execute(
            "INSERT INTO files (warehouse, file, sha256, size_bytes, packs) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (warehouse, file) DO UPDATE SET "
            "sha256 = EXCLUDED.sha256, size_bytes = EXCLUDED.size_bytes, packs = EXCLUDED.packs",
            [self.folder, held.file, held.sha256, held.size_bytes, ",".join(held.packs)],
        )

    def record(self, pack: PackRow, files: Sequence[HeldFile] = ()) -> bool:
        """Insert the pack and its files in one transaction; False when it was held already."""
        return self._record("packs", PACK_COLUMNS, "pack_digest", pack, files)

    def held_watches(self) -> list[WatchRow]:
        """Every held watch's row, by its pack's decision date, id and digest, then as-of."""
        from psycopg import sql

        order = "ORDER BY decision_date, decision_id, pack_digest, as_of, watch_digest"
        query = sql.SQL("SELECT {} FROM watches " + order).format(
            sql.SQL(", ").join(map(sql.Identifier, WATCH_COLUMNS))
        )
        with self._connect() as con:
            return [to_watch(tuple(row)) for row in con.execute(query).fetchall()]

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
        from psycopg import sql

        query = sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) DO NOTHING").format(
            sql.Identifier(table),
            sql.SQL(", ").join(map(sql.Identifier, names)),
            sql.SQL(", ").join(sql.Placeholder(n) for n in names),
            sql.Identifier(key),
        )
        values = {n: list(v) if isinstance(v, tuple) else v for n, v in row.model_dump().items()}
        with self._connect() as con:
            cursor = con.execute(query, values)
            if cursor.rowcount != 1:
                con.rollback()
                return False
            for held_file in files:
                self._insert_file(con, held_file)
            con.commit()
            return True
