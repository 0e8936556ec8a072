"""The Parquet dataset: one file per pack per table, staged, journalled and renamed into place.

An ``add`` writes a pack's files under ``DIR/.staging/``, writes a journal naming their final
places, renames them into ``DIR/tables/<table>/decision_year=YYYY/<digest>.parquet`` and records
the pack in the catalog last. ``recover`` undoes any add that never reached the catalog (a killed
process), so a pack is visible whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import CouldNotRun, StoreError
from .catalog import Catalog
from .models import TABLES, columns
from .per_request import stage_requests
from .rows import PackRows

TABLES_DIR = "tables"
STAGING_DIR = ".staging"
JOURNAL_DIR = ".journal"
COMPACT_JOURNAL_DIR = ".journal-compact"
LOCK_NAME = ".lock"


@contextmanager
def locked(root: Path, *, exclusive: bool, name: str = LOCK_NAME) -> Iterator[None]:
    """Hold the warehouse lock: exclusive for a writer, shared for a reader (``name``: another
    lock file, e.g. the one compactions take one at a time)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = (root / name).open("a")
    except OSError as exc:
        raise CouldNotRun(f"{root}: cannot open the warehouse: {exc.strerror}") from exc
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def table_glob(root: Path, table: str) -> str:
    """The glob of one table's Parquet files."""
    return str(root / TABLES_DIR / table / "**" / "*.parquet")


def stage_pack(root: Path, rows: PackRows) -> tuple[dict[Path, Path], int | None]:
    """Write the pack's Parquet files under the staging folder: (staged file -> final place,
    the number of per-request rows staged, None without ``--requests``)."""
    import duckdb

    staging = root / STAGING_DIR / rows.digest
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    moves: dict[Path, Path] = {}
    year = rows.decision_date_iso[:4]
    con = duckdb.connect()
    try:
        for table, model in TABLES.items():
            items = rows.tables.get(table)
            if not items:
                continue
            lines = staging / f"{table}.jsonl"
            lines.write_text("".join(r.model_dump_json() + "\n" for r in items), encoding="utf-8")
            con.execute(
                f"CREATE TABLE {table}_rows AS SELECT * FROM read_json($f, "
                "format='newline_delimited', columns=$c)",
                {"f": str(lines), "c": columns(model)},
            )
            out = staging / table
            con.execute(
                f"COPY (SELECT *, year(decision_date) AS decision_year FROM {table}_rows) "
                "TO $p (FORMAT PARQUET, PARTITION_BY (decision_year))",
                {"p": str(out)},
            )
            (written,) = out.glob("decision_year=*/*.parquet")
            moves[written] = _final(root, table, year, rows.digest)
    except duckdb.Error as exc:
        raise StoreError(f"{root}: cannot write the pack {rows.digest}: {exc}") from exc
    finally:
        con.close()
    if rows.requests is None:
        return moves, None
    staged = staging / "requests.parquet"
    day = dt.date.fromisoformat(rows.decision_date_iso)
    count = stage_requests(rows.requests, rows.digest, rows.decision_id, day, staged)
    if count:
        moves[staged] = _final(root, "requests", year, rows.digest)
    return moves, count


def _final(root: Path, table: str, year: str, digest: str) -> Path:
    return root / TABLES_DIR / table / f"decision_year={year}" / f"{digest}.parquet"


def _journal(root: Path, digest: str) -> Path:
    return root / JOURNAL_DIR / f"{digest}.json"


def publish(root: Path, digest: str, moves: dict[Path, Path]) -> None:
    """Journal the final places, then rename every staged file into place."""
    journal = _journal(root, digest)
    journal.parent.mkdir(parents=True, exist_ok=True)
    tmp = journal.with_suffix(".tmp")
    tmp.write_text(json.dumps(sorted(str(p) for p in moves.values())), encoding="utf-8")
    os.replace(tmp, journal)
    for staged, final in moves.items():
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, final)


def finish(root: Path, digest: str) -> None:
    """The pack is in the catalog: drop its journal and staging folder."""
    _journal(root, digest).unlink(missing_ok=True)
    shutil.rmtree(root / STAGING_DIR / digest, ignore_errors=True)


def roll_back(root: Path, digest: str) -> None:
    """Remove every file a journalled add of ``digest`` put in place, then its journal."""
    journal = _journal(root, digest)
    if journal.exists():
        for name in json.loads(journal.read_text(encoding="utf-8")):
            Path(name).unlink(missing_ok=True)
        journal.unlink()
    shutil.rmtree(root / STAGING_DIR / digest, ignore_errors=True)


def finish_compaction(journal: Path) -> None:
    """Complete a journalled compaction (call under the exclusive lock): once its new file is in
    place, remove the files it replaces; before that, nothing of it is visible. Then drop the
    journal."""
    done = json.loads(journal.read_text(encoding="utf-8"))
    if Path(done["new"]).exists():
        for name in done["old"]:
            Path(name).unlink(missing_ok=True)
    journal.unlink()


def recover(root: Path, catalog: Catalog) -> list[str]:
    """Undo every add that never reached the catalog and complete every compaction that was
    stopped halfway (call under the exclusive lock)."""
    for journal in sorted((root / COMPACT_JOURNAL_DIR).glob("*.json")):
        finish_compaction(journal)
    journals = sorted((root / JOURNAL_DIR).glob("*.json"))
    staged = sorted((root / STAGING_DIR).glob("*")) if (root / STAGING_DIR).exists() else []
    if not journals and not staged:
        return []
    held = catalog.held_digests()
    undone = []
    for journal in journals:
        digest = journal.stem
        if digest in held:
            finish(root, digest)
        else:
            roll_back(root, digest)
            undone.append(digest)
    for folder in staged:
        shutil.rmtree(folder, ignore_errors=True)
    return undone


def needs_recovery(root: Path) -> bool:
    """Whether a killed add or compaction left a journal or staging folder behind."""
    return (
        any((root / JOURNAL_DIR).glob("*.json"))
        or any((root / STAGING_DIR).glob("*"))
        or any((root / COMPACT_JOURNAL_DIR).glob("*.json"))
    )
