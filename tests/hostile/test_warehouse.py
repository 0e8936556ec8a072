"""The warehouse attacked (issue 42): planted journals and links, writing queries, forged and
rewritten Parquet files, Hive parts in the folder's path, a decision id held twice, hostile pack
names on the terminal. Each case fails on the warehouse before issue 42."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack.signing.keys import load_public_key
from evidencepack.signing.verify import KeyPolicy
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.catalog import open_catalog
from evidencepack.warehouse.query import run_query

from ..packs import SignedSample
from ..warehouse.test_postgres import postgres
from ..warehouse.variants import Variant, make_variant
from .harness import assert_refused, run, snapshot

__all__ = ["postgres"]  # the fixture: a private PostgreSQL server (skipped without one)


@pytest.fixture(scope="module")
def holding_the_sample(
    tmp_path_factory: pytest.TempPathFactory, signed_sample: SignedSample
) -> Iterator[Path]:
    """A warehouse holding the signed sample, added once for the module: read only."""
    root = tmp_path_factory.mktemp("hostile-warehouse") / "wh"
    policy = KeyPolicy(load_public_key(signed_sample.pub))
    (outcome,) = add_packs(root, [signed_sample.pack], policy)
    assert outcome.status == "added"
    before = snapshot(root)
    yield root
    assert snapshot(root) == before, "a test changed the module's warehouse: copy it first"


@pytest.fixture
def warehouse(tmp_path: Path, holding_the_sample: Path) -> Path:
    """A warehouse holding the signed sample: a private copy (the catalog names its files
    relative to the folder, so the copy is the same warehouse in another place)."""
    return Path(shutil.copytree(holding_the_sample, tmp_path / "wh"))


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "precious.txt").write_text("keep me\n")
    (victim / "sub" / "also.txt").write_text("keep me too\n")
    return victim


def _query(root: Path, sql: str) -> list[str]:
    return ["warehouse", "query", sql, "--warehouse", str(root)]


@pytest.mark.parametrize(
    "named",
    ["absolute", "relative", "dataset-shaped-absolute"],
)
def test_a_planted_add_journal_deletes_nothing_outside(
    warehouse: Path, tmp_path: Path, named: str
) -> None:
    victim = _victim(tmp_path)
    before = snapshot(victim)
    target = {
        "absolute": str(victim / "precious.txt"),
        "relative": "../victim/precious.txt",
        "dataset-shaped-absolute": str(victim / "tables/packs/decision_year=2026/x.parquet"),
    }[named]
    journal = warehouse / storage.JOURNAL_DIR / f"{'a' * 64}.json"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text(json.dumps([target, str(victim / "sub" / "also.txt")]))
    ran = run(_query(warehouse, "SELECT count(*) FROM packs"))
    assert_refused(ran, 3, str(journal), "nothing removed")
    assert snapshot(victim) == before


def test_a_planted_compaction_journal_deletes_nothing_outside(
    warehouse: Path, tmp_path: Path
) -> None:
    victim = _victim(tmp_path)
    before = snapshot(victim)
    (held,) = (warehouse / "tables/packs").rglob("*.parquet")
    journal = warehouse / storage.COMPACT_JOURNAL_DIR / "packs-decision_year=2026.json"
    journal.parent.mkdir(exist_ok=True)
    # "new" exists (a held file), so the old version removed every "old" path it named.
    journal.write_text(json.dumps({"new": str(held), "old": [str(victim / "precious.txt")]}))
    ran = run(_query(warehouse, "SELECT count(*) FROM packs"))
    assert_refused(ran, 3, str(journal), "nothing removed")
    assert snapshot(victim) == before
    assert held.exists()


def test_a_staging_symlink_is_refused_never_followed(warehouse: Path, tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    before = snapshot(victim)
    shutil.rmtree(warehouse / storage.STAGING_DIR, ignore_errors=True)
    (warehouse / storage.STAGING_DIR).symlink_to(victim, target_is_directory=True)
    ran = run(_query(warehouse, "SELECT count(*) FROM packs"))
    assert_refused(ran, 3, str(warehouse / storage.STAGING_DIR), "symbolic link")
    assert snapshot(victim) == before
    assert (victim / "sub").is_dir()


def test_explain_analyze_cannot_write_a_held_file(warehouse: Path) -> None:
    (held,) = (warehouse / "tables/packs").rglob("*.parquet")
    before = snapshot(warehouse / "tables")
    forged = (
        "EXPLAIN ANALYZE COPY (SELECT * REPLACE ('FAIL' AS verdict) FROM packs) "
        f"TO '{held}' (FORMAT PARQUET)"
    )
    ran = run(_query(warehouse, forged))
    assert_refused(ran, 2, "EXPLAIN ANALYZE")
    assert snapshot(warehouse / "tables") == before
    plain = run(_query(warehouse, "EXPLAIN SELECT verdict FROM packs"))
    assert plain.code == 0, plain.err


def test_a_query_has_no_temporary_folder_and_reads_only_the_held_files(warehouse: Path) -> None:
    result = run_query(warehouse, "SELECT current_setting('temp_directory') AS t")
    assert result.rows == (("",),)
    outside = warehouse / "catalog.duckdb"
    ran = run(_query(warehouse, f"SELECT * FROM read_blob('{outside}')"))
    assert_refused(ran, 2, "the query failed")


def test_verify_catches_a_rewritten_parquet_file(
    warehouse: Path, signed_sample: SignedSample
) -> None:
    (held,) = (warehouse / "tables/packs").rglob("*.parquet")
    import duckdb

    con = duckdb.connect()
    forged = held.with_name("forged.tmp")
    rel = con.read_parquet(str(held), hive_partitioning=False)
    rel.select("* REPLACE ('FAIL' AS verdict)").write_parquet(str(forged))
    con.close()
    os.replace(forged, held)
    ran = run(
        ["warehouse", "verify", "--warehouse", str(warehouse), "--key", str(signed_sample.pub)]
    )
    assert_refused(ran, 1, str(held), "changed since it was written")
    # And a query does not answer the forged verdict as held.
    ran = run(_query(warehouse, "SELECT verdict FROM packs"))
    assert "FAIL" not in ran.out
    assert ran.code != 0


def test_verify_refuses_a_file_no_held_pack_owns(
    warehouse: Path, signed_sample: SignedSample
) -> None:
    (held,) = (warehouse / "tables/packs").rglob("*.parquet")
    stranger = held.with_name(f"{'b' * 64}.parquet")
    shutil.copyfile(held, stranger)
    ran = run(
        ["warehouse", "verify", "--warehouse", str(warehouse), "--key", str(signed_sample.pub)]
    )
    assert_refused(ran, 1, str(stranger), "no held pack owns it")
    (row,) = run_query(warehouse, "SELECT count(*) FROM packs").rows
    assert row == (1,)  # the forged file is not read


def test_verify_refuses_files_of_a_pack_without_a_catalog_row(
    warehouse: Path, signed_sample: SignedSample
) -> None:
    import duckdb

    con = duckdb.connect(str(warehouse / "catalog.duckdb"))
    con.execute("DELETE FROM packs")
    con.close()
    ran = run(
        ["warehouse", "verify", "--warehouse", str(warehouse), "--key", str(signed_sample.pub)]
    )
    assert_refused(ran, 1, "which the catalog does not hold")
    assert "0 of 0 held pack(s) verify" in ran.out
    ran = run(_query(warehouse, "SELECT count(*) FROM packs"))
    assert_refused(ran, 3, "which the catalog does not hold")


@pytest.mark.parametrize("parts", ["verdict=FAIL/owner=mallory", "decision_year=1999"])
def test_key_value_parts_of_the_folder_path_change_no_row(
    tmp_path: Path, signed_sample: SignedSample, parts: str
) -> None:
    root = tmp_path / parts / "wh"
    policy = KeyPolicy(load_public_key(signed_sample.pub))
    (outcome,) = add_packs(root, [signed_sample.pack], policy)
    assert outcome.status == "added"
    decision = json.loads((signed_sample.pack / "decision.json").read_text())
    ((verdict, owner, year),) = run_query(
        root, "SELECT verdict, owner, decision_year FROM packs"
    ).rows
    assert owner != "mallory" and verdict != "FAIL" or decision["verdict"] == "FAIL"
    assert year == int(decision["spec"]["decision"]["date"][:4])


def test_one_decision_id_held_twice_is_a_finding(
    tmp_path: Path, signed_sample: SignedSample
) -> None:
    signer = signed_sample.signer()
    day = dt.date(2026, 3, 1)
    twins = [
        make_variant(
            signed_sample.pack,
            tmp_path / f"twin{i}",
            Variant("same-id", day, "0.9.2", cost),
            signer,
        )
        for i, cost in enumerate((1.0, 9.0))
    ]
    root = tmp_path / "wh"
    policy = KeyPolicy(load_public_key(signed_sample.pub))
    assert [o.status for o in add_packs(root, twins, policy)] == ["added", "added"]
    ran = run(["warehouse", "verify", "--warehouse", str(root), "--key", str(signed_sample.pub)])
    assert_refused(ran, 1, "'same-id' is held 2 times")


def test_hostile_pack_names_reach_the_terminal_neutralised(
    tmp_path: Path, signed_sample: SignedSample
) -> None:
    name = "p\rOK       fake\x1b[2K\nadded    forged"
    damaged = tmp_path / name
    shutil.copytree(signed_sample.pack, damaged)
    (damaged / "decision.json").write_text("{}")
    ran = run(
        [
            "warehouse",
            "add",
            str(damaged),
            "--warehouse",
            str(tmp_path / "wh"),
            "--key",
            str(signed_sample.pub),
        ]
    )
    assert ran.code == 1, ran.err
    shown = ran.out + ran.err
    assert "\x1b" not in shown
    assert "\r" not in shown
    assert not any(line.startswith(("OK", "added")) for line in shown.splitlines())
    assert "REFUSED" in shown


def test_recovery_keeps_no_partial_add_another_folder_completed(
    tmp_path: Path, signed_sample: SignedSample, postgres: str
) -> None:
    """The folder's own record of its files decides, not the pack's row: with a PostgreSQL
    catalog shared by two folders, an add killed in one folder is undone though the other folder
    added the pack."""
    from evidencepack.warehouse.packs import opened_pack
    from evidencepack.warehouse.rows import pack_rows

    first, second = tmp_path / "a", tmp_path / "b"
    policy = KeyPolicy(load_public_key(signed_sample.pub))
    add_packs(first, [signed_sample.pack], policy, open_catalog(first, postgres))
    # The second folder's add of the same pack, killed after its files were renamed in place.
    with opened_pack(signed_sample.pack, policy) as pack:
        assert pack.folder is not None
        rows = pack_rows(pack.folder, label="x", source="x", source_kind="pack", signer=None)
    moves, _ = storage.stage_pack(second, rows)
    storage.publish(second, rows.digest, moves)
    assert storage.needs_recovery(second)
    catalog = open_catalog(second, postgres)
    assert rows.digest in catalog.held_digests()  # held, via the first folder
    storage.recover(second, catalog)
    assert not list((second / "tables").rglob("*.parquet"))
    assert list((first / "tables").rglob("*.parquet"))
