"""Time ``evidencepack mlperf import`` of the whole v5.1 slice against a baseline, same run.

The baseline reads the same files (every file the import records as a source) and parses every
JSON line of the detail logs (``:::MLLOG {json}``), nothing else: the floor any importer of these
files pays. The two are paired and alternated ``--repeat`` times (medians kept), the import
each time into a fresh store file; the ratio is by CPU time.

Measured in the same runs, the work an import owes beyond that floor by its contract (the
"true floor", reported beside the row): each file's sha256 from the bytes read (the sources
are recorded by digest) and a new evidence store file, created with its schema and closed.

    python benchmarks/bench_mlperf_import.py [--quick] [--data TREE] [--repeat 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from _common import SHARED, Paired, Timing, median, report, timed

from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

DEFAULT_DATA = SHARED / "mlperf" / "v5.1"
QUICK_DATA = DEFAULT_DATA / "closed" / "AMD"


def run_import(tree: Path) -> tuple[Timing, int, list[Path]]:
    """One import into a new store file: its timing, results stored, and the files read."""
    with tempfile.TemporaryDirectory() as folder:
        reports = []

        def work() -> None:
            with Store(Path(folder) / "bench.duckdb") as store:
                reports.append(import_path(store, tree))

        timing = timed(work)
        with Store(Path(folder) / "bench.duckdb") as store:
            files = sorted({Path(s.path) for r in load_results(store) for s in r.sources})
    if reports[0].rejected:
        raise SystemExit(
            f"the import rejected {len(reports[0].rejected)} result(s): fix that first"
        )
    return timing, len(reports[0].imported), files


def run_baseline(files: list[Path]) -> int:
    """Read every file and json.loads every :::MLLOG line; lines parsed."""
    parsed = 0
    for path in files:
        data = path.read_bytes()
        if path.name == "mlperf_log_detail.txt":
            for line in data.decode("utf-8", errors="replace").splitlines():
                if line.startswith(":::MLLOG "):
                    json.loads(line[9:])
                    parsed += 1
    return parsed


def run_true_floor(files: list[Path]) -> int:
    """The floor, each file hashed from the bytes read, and a new store file created and
    closed: what any import that records digests into a store pays; lines parsed."""
    parsed = 0
    for path in files:
        data = path.read_bytes()
        hashlib.sha256(data).hexdigest()
        if path.name == "mlperf_log_detail.txt":
            for line in data.decode("utf-8", errors="replace").splitlines():
                if line.startswith(":::MLLOG "):
                    json.loads(line[9:])
                    parsed += 1
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "floor.duckdb"):
        pass
    return parsed


def paired3(
    ours: Callable[[], Timing],
    floor: Callable[[], Timing],
    true_floor: Callable[[], Timing],
    repeat: int,
) -> tuple[Paired, Timing]:
    """Medians of ``repeat`` rounds of the three, the order reversed every other round (after
    one warm-up round)."""
    kept: tuple[list[Timing], list[Timing], list[Timing]] = ([], [], [])
    runs = (ours, floor, true_floor)
    for fn in runs:
        fn()
    for i in range(repeat):
        order = [0, 1, 2] if i % 2 == 0 else [2, 1, 0]
        for k in order:
            kept[k].append(runs[k]())
    return Paired(ours=median(kept[0]), floor=median(kept[1]), runs=repeat), median(kept[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="the results tree")
    parser.add_argument("--quick", action="store_true", help="one submitter (closed/AMD), 3 pairs")
    parser.add_argument("--repeat", type=int, default=5, help="paired runs (median kept)")
    args = parser.parse_args()
    tree = args.data or (QUICK_DATA if args.quick else DEFAULT_DATA)
    repeat = 3 if args.quick else args.repeat
    _, results, files = run_import(tree)
    lines = run_baseline(files)
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"tree: {tree}")
    print(f"results: {results}, files read: {len(files)} ({size_mb:.1f} MB), JSON lines: {lines}")
    result, true_floor = paired3(
        lambda: run_import(tree)[0],
        lambda: timed(lambda: run_baseline(files)),
        lambda: timed(lambda: run_true_floor(files)),
        repeat,
    )
    per_result_ms = (result.ours.cpu_s - result.floor.cpu_s) / results * 1000
    print(f"cost over the floor per result: {per_result_ms:.2f} ms cpu")
    true_ratio = result.ours.cpu_s / true_floor.cpu_s
    print(
        f"true floor (+ sha256 of every file, + a new store file): cpu {true_floor.cpu_s:.3f} s, "
        f"ratio {true_ratio:.2f}x"
    )
    report(
        "mlperf import",
        result,
        ours=f"mlperf import ({results} results, new store file)",
        floor="read the same files + json.loads every :::MLLOG line",
        row_id="mlperf-import",
        goal=1.5,
        extra={
            "results": results,
            "over_floor_ms_per_result": round(per_result_ms, 3),
            "true_floor_cpu_s": round(true_floor.cpu_s, 4),
            "true_floor_ratio": round(true_ratio, 3),
        },
    )


if __name__ == "__main__":
    main()
