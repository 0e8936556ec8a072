"""'evidencepack mlperf show KEY' and the 100-column 'mlperf list', through main([...])."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evidencepack._cli import main
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.fixture
def db(shared_data: Path, tmp_path: Path) -> Path:
    path = tmp_path / "e.duckdb"
    assert (
        main(["mlperf", "import", str(shared_data / "mlperf" / "v6.0-sample"), "--db", str(path)])
        == 0
    )
    for run in ("custom_Server_overload_perf", "llama2-70b_Server_perf"):
        folder = shared_data / "loadgen" / run
        assert main(["mlperf", "import", str(folder), "--db", str(path)]) == 0
    return path


def _results(db: Path) -> dict[str, Any]:
    with Store(db) as store:
        return {r.key: r for r in load_results(store)}


def test_show_prints_every_rule_with_its_limit_and_measured_value(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _results(db)
    key = next(k for k in results if "gpt-oss-120b/Server" in k)
    capsys.readouterr()
    assert main(["mlperf", "show", key, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    result = results[key]
    assert out.splitlines()[0] == key
    assert f"{result.headline_value:.6g} {result.headline_unit}" in out
    for row in result.checks:
        assert f" {row.rule}\n" in out
        assert f"limit    {row.expected}" in out
        assert f"measured {row.actual}" in out
    ttft = next(r for r in result.checks if r.rule.endswith("ttft_p99"))
    assert "3000" in ttft.expected  # gpt-oss-120b Server: TTFT p99 < 3000 ms (v6.0 checker)
    # an open-division accuracy bound is shown, not applied
    accuracy = [r for r in result.checks if r.rule.startswith("round.accuracy")]
    assert accuracy
    assert all(r.status == "skip" for r in accuracy)
    assert "not checked  round.accuracy.exact_match" in out


def test_show_without_a_round_says_not_checked(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "loadgen/custom_Server_overload_perf"
    capsys.readouterr()
    assert main(["mlperf", "show", key, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "not checked  round" in out
    assert "no round is known for this result" in out
    assert "FAIL         loadgen.validity" in out  # LoadGen's own verdict: INVALID on TTFT


def test_show_json_follows_the_result_schema(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = next(k for k in _results(db) if "qwen3-vl" in k)
    capsys.readouterr()
    assert main(["mlperf", "show", key, "--db", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    schema = json.loads((SCHEMAS / "mlperf-result.v1.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["key"] == key
    assert doc["benchmark"] == "qwen3-vl-235b-a22b"


def test_show_of_an_unknown_key_names_the_near_ones(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = next(k for k in _results(db) if "gpt-oss-120b/Offline" in k)
    capsys.readouterr()
    assert main(["mlperf", "show", key.replace("Offline", "Ofline"), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "no MLPerf result" in err
    assert key in err


def test_list_fits_100_columns_and_marks_unchecked_results(
    db: Path, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the longest keys real trees have: v4.1's NeuralMagic system folder
    assert main(["mlperf", "import", str(shared_data / "mlperf" / "v4.1"), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["mlperf", "list", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    results = _results(db)
    assert max(len(k) for k in results) > 100  # the old one-key-per-line table could not fit
    lines = out.splitlines()[:-2]  # the two footer lines
    for key, result in results.items():
        parts = key.split("/")
        leaf = "/".join(parts[-2:] if len(parts) > 2 else parts[-1:])
        row = next(line for line in lines if line.strip().startswith(f"{leaf} "))
        expected = "FAIL" if not result.checks_ok else ("ok" if result.round else "not run")
        assert f" {result.validity} " in row
        assert f" {expected} " in row
    row = next(line for line in lines if "llama2-70b_Server_perf" in line)
    assert row.split()[1:3] == ["VALID", "not", "run"] or row.split()[1:3] == ["VALID", "not"]
