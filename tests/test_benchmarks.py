"""The benchmark suite's quick mode as a regression guard, and its machinery.

``benchmarks/run_all.py --quick --guard`` runs every row of the table on small inputs (each
figure a median of paired runs, evidencepack and its floor alternated in the same run) and fails
when a row's ratio to its floor is worse than the one recorded in ``benchmarks/recorded.json``
by more than the recorded margin (after one more run of that row). Ratios, not times: a slower
or busier machine slows both sides of each.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _run_all() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_script_is_a_row_of_run_all_or_listed_as_not_one() -> None:
    run_all = _run_all()
    rows = set(run_all.scripts().values())
    assert not rows & set(run_all.NOT_ROWS)
    assert {p.name for p in BENCHMARKS.glob("bench_*.py")} == rows | set(run_all.NOT_ROWS)
    assert "bench_startup.py" in rows  # found by the bench_*.py convention


def test_every_recorded_row_has_a_ratio_and_the_margin_is_stated() -> None:
    recorded = json.loads((BENCHMARKS / "recorded.json").read_text())
    assert 0 < recorded["margin"] <= 1
    assert recorded["quick"]  # what the guard compares with
    for mode in ("quick", "full"):
        for row, figures in recorded.get(mode, {}).items():
            assert figures["ratio"] > 0, (mode, row)


def _row(ratio: float, **more: Any) -> dict[str, Any]:
    return {"id": "verify", "row": "verify", "ratio": ratio, **more}


def test_the_guard_flags_a_ratio_past_the_margin_and_nothing_within_it() -> None:
    run_all = _run_all()
    recorded = {"margin": 0.5, "quick": {"verify": {"ratio": 2.0, "memory_ratio": 1.0}}}
    assert run_all.regressions([_row(2.9, memory_ratio=1.4)], recorded, "quick") == ([], [])
    worse, _ = run_all.regressions([_row(3.1)], recorded, "quick")
    assert worse == ["verify: ratio 3.10x, recorded 2.00x (limit 3.00x)"]
    worse, _ = run_all.regressions([_row(1.0, memory_ratio=1.6)], recorded, "quick")
    assert [w.split(",")[0] for w in worse] == ["verify: memory_ratio 1.60x"]
    assert run_all.regressions([{**_row(9.0), "id": "new"}], recorded, "quick") == ([], ["new"])


def test_recording_some_rows_keeps_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--only startup --record`` rewrites the rows it ran, in its mode, and no other."""
    run_all = _run_all()
    recorded = tmp_path / "recorded.json"
    before = {
        "margin": 0.5,
        "quick": {"verify": {"ratio": 1.4}, "help": {"ratio": 3.0}},
        "full": {"help": {"ratio": 3.1}},
    }
    recorded.write_text(json.dumps(before))
    monkeypatch.setattr(run_all, "RECORDED", recorded)
    run_all.record([{**_row(1.5), "id": "help"}, {**_row(9.0), "id": "diff"}], "quick")
    assert json.loads(recorded.read_text()) == {
        "margin": 0.5,
        "quick": {"verify": {"ratio": 1.4}, "help": {"ratio": 1.5}, "diff": {"ratio": 9.0}},
        "full": {"help": {"ratio": 3.1}},
    }


# slow: runs the quick benchmarks, each against its floor
@pytest.mark.slow
def test_quick_benchmarks_hold_the_recorded_ratios(tmp_path: Path) -> None:
    """Every row of the table runs to its RESULT line and none is past the recorded ratio by
    more than the margin (the verify row once stopped the run: it signed its cached pack twice
    without force)."""
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run_all.py"), "--quick", "--guard", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env={**os.environ, "EVIDENCEPACK_BENCH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-4000:]
    rows = json.loads(out.read_text())["rows"]
    recorded = json.loads((BENCHMARKS / "recorded.json").read_text())["quick"]
    assert {r["id"] for r in rows} >= set(recorded)  # every recorded row ran
    table = done.stdout.split("| row | now | floor |", 1)[1].splitlines()[2:]
    assert sum(line.startswith("| ") for line in table) == len(rows)
    for r in rows:
        assert r["ratio"] > 0
        if r["clock"] == "cpu":
            # the seconds are rounded to 4 decimals, the ratio is not
            assert r["ratio"] == pytest.approx(r["ours_cpu_s"] / r["floor_cpu_s"], rel=0.03)
    assert "QUICK: small inputs" in done.stdout
    assert (tmp_path / "cache").is_dir()  # the generated inputs went to the temporary folder
