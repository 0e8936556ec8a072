"""The warehouse catalog in PostgreSQL: concurrent adds from several processes hold each pack once.

A private PostgreSQL server (Debian's, from the system packages) is started for these tests in a
temporary folder, listening on a Unix socket only, and stopped after them.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack.warehouse.catalog import open_catalog
from evidencepack.warehouse.query import run_query

from ..conftest import REPO_ROOT
from .conftest import Built


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name) or sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found if isinstance(found, str) else (found[-1] if found else None)


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """The URL of a fresh PostgreSQL server on a private socket (skipped without PostgreSQL)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[dev]')")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    # PostgreSQL refuses to run as root: as root, the server runs as the postgres user.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    root = Path(tempfile.mkdtemp(prefix="evidencepack-pg-"))
    os.chmod(root, 0o755)
    if as_user:
        shutil.chown(root, "postgres")
    data = root / "data"
    run = {"check": True, "capture_output": True, "timeout": 120}
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust"], **run)
    options = f"-k {root} -c listen_addresses='' -c max_connections=50"
    start = [*as_user, pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w"]
    subprocess.run([*start, "start"], **run)
    try:
        yield f"postgresql://postgres@/postgres?host={root}"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], **run)
        shutil.rmtree(root, ignore_errors=True)


def test_concurrent_adds_of_overlapping_pack_sets_hold_each_pack_once(
    built: Built, postgres: str, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    packs = [str(p) for p in built.variants[:12]]
    sets = [packs[:8], packs[4:], [*reversed(packs), str(built.sample)]]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    common = ["--warehouse", str(root), "--catalog", postgres, "--key", str(built.public_key)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "evidencepack", "warehouse", "add", *s, *common, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for s in sets
    ]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        outcomes += json.loads(out)
    added = Counter(o["evidence_digest"] for o in outcomes if o["status"] == "added")
    catalog = open_catalog(root, postgres).held_packs()
    assert len(catalog) == len(packs) + 1
    assert added == Counter({p.pack_digest: 1 for p in catalog})  # each added exactly once
    assert sum(o["status"] == "skipped" for o in outcomes) == sum(map(len, sets)) - len(catalog)
    (row,) = run_query(
        root,
        "SELECT count(*), count(DISTINCT pack_digest) FROM packs",
        catalog=open_catalog(root, postgres),
    ).rows
    assert row == (len(catalog), len(catalog))
    # The local DuckDB catalog was never written: the PostgreSQL one is the list.
    assert not (root / "catalog.duckdb").exists()


def test_a_second_record_of_a_pack_is_refused_by_the_database(
    built: Built, postgres: str, tmp_path: Path
) -> None:
    from evidencepack.warehouse.add import add_packs

    first, second = tmp_path / "a", tmp_path / "b"
    catalog = open_catalog(first, postgres)
    (outcome,) = add_packs(first, [built.stack_bump], built.policy, catalog)
    assert outcome.status in ("added", "skipped")
    (row,) = [p for p in catalog.held_packs() if p.pack_digest == outcome.digest]
    assert catalog.record(row) is False
    # Another folder sharing the catalog skips what the organisation holds already.
    (again,) = add_packs(second, [built.stack_bump], built.policy, open_catalog(second, postgres))
    assert again.status == "skipped"
