"""'evidencepack mlperf import' and 'mlperf list' through main([...])."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main


def test_import_then_list(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "e.duckdb"
    tree = shared_data / "mlperf" / "v4.0-transcribed"
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == (
        f"{tree}: imported 4 result(s), 0 already in {db}, 0 rejected, 0 skipped"
    )
    assert captured.err == ""  # no progress bar when stderr is not a terminal
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 0
    assert "imported 0 result(s), 4 already in" in capsys.readouterr().out

    assert main(["mlperf", "list", "--db", str(db), "--scenario", "server"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "benchmark/scenario", "validity", "checks", "headline", "TTFT", "TPOT", "accel",
    ]  # fmt: skip
    # grouped by submission and system: the group line, then benchmark/scenario
    assert lines[1] == "v4.0/closed/Google/tpu_v5e_x4/"
    assert lines[2].split()[0] == "gptj-99/Server"
    assert lines[3] == "v4.0/closed/Intel-HabanaLabs/HLS-Gaudi2-PT/"
    assert lines[4].split()[0] == "llama2-70b-99.9/Server"
    assert "6287.47 tok/s" in lines[4]
    assert lines[-2].startswith("2 result(s)")


def test_list_json_is_deterministic(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(shared_data / "loadgen"), "--db", str(db)]) == 0
    capsys.readouterr()
    outputs = []
    for _ in range(2):
        assert main(["mlperf", "list", "--db", str(db), "--json", "--benchmark", "llama2-70b"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    listing = json.loads(outputs[0])
    assert [r["key"] for r in listing["results"]] == [
        "loadgen/llama2-70b-interactive_Server_perf",
        "loadgen/llama2-70b_Offline_perf",
        "loadgen/llama2-70b_Server_perf",
    ]
    assert listing["results"][0]["scenario"] == "Interactive"


def test_rejections_exit_1_with_reasons(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(shared_data / "loadgen" / "gptj_Server_perf", runs / "gptj_Server_perf")
    broken = shutil.copytree(shared_data / "loadgen" / "llama2-70b_Server_perf", runs / "broken")
    (broken / "mlperf_log_detail.txt").write_text("{not mllog}\n", encoding="utf-8")
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(runs), "--db", str(db), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["imported"] == ["loadgen/gptj_Server_perf"]
    (rejection,) = report["rejected"]
    assert rejection["problems"] == [
        f"{broken / 'mlperf_log_detail.txt'}:1: not a :::MLLOG record: '{{not mllog}}'"
    ]
    assert main(["mlperf", "import", str(runs), "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "1 rejected" in out
    assert f"    {broken / 'mlperf_log_detail.txt'}:1: not a :::MLLOG record" in out


def test_import_own_run_against_a_round(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = shared_data / "loadgen" / "custom_Server_overload_perf"
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(run), "--db", str(db), "--round", "v5.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["round"] == "v5.1"
    assert main(["mlperf", "list", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "loadgen/"
    assert lines[2].split()[:3] == ["custom_Server_overload_perf", "INVALID", "FAIL"]


def test_usage_and_input_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mlperf"]) == 2
    assert main(["mlperf", "import", str(tmp_path)]) == 2  # --db is required
    assert "--db" in capsys.readouterr().err
    db = str(tmp_path / "e.duckdb")
    assert main(["mlperf", "import", str(tmp_path / "nope"), "--db", db]) == 1
    assert "nope: no such file or folder" in capsys.readouterr().err
    assert main(["mlperf", "import", str(tmp_path), "--db", db, "--round", "v3.1"]) == 1
    assert "unknown MLPerf round 'v3.1'" in capsys.readouterr().err
    assert main(["mlperf", "list", "--db", str(tmp_path / "absent.duckdb")]) == 1
    assert "no such evidence store" in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(
    shared_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    tree = shared_data / "mlperf" / "v4.1"
    assert main(["mlperf", "import", str(tree), "--db", str(tmp_path / "e.duckdb")]) == 0
    err = capsys.readouterr().err
    assert err.count("\r[") == 4
    assert "] 4/4 " in err
    assert err.endswith("\n")


def test_json_outputs_match_their_schemas(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import jsonschema

    from evidencepack.core.resources import schemas_dir
    from evidencepack.mlperf.query import load_results
    from evidencepack.store import Store

    def schema(name: str) -> dict[str, object]:
        loaded: dict[str, object] = json.loads((schemas_dir() / name).read_text(encoding="utf-8"))
        return loaded

    db = tmp_path / "e.duckdb"
    tree = shared_data / "mlperf" / "v4.1"
    assert main(["mlperf", "import", str(tree), "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, schema("mlperf-import-report.v1.schema.json"))
    assert main(["mlperf", "list", "--db", str(db), "--json"]) == 0
    jsonschema.validate(json.loads(capsys.readouterr().out), schema("mlperf-list.v1.schema.json"))
    with Store(db) as store:
        for result in load_results(store):
            jsonschema.validate(
                result.model_dump(mode="json"), schema("mlperf-result.v1.schema.json")
            )
    report["imported"] = "not a list"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, schema("mlperf-import-report.v1.schema.json"))
