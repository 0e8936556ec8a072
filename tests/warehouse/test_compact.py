"""``warehouse compact``: one file per partition, the same answers, safe beside adds and kills."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from evidencepack._cli import main
from evidencepack.warehouse import compact as compact_module
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.compact import compact
from evidencepack.warehouse.models import TABLES
from evidencepack.warehouse.named import QUERIES, bind
from evidencepack.warehouse.query import run_query

from ..conftest import REPO_ROOT
from .conftest import Built

NAMED_PARAMS = {
    "by-runtime": {"runtime": "vllm", "version": "0.9.2"},
    "by-mlperf-result": {"key": "%MI325X%"},
    "by-accelerator": {"accelerator": "mi325x"},
    "waivers-expiring": {"days": "60", "as_of": "2027-01-01"},
    "stale-evidence": {"days": "30", "as_of": "2026-12-31"},
    "not-watched": {"days": "30", "as_of": "2027-01-01"},
}


def _answers(root: Path) -> dict[str, object]:
    """Every named query's rows and every table's rows in a fixed order."""
    out: dict[str, object] = {}
    for query in QUERIES:
        out[query.name] = run_query(
            root, query.sql, bind(query, NAMED_PARAMS.get(query.name, {}))
        ).rows
    for table in TABLES:
        out[table] = run_query(root, f"SELECT * FROM {table} ORDER BY ALL").rows
    return out


def _parquet_files(root: Path) -> dict[str, list[str]]:
    """Partition folder -> its Parquet files."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / storage.TABLES_DIR).rglob("*.parquet")):
        found.setdefault(str(path.parent.relative_to(root)), []).append(path.name)
    return found


def _raw_rows(root: Path, table: str) -> int:
    """Rows of every Parquet file of ``table``, read directly (as a reader without the lock)."""
    return int(duckdb.read_parquet(storage.table_glob(root, table)).shape[0])


@pytest.fixture(scope="module")
def filled(
    built: Built, requests_pack: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The warehouse every test here starts from, filled once (15 adds): read only."""
    root = tmp_path_factory.mktemp("compact") / "wh"
    packs = [built.sample, built.stack_bump, requests_pack, *built.variants[:12]]
    assert {o.status for o in add_packs(root, packs, built.policy, requests=True)} == {"added"}
    before = _tree(root)
    yield root
    assert _tree(root) == before, "a test changed the module's warehouse: copy it first"


@pytest.fixture
def warehouse(filled: Path, tmp_path: Path) -> Path:
    """A private copy of the filled warehouse (its catalog names files relative to the folder,
    so the copy is the same warehouse in another place)."""
    return Path(shutil.copytree(filled, tmp_path / "wh"))


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_compact_leaves_one_file_per_partition_and_the_same_answers(
    built: Built, warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _answers(warehouse)
    partitions = _parquet_files(warehouse)
    assert max(len(files) for files in partitions.values()) == 8  # 2025
    assert main(["warehouse", "compact", "--warehouse", str(warehouse)]) == 0
    out = capsys.readouterr().out
    several = [p for p, names in partitions.items() if len(names) > 1]
    assert f"{len(several)} partition(s) compacted" in out
    files = _parquet_files(warehouse)
    assert all(len(names) == 1 for names in files.values())
    assert all(files[p][0].startswith("part-") for p in several)
    assert {p: n for p, n in files.items() if p not in several} == {
        p: n for p, n in partitions.items() if p not in several
    }  # a partition of one file (the requests pack's requests) is left as it is
    assert set(files) == set(partitions)
    assert _answers(warehouse) == before
    assert not storage.needs_recovery(warehouse)

    # Nothing left to compact: a second run changes nothing.
    assert compact(warehouse) == []
    assert _parquet_files(warehouse) == files

    # A pack added after a compaction sits beside the compacted file; the next compaction
    # takes both into one.
    (added,) = add_packs(warehouse, [built.variants[12]], built.policy)
    assert added.status == "added"
    after_add = _answers(warehouse)
    assert after_add != before
    assert {c.files_before for c in compact(warehouse, tables=("checks", "packs"))} == {2}
    assert _answers(warehouse) == after_add
    assert max(len(n) for p, n in _parquet_files(warehouse).items() if "checks" in p) == 1


def test_an_add_while_a_compaction_writes_is_kept_once(
    built: Built, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compaction writes its file without the warehouse lock: an add may land meanwhile. Its
    files are not among those compacted, so they stay, and no row is lost or doubled."""
    real = compact_module._write
    added = []

    def write_while_adding(files: list[Path], out: Path) -> None:
        if not added:
            added.extend(add_packs(warehouse, [built.variants[13]], built.policy))
        real(files, out)

    monkeypatch.setattr(compact_module, "_write", write_while_adding)
    done = compact(warehouse)
    assert [o.status for o in added] == ["added"]
    assert done
    (row,) = run_query(
        warehouse, "SELECT count(*), count(DISTINCT pack_digest) FROM candidates"
    ).rows
    held = 16  # the sample, the stack bump, the requests pack and 13 variants
    assert row == (3 * held, held)
    assert _raw_rows(warehouse, "candidates") == 3 * held
    # The new pack's file stayed beside its partition's compacted one.
    assert any(len(n) == 2 for n in _parquet_files(warehouse).values())


KILLER = """
import os, sys
from pathlib import Path
from evidencepack.warehouse import compact

real, calls = os.replace, []
def replace(src, dst):
    calls.append(dst)
    real(src, dst)
    if len(calls) == int(sys.argv[2]):
        os._exit(9)
compact.os.replace = replace
compact.compact(Path(sys.argv[1]))
"""


@pytest.mark.parametrize(
    ("kill_after", "visible_twice"),
    [(1, False), (2, True)],
    ids=["journal-written", "new-file-in-place"],
)
def test_a_compaction_killed_halfway_is_finished_before_anyone_reads(
    warehouse: Path, kill_after: int, visible_twice: bool
) -> None:
    before = _answers(warehouse)
    files = _parquet_files(warehouse)
    (rows,) = run_query(warehouse, "SELECT count(*) FROM packs").rows
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(warehouse), str(kill_after)],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == 9, killed.stderr
    assert storage.needs_recovery(warehouse)
    # Without recovery a reader of the raw files would count the first partition twice.
    assert (_raw_rows(warehouse, "packs") > rows[0]) is visible_twice
    assert _answers(warehouse) == before  # the query finished (or dropped) the compaction first
    assert not storage.needs_recovery(warehouse)
    assert _raw_rows(warehouse, "packs") == rows[0]
    compacted = _parquet_files(warehouse)
    assert (compacted != files) is visible_twice
    compact(warehouse)
    assert _answers(warehouse) == before
    assert all(len(names) == 1 for names in _parquet_files(warehouse).values())


def test_compact_names_an_unknown_table(
    warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["warehouse", "compact", "--table", "nope", "--warehouse", str(warehouse)])
    assert code == 2
    assert "--table nope: no such table" in capsys.readouterr().err
