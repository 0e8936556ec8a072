"""A vLLM result of many appended runs (``vllm bench serve --append-result``): read in a number of
DuckDB statements that does not grow with the runs, and `inspect` describes a bounded number of
them (the rest counted; `--json` lists every run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.intake.snapshot import read_private
from evidencepack.readers.describe import SHOWN_RUNS
from evidencepack.store.connection import Connection

REAL = "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json"


def _appended(shared_data: Path, folder: Path, runs: int) -> Path:
    result = json.loads((shared_data / REAL).read_text(encoding="utf-8"))
    path = folder / "appended.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(runs):
            result["date"] = f"20250917-{n:06d}"
            out.write(json.dumps(result) + "\n")
    return path


@pytest.mark.parametrize("runs", [30, 300])
def test_statements_do_not_grow_with_the_runs(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs: int
) -> None:
    path = _appended(shared_data, tmp_path, runs)
    calls: list[str] = []
    original = Connection.execute

    def counting(self: Connection, sql: str, params: object = None) -> object:
        calls.append(sql)
        return original(self, sql, params)  # type: ignore[arg-type]

    monkeypatch.setattr(Connection, "execute", counting)
    parsed = read_private(path)
    assert len(parsed.runs) == runs
    assert {r.requests_completed for r in parsed.runs} == {500}
    assert len(calls) < 20, calls[:5]


def test_inspect_describes_a_bounded_number_of_runs(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _appended(shared_data, tmp_path, 300)
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.count("\n  run ") == SHOWN_RUNS
    assert f"  ... and {300 - SHOWN_RUNS:,} more runs (--json lists every run)" in text
    assert main(["inspect", "--json", str(path)]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert len(report["runs"]) == 300
