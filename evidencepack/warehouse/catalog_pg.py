"""The catalog in PostgreSQL (``--catalog postgresql://...``): many release pipelines, one list.

Each pack is one ``INSERT ... ON CONFLICT (pack_digest) DO NOTHING`` in its own transaction, so
concurrent adds of the same pack hold it once. psycopg errors become StoreError here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..errors import CouldNotRun, StoreError
from .models import PACK_COLUMNS, PackRow, columns, to_pack

if TYPE_CHECKING:
    import psycopg

_PG_TYPES = {"VARCHAR": "text", "DATE": "date", "BIGINT": "bigint", "DOUBLE": "double precision"}


class PostgresCatalog:
    """The catalog as table ``packs`` in a PostgreSQL database."""

    def __init__(self, url: str) -> None:
        if not url.startswith(("postgresql://", "postgres://")):
            raise StoreError(f"--catalog {url!r}: give a postgresql:// URL")
        self.url = url

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
                cols = sql.SQL(", ").join(
                    sql.SQL("{} {}").format(sql.Identifier(n), sql.SQL(_PG_TYPES[k]))
                    for n, k in columns(PackRow).items()
                )
                con.execute(
                    sql.SQL(
                        "CREATE TABLE IF NOT EXISTS packs ({}, PRIMARY KEY (pack_digest))"
                    ).format(cols)
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

    def record(self, pack: PackRow) -> bool:
        """Insert the pack in one transaction; False when it was held already."""
        from psycopg import sql

        query = sql.SQL(
            "INSERT INTO packs ({}) VALUES ({}) ON CONFLICT (pack_digest) DO NOTHING"
        ).format(
            sql.SQL(", ").join(map(sql.Identifier, PACK_COLUMNS)),
            sql.SQL(", ").join(sql.Placeholder(n) for n in PACK_COLUMNS),
        )
        with self._connect() as con:
            cursor = con.execute(query, pack.model_dump())
            con.commit()
            return cursor.rowcount == 1
