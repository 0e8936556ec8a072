"""``warehouse add --requests``: every per-request row of a pack's runs, with its pack's key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from evidencepack._cli import main
from evidencepack.signing.sign import sign_pack_detailed
from evidencepack.warehouse import storage
from evidencepack.warehouse.add import add_packs
from evidencepack.warehouse.query import run_query

from .conftest import AIPERF_REQUESTS, Built
from .test_warehouse import _files


def _aiperf_records(shared_data: Path) -> list[dict[str, dict[str, float]]]:
    lines = (shared_data / AIPERF_REQUESTS).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["metrics"] for line in lines if line.strip()]


def test_add_requests_holds_every_request_of_the_cited_export(
    built: Built,
    requests_pack: Path,
    shared_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "wh"
    outcomes = add_packs(root, [requests_pack, built.sample], built.policy, requests=True)
    assert [(o.status, o.requests) for o in outcomes] == [("added", 40), ("added", 0)]
    records = _aiperf_records(shared_data)
    assert len(records) == 40
    (row,) = run_query(
        root,
        "SELECT count(*), sum(output_tokens), sum(input_tokens), count(DISTINCT stored_run_id), "
        "count(*) FILTER (WHERE ok) FROM requests",
    ).rows
    assert row == (
        40,
        sum(r["output_sequence_length"]["value"] for r in records),
        sum(r["input_sequence_length"]["value"] for r in records),
        1,
        40,
    )
    ttft = [r[0] for r in run_query(root, "SELECT ttft_ms FROM requests ORDER BY ttft_ms").rows]
    expected = sorted(r["time_to_first_token"]["value"] for r in records)
    assert ttft == pytest.approx(expected)

    # Every row carries its pack's digest, decision id and date; the run is named as the
    # decision names it (the spec's path of the export, not its place in the pack).
    decision = json.loads((requests_pack / "decision.json").read_text(encoding="utf-8"))
    keys = run_query(
        root,
        "SELECT DISTINCT r.pack_digest, r.decision_id, r.decision_date, r.decision_year, "
        "r.candidate, r.run_id, r.run_file, r.tool FROM requests r",
    ).records()
    assert len(keys) == 1
    (key,) = keys
    assert key["pack_digest"] == outcomes[0].digest
    assert key["decision_id"] == decision["decision_id"]
    assert str(key["decision_date"]) == decision["spec"]["decision"]["date"]
    assert key["decision_year"] == int(decision["spec"]["decision"]["date"][:4])
    assert (key["candidate"], key["tool"]) == ("b200-trtllm", "aiperf")
    (cited,) = [f for f in decision["inputs"] if f["pack_path"] == key["run_file"]]
    assert key["run_id"] == cited["spec_path"] != key["run_file"]
    assert cited["spec_path"].endswith("aiperf/generated/profile_export.jsonl")
    subjects = {(f["candidate"], f["subject"]) for f in decision["fit"] if f["kind"] == "run"}
    assert ("b200-trtllm", key["run_id"]) in subjects

    # Reading the evidence store left the pack as it was signed. (The sample and the requests
    # pack decide one decision id: verify names that, and nothing else.)
    args = ["warehouse", "verify", "--warehouse", str(root), "--key", str(built.public_key)]
    capsys.readouterr()
    assert main([*args, "--json"]) == 1
    audit = json.loads(capsys.readouterr().out)
    assert {p["status"] for p in audit["packs"]} == {"ok"}
    (problem,) = audit["dataset_problems"]
    assert "is held 2 times" in problem


def test_without_requests_no_request_row_is_written(
    built: Built, requests_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "wh"
    (outcome,) = add_packs(root, [requests_pack], built.policy)
    assert (outcome.status, outcome.requests) == ("added", None)
    assert run_query(root, "SELECT count(*) FROM requests").rows == ((0,),)
    assert not (root / storage.TABLES_DIR / "requests").exists()
    # The CLI says how many rows an add --requests held.
    other = tmp_path / "other"
    key = ["--key", str(built.public_key)]
    args = ["warehouse", "add", str(requests_pack), "--requests", "--warehouse", str(other)]
    assert main([*args, *key, "--json"]) == 0
    (added,) = json.loads(capsys.readouterr().out)
    assert (added["status"], added["requests"]) == ("added", 40)


def test_a_store_without_per_request_rows_is_a_clear_error_and_nothing_is_written(
    built: Built, requests_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signed pack whose evidence.duckdb holds no run_requests table (another version's
    store): add --requests names the pack and the file, exits 1, writes nothing."""
    pack = Path(shutil.copytree(requests_pack, tmp_path / "pack"))
    store = pack / "evidence.duckdb"
    store.unlink()
    con = duckdb.connect(str(store))
    con.execute("CREATE TABLE serving_runs (run_id VARCHAR)")
    con.close()
    sign_pack_detailed(pack, None, built.signer(), force=True)
    root = tmp_path / "wh"
    assert add_packs(root, [built.stack_bump], built.policy)[0].status == "added"
    before = _files(root)
    key = ["--key", str(built.public_key)]
    code = main(["warehouse", "add", str(pack), "--requests", "--warehouse", str(root), *key])
    assert code == 1
    err = capsys.readouterr().err
    assert f"{pack}: evidence.duckdb does not hold the per-request tables" in err
    assert _files(root) == before
    assert not storage.needs_recovery(root)
