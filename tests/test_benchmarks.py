"""A smoke test of the benchmark scripts' shared machinery (benchmarks are not run in CI).

Only the start-up benchmark runs here (``--quick``: three pairs of tiny processes, writes
nothing); the others need big generated inputs and minutes, see benchmarks/README.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_startup_benchmark_prints_both_figures_and_their_ratio() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_startup.py"), "--quick"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(lines) == 1
    result = json.loads(lines[0].removeprefix("RESULT "))
    assert result["row"] == "--help"
    assert result["ours_cpu_s"] > 0
    assert result["floor_cpu_s"] > 0
    # The printed seconds are rounded to 4 decimals, the ratio is not: with tiny --quick times
    # (0.0121 s) that rounding alone moves the quotient by up to ~1%.
    assert result["ratio"] == pytest.approx(result["ours_cpu_s"] / result["floor_cpu_s"], rel=0.02)
    assert result["met"] == (result["ratio"] <= result["goal"])


def test_every_benchmark_script_is_a_row_of_run_all_or_listed_as_not_one() -> None:
    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
    assert spec is not None
    assert spec.loader is not None
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    listed = set(run_all.SCRIPTS.values()) | set(run_all.NOT_ROWS)
    scripts = {p.name for p in BENCHMARKS.glob("bench_*.py")}
    assert scripts
    assert scripts == listed


@pytest.mark.slow
def test_run_all_quick_runs_every_row(tmp_path: Path) -> None:
    """Every script of the table runs to its RESULT line (the verify row once stopped the run:
    it signed its cached pack twice without force)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run_all.py"), "--quick"],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env={**os.environ, "EVIDENCEPACK_BENCH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    started = [line for line in done.stdout.splitlines() if line.startswith("== ")]
    table = done.stdout.split("| what | evidencepack |", 1)[1].splitlines()[2:]
    assert len(started) == 6
    assert [line.startswith("| ") for line in table] == [True] * 6
    assert "QUICK: small inputs" in done.stdout
    assert (tmp_path / "cache").is_dir()  # the generated inputs went to the temporary folder
