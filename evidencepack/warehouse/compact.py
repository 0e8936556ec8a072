"""``warehouse compact``: each partition's many small Parquet files rewritten as one.

Every ``add`` writes one file per pack per table, so queries open thousands of files. Compacting
a partition (``tables/<table>/decision_year=YYYY/``) copies the rows of its files, in file-name
order, into one file ``part-<hash>.parquet`` with DuckDB, then swaps it in:

1. under the exclusive warehouse lock: finish what a dead add or compaction left, and list the
   partition's files (every one belongs to a pack the catalog holds);
2. without the warehouse lock (adds and queries go on): write the new file under
   ``DIR/.compacting/``; the listed files cannot change meanwhile, since only a compaction
   removes a held pack's files and compactions take ``DIR/.compact.lock`` one at a time;
3. under the exclusive lock: journal (new file, old files), rename the new file into place,
   remove the old ones, drop the journal.

A reader holds the shared lock, so it sees the old files or the new one, never both; a
compaction killed between the rename and the last removal is completed by the next ``add``,
``query``, ``verify`` or ``compact`` (``storage.recover``). Files an add wrote meanwhile stay as
they are, for the next compaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError
from . import storage
from .catalog import Catalog, open_catalog
from .models import TABLES

COMPACTING_DIR = storage.COMPACTING_DIR
COMPACT_LOCK_NAME = ".compact.lock"


@dataclass(frozen=True)
class Compacted:
    """One partition compacted: how many files it had, and the one file it has now."""

    table: str
    partition: str
    files_before: int
    file: str
    size_bytes: int


def _partitions(
    root: Path, tables: tuple[str, ...], catalog: Catalog
) -> list[tuple[str, Path, list[Path]]]:
    """(table, partition folder, its recorded Parquet files by name) of every partition of 2+
    files. A file the catalog does not record (no held pack owns it) is never compacted in."""
    by_partition: dict[tuple[str, Path], list[Path]] = {}
    for name in catalog.held_files():
        parts = Path(name).parts
        if len(parts) == 4 and parts[1] in tables and (root / name).is_file():
            by_partition.setdefault((parts[1], root / Path(*parts[:3])), []).append(root / name)
    return [
        (table, partition, sorted(files))
        for (table, partition), files in sorted(
            by_partition.items(), key=lambda item: (tables.index(item[0][0]), item[0][1])
        )
        if len(files) > 1
    ]


def _write(files: list[Path], out: Path) -> None:
    """The rows of ``files``, in their order, as one Parquet file (the partition column stays
    in the folder's name, as in every file of the dataset)."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute("SET preserve_insertion_order = true")
        relation = con.read_parquet([str(f) for f in files], hive_partitioning=False)
        relation.write_parquet(str(out))
    except duckdb.Error as exc:
        raise StoreError(f"{files[0].parent}: cannot compact: {exc}") from exc
    finally:
        con.close()


def _swap(
    root: Path, table: str, files: list[Path], staged: Path, final: Path, catalog: Catalog
) -> None:
    """Journal, rename the new file into place, record the swap in the catalog and remove the
    old files (under the exclusive lock)."""
    storage.guard(root)
    journal = root / storage.COMPACT_JOURNAL_DIR / f"{table}-{final.parent.name}.json"
    journal.parent.mkdir(parents=True, exist_ok=True)
    tmp = journal.with_suffix(".tmp")
    old = [f.relative_to(root).as_posix() for f in files if f != final]
    done = {"new": final.relative_to(root).as_posix(), "old": old}
    tmp.write_text(json.dumps(done), encoding="utf-8")
    os.replace(tmp, journal)
    os.replace(staged, final)
    storage.finish_compaction(root, journal, catalog)


def compact(
    root: Path, catalog: Catalog | None = None, tables: tuple[str, ...] = tuple(TABLES)
) -> list[Compacted]:
    """Compact every partition of ``tables`` that holds more than one file."""
    catalog = catalog or open_catalog(root)
    done = []
    with storage.locked(root, exclusive=True, name=COMPACT_LOCK_NAME):
        with storage.locked(root, exclusive=True):
            storage.recover(root, catalog)  # refuses a .compacting that is a link
            shutil.rmtree(root / COMPACTING_DIR, ignore_errors=True)  # a dead compaction's file
            partitions = _partitions(root, tables, catalog)
        for table, partition, files in partitions:
            names = "\n".join(f.name for f in files).encode()
            final = partition / f"part-{hashlib.sha256(names).hexdigest()[:16]}.parquet"
            staged = root / COMPACTING_DIR / table / partition.name / final.name
            staged.parent.mkdir(parents=True, exist_ok=True)
            _write(files, staged)
            with storage.locked(root, exclusive=True):
                _swap(root, table, files, staged, final, catalog)
            done.append(
                Compacted(table, partition.name, len(files), str(final), final.stat().st_size)
            )
        shutil.rmtree(root / COMPACTING_DIR, ignore_errors=True)
    return done
