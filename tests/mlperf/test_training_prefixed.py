"""MLPerf Training logs as the official summarizer reads them: rank prefixes and killed runs.

The two results in ``training-v5.1-prefixed`` carry srun rank prefixes (``0: :::MLLOG`` and
``  0: :::MLLOG``); their official time to train is in the summarizer's CSV beside them.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.training import DroppedRun, TrainingRun, read_run
from evidencepack.mlperf.training_import import load_training
from evidencepack.store import Store

CISCO = "Cisco/results/1xC885A_M8-8xH200-SXM-141GB/llama2_70b_lora"
UF = "University-of-Florida/results/hpg.dgxb200x8.n32/llama31_8b"


@pytest.fixture(scope="module")
def prefixed(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "training-v5.1-prefixed"


def _official(prefixed: Path) -> dict[str, float]:
    """submitter -> the summarizer's time to train (minutes), from its CSV."""
    with (prefixed / "result_summarizer_training_5.1.0.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {
        r["submitter"]: float(r["llama2_70b_lora"] or r["llama31_8b"])
        for r in rows
        if r["llama2_70b_lora"] or r["llama31_8b"]
    }


def test_both_results_import_with_the_official_time_to_train(
    prefixed: Path, tmp_path: Path, capsys: Any
) -> None:
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(prefixed), "--db", str(db)]) == 0
    assert "imported 2 result(s)" in capsys.readouterr().out
    official = _official(prefixed)
    with Store(db) as store:
        results = {t.submitter: t for t in load_training(store)}
    assert set(results) == {"Cisco", "University-of-Florida"}
    for submitter, result in results.items():
        assert result.time_to_train_min == pytest.approx(official[submitter], rel=1e-6)
        assert len(result.runs) == 10
        assert result.dropped_runs == ()
        assert all(c.status == "pass" for c in result.checks), submitter


@pytest.mark.parametrize(("folder", "prefix"), [(CISCO, "0: :::MLLOG"), (UF, "  0: :::MLLOG")])
def test_a_rank_prefix_is_stripped(prefixed: Path, folder: str, prefix: str) -> None:
    path = prefixed / folder / "result_0.txt"
    text = path.read_text(encoding="utf-8")
    assert f"\n{prefix} " in text
    run = read_run(path)
    assert isinstance(run, TrainingRun)
    # run_start and run_stop by hand: the times of the two prefixed records
    times = {}
    for number, line in enumerate(text.splitlines(), 1):
        for key in ("run_start", "run_stop"):
            if f'"key": "{key}"' in line and key not in times:
                times[key] = (json.loads(line.split(":::MLLOG", 1)[1])["time_ms"], number)
    assert run.run_start_ms == times["run_start"][0]
    assert run.run_stop_ms == times["run_stop"][0]
    assert run.line == times["run_stop"][1]
    assert run.converged


def _cut_before_run_stop(path: Path) -> int:
    """Cut a log just before its run_stop (a run killed by SIGTERM); the last MLLOG line."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line)
    kept = [*lines[:at], "slurmstepd: error: *** STEP CANCELLED DUE TO SIGTERM ***\n"]
    path.write_text("".join(kept), encoding="utf-8")
    return max(i for i, line in enumerate(kept, 1) if ":::MLLOG" in line)


def _minutes_by_hand(path: Path) -> float:
    start = stop = None
    for line in path.read_text(encoding="utf-8").splitlines():
        found = re.search(r'"time_ms": (\d+), "event_type": "[A-Z_]+", "key": "(run_st\w+)"', line)
        if found and found.group(2) == "run_start" and start is None:
            start = int(found.group(1))
        if found and found.group(2) == "run_stop" and stop is None:
            stop = int(found.group(1))
    assert start is not None
    assert stop is not None
    return (stop - start) / 60_000


def test_a_run_cut_before_run_stop_scores_as_the_summarizer_scores_it(
    prefixed: Path, tmp_path: Path, capsys: Any
) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(prefixed / "Cisco", tree / "Cisco")
    folder = tree / CISCO
    cut = folder / "result_0.txt"
    last = _cut_before_run_stop(cut)
    # the summarizer: the cut run is dropped (one non-converged run is allowed), the other nine
    # are sorted, the fastest is dropped and the slowest stays (the dropped run counts as it)
    others = sorted(_minutes_by_hand(folder / f"result_{n}.txt") for n in range(1, 10))
    factor = json.loads((folder / "scaling.json").read_text())["scaling_factor"]
    expected = sum(others[1:]) / 8 * factor
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 0
    with Store(db) as store:
        (result,) = load_training(store)
    assert result.time_to_train_min == pytest.approx(expected, rel=1e-12)
    (dropped,) = result.dropped_runs
    assert isinstance(dropped, DroppedRun)
    assert dropped.line == last
    assert dropped.reason.startswith(f"{cut}:{last}: no run_stop after run_start at line 639")
    rows = {c.rule: c for c in result.checks}
    assert rows["training.converged"].status == "pass"
    assert rows["training.converged"].actual == "1 dropped: result_0.txt"
    capsys.readouterr()
    assert main(["mlperf", "show", result.key, "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert f"  result_0.txt   {cut}:{last}: no run_stop" in shown
    assert "runs used      8 of 10" in shown


def test_two_runs_cut_leave_no_score(prefixed: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(prefixed / "Cisco", tree / "Cisco")
    for n in (0, 5):
        _cut_before_run_stop(tree / CISCO / f"result_{n}.txt")
    with Store() as store:
        import_path(store, tree)
        (result,) = load_training(store)
    assert result.time_to_train_min is None
    rows = {c.rule: c.status for c in result.checks}
    assert rows["training.converged"] == rows["training.score"] == "fail"


def test_a_broken_record_drops_the_run_naming_its_line(prefixed: Path, tmp_path: Path) -> None:
    path = tmp_path / "result_0.txt"
    lines = (prefixed / CISCO / "result_0.txt").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line)
    lines[at] = lines[at][:60]  # killed mid-write
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(path)
    assert isinstance(run, DroppedRun)
    assert run.reason == f"{path}:{at + 1}: not a complete :::MLLOG record (a parse error)"
