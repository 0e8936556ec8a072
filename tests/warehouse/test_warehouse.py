"""``evidencepack warehouse``: verified packs in, the same answers out, nothing half-written."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.catalog import open_catalog
from evidencepack.warehouse.named import bind, named_query
from evidencepack.warehouse.query import run_query

from ..conftest import REPO_ROOT
from .conftest import VARIANTS, Built
from .variants import variants


def _files(root: Path) -> dict[str, bytes]:
    """Every file of the dataset and the catalog's pack list: what a reader can see."""
    found = {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / storage.TABLES_DIR).rglob("*"))
        if p.is_file()
    }
    found["catalog"] = json.dumps([p.pack_digest for p in open_catalog(root).held_packs()]).encode()
    return found


def _named(root: Path, name: str, **params: str) -> list[dict[str, object]]:
    query = named_query(name)
    return run_query(root, query.sql, bind(query, params)).records()


def _decision(pack: Path) -> dict[str, object]:
    return json.loads((pack / "decision.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _all_packs(built: Built) -> list[Path]:
    return [built.sample, built.stack_bump, *built.variants]


@pytest.fixture(scope="module")
def warehouse(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("warehouse") / "wh"
    outcomes = add_packs(root, _all_packs(built), built.policy)
    assert [o.status for o in outcomes] == ["added"] * (VARIANTS + 2)
    return root


def test_which_decisions_rest_on_vllm_0_9_2(built: Built, warehouse: Path) -> None:
    expected = set()
    chosen = set()
    for pack in _all_packs(built):
        decision = _decision(pack)
        spec = decision["spec"]
        assert isinstance(spec, dict)
        for c in spec["candidates"]:
            if c["stack"]["runtime"] == "vllm" and c["stack"]["version"] == "0.9.2":
                row = (decision["decision_id"], spec["decision"]["date"], c["id"])
                expected.add(row)
                if c["id"] == decision["chosen"]:
                    chosen.add(row)
    rows = _named(warehouse, "by-runtime", runtime="vllm", version="0.9.2")
    got = {(r["decision_id"], str(r["decision_date"]), r["candidate"]) for r in rows}
    assert got == expected
    # The sample's chosen mi325x-vllm runs 0.9.2; the stack bump moved it to 0.10.1.
    sample_id = _decision(built.sample)["decision_id"]
    assert (sample_id, "2026-11-30", "mi325x-vllm") in got
    assert (sample_id, "2026-12-14", "mi325x-vllm") not in got
    assert len(rows) == len(got)
    rows = _named(warehouse, "by-runtime", runtime="VLLM", version="0.9.2", chosen="true")
    assert {(r["decision_id"], str(r["decision_date"]), r["candidate"]) for r in rows} == chosen
    assert len(chosen) == 1 + VARIANTS // 2  # the sample and every even-numbered variant


def test_cost_per_1m_tokens_by_quarter(built: Built, warehouse: Path) -> None:
    costs: dict[str, list[float]] = defaultdict(list)
    for pack in _all_packs(built):
        decision = _decision(pack)
        spec = decision["spec"]
        assert isinstance(spec, dict)
        year, month = (int(x) for x in spec["decision"]["date"].split("-")[:2])
        (cost,) = [
            c["cost_per_million_output_tokens"]
            for c in decision["candidates"]  # type: ignore[attr-defined]
            if c["id"] == decision["chosen"]
        ]
        costs[f"{year}-Q{(month - 1) // 3 + 1}"].append(cost)
    rows = _named(warehouse, "cost-by-quarter")
    assert [r["quarter"] for r in rows] == sorted(costs)
    assert len(rows) == 8  # the variants span eight quarters; the two samples fall in 2026-Q4
    for row in rows:
        values = costs[str(row["quarter"])]
        assert row["currency"] == "USD"
        assert row["decisions"] == len(values)
        assert row["mean_per_1m"] == pytest.approx(sum(values) / len(values), abs=1e-4)
        assert row["min_per_1m"] == pytest.approx(min(values), abs=1e-4)


def test_every_row_carries_its_pack_and_runs_are_load_points(built: Built, warehouse: Path) -> None:
    load_points = sum(
        len(c["load_points"])
        for pack in _all_packs(built)
        for c in _decision(pack)["capacity"]  # type: ignore[attr-defined]
    )
    (row,) = run_query(warehouse, "SELECT count(*), count(DISTINCT pack_digest) FROM runs").rows
    assert row == (load_points, VARIANTS + 2)
    digests = {p.pack_digest for p in open_catalog(warehouse).held_packs()}
    for table in ("candidates", "checks", "inputs", "cited_results", "approvals"):
        result = run_query(
            warehouse,
            f"SELECT DISTINCT pack_digest, decision_year = year(decision_date) FROM {table}",
        )
        assert {r[0] for r in result.rows} == digests
        assert all(r[1] for r in result.rows)
    mlperf = _named(warehouse, "by-mlperf-result", key="%8xMI325X_vLLM%")
    assert len(mlperf) == VARIANTS + 2


def test_waivers_expiring_and_stale_evidence(warehouse: Path) -> None:
    as_of = dt.date(2027, 1, 1)
    expires = {v.decision_id: v.waiver_expires for v in variants(VARIANTS) if v.waiver_expires}
    rows = _named(warehouse, "waivers-expiring", days="30", as_of=as_of.isoformat())
    expected = sorted(d for d, e in expires.items() if as_of <= e <= as_of + dt.timedelta(30))
    assert sorted(str(r["decision_id"]) for r in rows) == expected
    assert 0 < len(expected) < len(expires)
    as_of = dt.date(2026, 6, 1)
    stale = _named(warehouse, "stale-evidence", days="400", as_of=as_of.isoformat())
    old = {v.decision_id for v in variants(VARIANTS) if (as_of - v.date).days > 400}
    assert {r["decision_id"] for r in stale if r["what"] == "approval"} == old
    assert all(int(str(r["age_days"])) > 400 for r in stale)
    assert old


def test_re_adding_is_idempotent(built: Built, warehouse: Path) -> None:
    before = _files(warehouse)
    outcomes = add_packs(warehouse, [built.sample_archive, built.stack_bump], built.policy)
    assert [o.status for o in outcomes] == ["skipped", "skipped"]
    assert _files(warehouse) == before


def test_the_cli_adds_queries_and_verifies(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "wh"
    key = ["--key", str(built.public_key)]
    args = ["warehouse", "add", str(built.sample_archive), str(built.sample), "--warehouse"]
    assert main([*args, str(root), *key]) == 0
    out = capsys.readouterr().out
    assert "added" in out
    assert "skipped" in out
    assert "already held" in out
    assert (
        main(
            ["warehouse", "query", "--named", "cost-by-quarter", "--warehouse", str(root), "--json"]
        )
        == 0
    )
    (row,) = json.loads(capsys.readouterr().out)
    assert row["quarter"] == "2026-Q4"
    assert row["decisions"] == 1
    assert main(["warehouse", "verify", "--warehouse", str(root), *key]) == 0
    assert "1 of 1 held pack(s) verify" in capsys.readouterr().out
    assert main(["warehouse", "list-queries"]) == 0
    assert "by-runtime" in capsys.readouterr().out


def test_a_tampered_pack_is_refused_and_nothing_is_written(
    built: Built,
    tmp_path: Path,
    copy_pack: Callable[[Path], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "wh"
    assert add_packs(root, [built.stack_bump], built.policy)[0].status == "added"
    before = _files(root)
    tampered = copy_pack(built.sample)
    decision = tampered / "decision.json"
    decision.write_text(decision.read_text().replace('"PASS"', '"FAIL"', 1))
    code = main(
        [
            "warehouse",
            "add",
            str(tampered),
            "--warehouse",
            str(root),
            "--key",
            str(built.public_key),
        ]
    )
    assert code == 1
    out = capsys.readouterr().out
    assert f"REFUSED  {tampered}" in out
    assert "decision.json: changed after signing" in out
    assert _files(root) == before


def test_a_pack_signed_with_another_key_is_refused(built: Built, tmp_path: Path) -> None:
    from evidencepack.signing.keys import generate_keypair, load_public_key
    from evidencepack.signing.verify import KeyPolicy

    generate_keypair(tmp_path / "other.pem", tmp_path / "other.pub.pem", None)
    other = KeyPolicy(load_public_key(tmp_path / "other.pub.pem"))
    (outcome,) = add_packs(tmp_path / "wh", [built.stack_bump], other)
    assert outcome.status == "refused"
    assert outcome.problems
    assert open_catalog(tmp_path / "wh").held_packs() == []


def test_verify_reports_a_pack_tampered_or_missing_after_it_was_added(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "wh"
    first = Path(shutil.copytree(built.sample, tmp_path / "first"))
    second = Path(shutil.copytree(built.variants[0], tmp_path / "second"))
    assert [o.status for o in add_packs(root, [first, second], built.policy)] == ["added"] * 2
    key = ["--key", str(built.public_key)]
    assert main(["warehouse", "verify", "--warehouse", str(root), *key]) == 0
    capsys.readouterr()
    report = first / "report.html"
    report.write_bytes(report.read_bytes() + b"<!-- edited -->")
    second.rename(second.with_name("moved"))
    assert main(["warehouse", "verify", "--warehouse", str(root), "--json", *key]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["ok"]
    by_source = {p["source"]: p for p in result["packs"]}
    assert by_source[str(first)]["status"] == "failed"
    assert any(
        p.startswith("report.html: changed after signing")
        for p in by_source[str(first)]["problems"]
    )
    assert by_source[str(second)]["status"] == "missing"


def test_a_failed_rename_leaves_the_warehouse_as_it_was(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "wh"
    add_packs(root, [built.stack_bump], built.policy)
    before = _files(root)
    real = os.replace
    calls = []

    def failing(src: str | Path, dst: str | Path) -> None:
        calls.append(dst)
        if len(calls) == 4:  # the journal, then two tables in place, then the disk fills
            raise OSError(28, "No space left on device", str(dst))
        real(src, dst)

    monkeypatch.setattr(storage.os, "replace", failing)
    with pytest.raises(OSError, match="No space left"):
        add_packs(root, [built.sample], built.policy)
    monkeypatch.undo()
    assert _files(root) == before
    assert not storage.needs_recovery(root)


KILLER = """
import os, sys
from pathlib import Path
from evidencepack.signing.keys import load_public_key
from evidencepack.signing.verify import KeyPolicy
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs

real, calls = os.replace, []
def replace(src, dst):
    calls.append(dst)
    real(src, dst)
    if len(calls) == 5:  # the journal and four tables are in place: the process dies
        os._exit(9)
storage.os.replace = replace
add_packs(Path(sys.argv[1]), [Path(sys.argv[2])], KeyPolicy(load_public_key(Path(sys.argv[3]))))
"""


def test_an_add_killed_halfway_leaves_the_warehouse_as_it_was(built: Built, tmp_path: Path) -> None:
    root = tmp_path / "wh"
    add_packs(root, [built.stack_bump], built.policy)
    before = _files(root)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(root), str(built.sample), str(built.public_key)],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == 9, killed.stderr
    assert storage.needs_recovery(root)  # four of its tables' files were in place
    # The next reader undoes the dead add before it reads.
    (row,) = run_query(root, "SELECT count(DISTINCT pack_digest) FROM checks").rows
    assert row == (1,)
    assert _files(root) == before
    assert not storage.needs_recovery(root)
    assert add_packs(root, [built.sample], built.policy)[0].status == "added"


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("COPY packs TO 'x.csv'", "read-only here: only SELECT runs"),
        ("SELECT 1; SELECT 2", "give one SQL statement"),
        ("SELECT * FROM read_csv('/etc/passwd')", "Cannot access file"),
        ("ATTACH 'catalog.duckdb'", "read-only here"),
    ],
)
def test_a_query_cannot_write_or_read_outside_the_dataset(
    warehouse: Path, sql: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["warehouse", "query", sql, "--warehouse", str(warehouse)]) == 2
    assert message in capsys.readouterr().err


def test_parameters_are_bound_not_spliced(warehouse: Path) -> None:
    assert _named(warehouse, "by-runtime", runtime="vllm' OR 1=1 --") == []
    with pytest.raises(Exception, match="give a whole number"):
        _named(warehouse, "waivers-expiring", days="30; DROP TABLE packs")
    with pytest.raises(Exception, match="no named query 'nope'"):
        named_query("nope")


def test_the_parquet_columns_are_the_row_models_fields(warehouse: Path) -> None:
    from evidencepack.warehouse.models import TABLES, columns

    for table, model in TABLES.items():
        described = run_query(warehouse, f"DESCRIBE SELECT * FROM {table}").records()
        got = {str(r["column_name"]): str(r["column_type"]) for r in described}
        assert got == columns(model) | {"decision_year": "BIGINT"}, table
        assert all(f.description for f in model.model_fields.values()), table
