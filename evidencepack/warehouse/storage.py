"""The Parquet dataset: one file per pack per table, staged, journalled and renamed into place.

An ``add`` writes a pack's files under ``DIR/.staging/``, writes a journal naming their final
places, renames them into ``DIR/tables/<table>/decision_year=YYYY/<digest>.parquet`` and records
the pack in the catalog last, with each file's sha256. ``recover`` undoes any add that never
reached the catalog (a killed process), so a pack is visible whole or not at all.

A journal is followed only as far as the warehouse's own files: every path it names must be a
Parquet file of the dataset (``tables/<table>/decision_year=YYYY/<name>.parquet`` under the folder,
no symbolic link on the way), checked before anything is removed, and the warehouse's own
folders (``.staging``, the journals, ``tables``) are never symbolic links; anything else is
refused with the file named, and nothing is removed.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import CouldNotRun, StoreError
from .catalog import Catalog
from .models import TABLES, HeldFile, PackKey, columns
from .per_request import stage_requests
from .rows import PackRows

TABLES_DIR = "tables"
STAGING_DIR = ".staging"
JOURNAL_DIR = ".journal"
COMPACT_JOURNAL_DIR = ".journal-compact"
LOCK_NAME = ".lock"
COMPACTING_DIR = ".compacting"
OWN_FOLDERS = (TABLES_DIR, STAGING_DIR, JOURNAL_DIR, COMPACT_JOURNAL_DIR, COMPACTING_DIR)
MAX_JOURNAL_BYTES = 1 << 20

_DIGEST = re.compile(r"[0-9a-f]{64}")
_PARTITION = re.compile(r"decision_year=[0-9]{4}")
_ADDED_FILE = re.compile(r"[0-9a-f]{64}\.parquet")
_COMPACTED_FILE = re.compile(r"part-[0-9a-f]{16}\.parquet")
_COMPACT_JOURNAL = re.compile(r"(?P<table>[a-z_]+)-(?P<partition>decision_year=[0-9]{4})\.json")


def guard(root: Path) -> None:
    """Refuse a warehouse whose own folders are symbolic links (followed, a cleanup would remove
    or write another folder's files)."""
    for name in OWN_FOLDERS:
        if (root / name).is_symlink():
            raise StoreError(
                f"{root / name}: a symbolic link where the warehouse keeps its own folder; "
                "refused, nothing followed or removed (remove the link by hand)"
            )


def dataset_file(root: Path, name: object, journal: Path) -> str:
    """``name`` (from ``journal``) as the path under ``root`` of one of the dataset's own Parquet
    files, or a StoreError: nothing outside the dataset is ever removed on a journal's word."""
    refused = StoreError(
        f"{journal}: names {name!r}, not one of the warehouse's own Parquet files; refused, "
        "nothing removed (look at the journal, then remove it by hand)"
    )
    if not isinstance(name, str) or "\\" in name or "\x00" in name:
        raise refused
    path = Path(name)
    if path.is_absolute():  # a journal written before paths were relative to the folder
        for base in (root.absolute(), root.resolve()):
            if path.is_relative_to(base):
                path = path.relative_to(base)
                break
        else:
            raise refused
    parts = path.parts
    if (
        len(parts) != 4
        or parts[0] != TABLES_DIR
        or parts[1] not in TABLES
        or not _PARTITION.fullmatch(parts[2])
        or not (_ADDED_FILE.fullmatch(parts[3]) or _COMPACTED_FILE.fullmatch(parts[3]))
    ):
        raise refused
    for depth in range(1, 5):
        if (root.joinpath(*parts[:depth])).is_symlink():
            raise refused
    return path.as_posix()


def file_digest(path: Path) -> str:
    """sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def held_file(root: Path, name: str, packs: tuple[str, ...]) -> HeldFile:
    """What the catalog records of the dataset file ``name`` (a path under ``root``)."""
    path = root / name
    return HeldFile(name, file_digest(path), path.stat().st_size, packs)


def _read_journal(journal: Path) -> object:
    if journal.is_symlink() or not journal.is_file():
        raise StoreError(f"{journal}: not a regular file; refused, nothing removed")
    if journal.stat().st_size > MAX_JOURNAL_BYTES:
        raise StoreError(f"{journal}: over {MAX_JOURNAL_BYTES} bytes; refused, nothing removed")
    try:
        return json.loads(journal.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{journal}: not a journal the warehouse wrote ({exc})") from exc


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
    moves = stage_tables(root, rows.digest, rows.decision_date_iso, rows.tables)
    if rows.requests is None:
        return moves, None
    staging = root / STAGING_DIR / rows.digest
    year = rows.decision_date_iso[:4]
    staged = staging / "requests.parquet"
    day = dt.date.fromisoformat(rows.decision_date_iso)
    count = stage_requests(rows.requests, rows.digest, rows.decision_id, day, staged)
    if count:
        moves[staged] = _final(root, "requests", year, rows.digest)
    return moves, count


def stage_tables(
    root: Path, digest: str, day_iso: str, tables: Mapping[str, Sequence[PackKey]]
) -> dict[Path, Path]:
    """Write one Parquet file per table of ``tables`` (the rows of the pack or watch
    ``digest``, decided on ``day_iso``) under the staging folder: staged file -> final place."""
    import duckdb

    guard(root)
    staging = root / STAGING_DIR / digest
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    moves: dict[Path, Path] = {}
    year = day_iso[:4]
    con = duckdb.connect()
    try:
        for table, model in TABLES.items():
            items = tables.get(table)
            if not items:
                continue
            lines = staging / f"{table}.jsonl"
            lines.write_text("".join(r.model_dump_json() + "\n" for r in items), encoding="utf-8")
            con.execute(
                f"CREATE TABLE {table}_rows AS SELECT * FROM read_json($f, "
                "format='newline_delimited', columns=$c, hive_partitioning=false)",
                {"f": str(lines), "c": columns(model)},
            )
            # One file, as a Hive-partitioned write leaves it: the partition column is in the
            # folder's name only (every row of a pack has one decision date).
            written = staging / f"{table}.parquet"
            con.execute(
                f"COPY (SELECT * FROM {table}_rows) TO $p (FORMAT PARQUET)", {"p": str(written)}
            )
            moves[written] = _final(root, table, year, digest)
    except duckdb.Error as exc:
        raise StoreError(f"{root}: cannot write the rows of {digest}: {exc}") from exc
    finally:
        con.close()
    return moves


def _final(root: Path, table: str, year: str, digest: str) -> Path:
    return root / TABLES_DIR / table / f"decision_year={year}" / f"{digest}.parquet"


def _journal(root: Path, digest: str) -> Path:
    return root / JOURNAL_DIR / f"{digest}.json"


def publish(root: Path, digest: str, moves: dict[Path, Path]) -> list[HeldFile]:
    """Journal the final places (paths under ``root``), then rename every staged file into
    place: what the catalog records of each."""
    guard(root)
    journal = _journal(root, digest)
    names = {final: final.relative_to(root).as_posix() for final in moves.values()}
    for name in names.values():
        dataset_file(root, name, journal)  # no symbolic link on the way to where it goes
    journal.parent.mkdir(parents=True, exist_ok=True)
    tmp = journal.with_suffix(".tmp")
    tmp.write_text(json.dumps(sorted(names.values())), encoding="utf-8")
    os.replace(tmp, journal)
    for staged, final in moves.items():
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, final)
    return [held_file(root, names[final], (digest,)) for final in moves.values()]


def finish(root: Path, digest: str) -> None:
    """The pack is in the catalog: drop its journal and staging folder."""
    _journal(root, digest).unlink(missing_ok=True)
    shutil.rmtree(root / STAGING_DIR / digest, ignore_errors=True)


def _added_files(root: Path, journal: Path) -> list[str]:
    """The files an add's journal names, each checked to be that pack's own dataset file."""
    named = _read_journal(journal)
    if not isinstance(named, list):
        raise StoreError(f"{journal}: not a journal the warehouse wrote; refused, nothing removed")
    files = [dataset_file(root, name, journal) for name in named]
    for name in files:
        if Path(name).name != f"{journal.stem}.parquet":
            raise StoreError(
                f"{journal}: names {name!r}, not a file of pack {journal.stem}; refused, "
                "nothing removed"
            )
    return files


def roll_back(root: Path, digest: str) -> None:
    """Remove every file a journalled add of ``digest`` put in place, then its journal."""
    guard(root)
    journal = _journal(root, digest)
    if journal.exists() or journal.is_symlink():
        for name in _added_files(root, journal):
            (root / name).unlink(missing_ok=True)
        journal.unlink()
    _remove_staged(root / STAGING_DIR / digest)


def _remove_staged(folder: Path) -> None:
    """Remove one entry of the staging folder: a link or file itself, a folder with its files
    (``rmtree`` follows no link inside it)."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink(missing_ok=True)
    else:
        shutil.rmtree(folder, ignore_errors=True)


def finish_compaction(root: Path, journal: Path, catalog: Catalog) -> None:
    """Complete a journalled compaction (call under the exclusive lock): once its new file is in
    place, remove the files it replaces and record the swap in the catalog; before that, nothing
    of it is visible. Then drop the journal. Every path is checked before anything is removed."""
    shape = _COMPACT_JOURNAL.fullmatch(journal.name)
    done = _read_journal(journal)
    if not shape or not isinstance(done, dict) or not isinstance(done.get("old"), list):
        raise StoreError(f"{journal}: not a journal the warehouse wrote; refused, nothing removed")
    new = dataset_file(root, done.get("new"), journal)
    old = [dataset_file(root, name, journal) for name in done["old"]]
    partition = f"{TABLES_DIR}/{shape['table']}/{shape['partition']}/"
    if not _COMPACTED_FILE.fullmatch(Path(new).name) or not all(
        name.startswith(partition) for name in [new, *old]
    ):
        raise StoreError(f"{journal}: names files outside {partition}; refused, nothing removed")
    if (root / new).exists():
        held = catalog.held_files()
        if new not in held:
            packs = sorted({d for name in old if name in held for d in held[name].packs})
            catalog.swap_files(old, held_file(root, new, tuple(packs)))
        for name in old:
            if name != new:
                (root / name).unlink(missing_ok=True)
    journal.unlink()


def recover(root: Path, catalog: Catalog) -> list[str]:
    """Undo every add that never reached the catalog and complete every compaction that was
    stopped halfway (call under the exclusive lock). An add is kept only when the catalog
    records this folder's files of it (another folder sharing the catalog may hold the pack)."""
    guard(root)
    for journal in sorted((root / COMPACT_JOURNAL_DIR).glob("*.json")):
        finish_compaction(root, journal, catalog)
    journals = sorted((root / JOURNAL_DIR).glob("*.json"))
    staged = sorted((root / STAGING_DIR).glob("*")) if (root / STAGING_DIR).exists() else []
    if not journals and not staged:
        return []
    for journal in journals:
        if not _DIGEST.fullmatch(journal.stem):
            raise StoreError(f"{journal}: not a journal the warehouse wrote; refused")
    held = catalog.held_files() if journals else {}
    undone = []
    for journal in journals:
        digest = journal.stem
        files = _added_files(root, journal)
        if files and all(name in held and digest in held[name].packs for name in files):
            finish(root, digest)
        else:
            roll_back(root, digest)
            undone.append(digest)
    for folder in staged:
        _remove_staged(folder)
    return undone


def needs_recovery(root: Path) -> bool:
    """Whether a killed add or compaction left a journal or staging folder behind."""
    return (
        any((root / JOURNAL_DIR).glob("*.json"))
        or any((root / STAGING_DIR).glob("*"))
        or any((root / COMPACT_JOURNAL_DIR).glob("*.json"))
    )
