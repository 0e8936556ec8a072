"""MLPerf Training: time to train as the round's summarizer scores it, on the v5.1 sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.training_import import load_training
from evidencepack.store import Store

from .conftest import replace_in
from .test_importer import printed_precision_equal

QCT = "training/no-round/closed/Quanta_Cloud_Technology/D75T-7U/llama2_70b_lora"
LORA = "NVIDIA/results/tyche_ngpu8_ngc25.09_nemo/llama2_70b_lora"


@pytest.fixture(scope="module")
def sample(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "training-sample"


def test_import_lists_time_to_train_apart_from_inference(
    sample: Path, tmp_path: Path, capsys: Any
) -> None:
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(sample), "--db", str(db)]) == 0
    assert "imported 4 result(s)" in capsys.readouterr().out
    assert main(["mlperf", "list", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MLPerf Training (time to train; a situational reference")
    assert f"{QCT}\n  21.63 min    runs 8/10 used" in out
    assert main(["mlperf", "list", "--db", str(db), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["results"] == []  # nothing in the inference table
    assert len(listing["training"]) == 4
    assert main(["mlperf", "show", QCT, "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "  result_1.txt      18.1045 min  dropped" in shown
    assert "  dataset        SCROLLS GovReport" in shown


def test_qct_matches_its_official_summary(sample: Path) -> None:
    table = json.loads((sample / "Quanta_Cloud_Technology" / "summary.json").read_text())
    (row,) = [r for r in table if r["system"] == "D75T-7U"]
    with Store() as store:
        import_path(store, sample)
        (qct,) = load_training(store, [QCT])
    assert printed_precision_equal(qct.time_to_train_min, row["llama2_70b_lora"])
    assert qct.accelerator == row["accelerator_model_name"]
    assert qct.accelerators_total == row["accelerators_count"]


def test_the_olympic_average_drops_the_fastest_and_slowest(sample: Path) -> None:
    with Store() as store:
        import_path(store, sample)
        results = load_training(store)
    assert len(results) == 4
    for result in results:
        minutes = sorted(r.minutes for r in result.runs)
        used = sorted(r.minutes for r in result.runs_used)
        assert used == minutes[1:-1], result.key
        assert result.olympic_min == pytest.approx(sum(used) / len(used))
        assert result.time_to_train_min == pytest.approx(result.olympic_min * result.scaling_factor)
        assert all(c.status == "pass" for c in result.checks), result.key
    by_benchmark = {r.benchmark: r for r in results if r.submitter == "NVIDIA"}
    assert len(by_benchmark["llama31_405b"].runs_used) == 1  # 3 runs: the median
    assert by_benchmark["llama31_405b"].scaling_factor == 1.0  # no scaling.json


def _copy(sample: Path, tmp_path: Path, name: str = "tree") -> Path:
    tree = tmp_path / name
    shutil.copytree(sample / "NVIDIA", tree / "NVIDIA")
    return tree


def test_missing_run_stop_drops_the_run_and_names_the_last_line(
    sample: Path, tmp_path: Path, capsys: Any
) -> None:
    tree = _copy(sample, tmp_path)
    path = tree / LORA / "result_3.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"key": "run_stop"' not in line]
    assert len(kept) == len(lines) - 1
    path.write_text("".join(kept), encoding="utf-8")
    last = max(i for i, line in enumerate(kept, start=1) if line.startswith(":::MLLOG"))
    db = tmp_path / "e.duckdb"
    # the summarizer drops the run as not converged and scores the other nine
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 0
    with Store() as store:
        report = import_path(store, tree)
        (lora,) = [r for r in load_training(store) if r.benchmark == "llama2_70b_lora"]
    assert report.rejected == ()
    (dropped,) = lora.dropped_runs
    assert dropped.reason.startswith(f"{path}:{last}: no run_stop after run_start at line ")
    assert dropped.line == last
    converged = sorted(r.minutes for r in lora.runs)
    assert len(converged) == 9
    assert sorted(r.minutes for r in lora.runs_used) == converged[1:]
    capsys.readouterr()
    assert main(["mlperf", "show", lora.key, "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "dropped runs (counted as not converged" in shown
    assert f"  result_3.txt   {path}:{last}: no run_stop" in shown


def test_runs_that_did_not_converge(sample: Path, tmp_path: Path) -> None:
    tree = _copy(sample, tmp_path)
    status = '"status": "success"'
    replace_in(tree / LORA / "result_2.txt", status, '"status": "aborted"')
    with Store() as store:
        import_path(store, tree)
        (one,) = [r for r in load_training(store) if r.benchmark == "llama2_70b_lora"]
    # one dropped already: only the fastest of the other nine goes, eight are averaged
    assert [Path(r.path).name for r in one.runs if not r.converged] == ["result_2.txt"]
    converged = sorted(r.minutes for r in one.runs if r.converged)
    assert sorted(r.minutes for r in one.runs_used) == converged[1:]
    replace_in(tree / LORA / "result_4.txt", status, '"status": "aborted"')
    with Store() as store:
        import_path(store, tree)
        (two,) = [r for r in load_training(store) if r.benchmark == "llama2_70b_lora"]
    assert two.time_to_train_min is None
    rows = {c.rule: c.status for c in two.checks}
    assert rows["training.converged"] == rows["training.score"] == "fail"


def test_round_from_the_folder(sample: Path, tmp_path: Path) -> None:
    tree = _copy(sample, tmp_path, "training_results_v5.1")
    with Store() as store:
        report = import_path(store, tree)
    assert report.imported == (
        "training/v5.1/closed/NVIDIA/theia_ngpu512_ngc25.09_nemo/llama31_405b",
        "training/v5.1/closed/NVIDIA/tyche_ngpu8_ngc25.09_nemo/llama2_70b_lora",
    )
