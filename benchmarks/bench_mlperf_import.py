"""Time ``evidencepack mlperf import`` of the whole v5.1 slice against a baseline, same run.

The baseline reads the same files (every file the import records as a source) and parses every
JSON line of the detail logs (``:::MLLOG {json}``), nothing else: the floor any importer of these
files pays. Each is timed ``--repeat`` times (the best is reported) into a fresh store file.

    python benchmarks/bench_mlperf_import.py [--data ../shared/data/mlperf/v5.1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# time this checkout's code, not whichever evidencepack happens to be installed
sys.path.insert(0, str(REPO_ROOT))

from evidencepack.mlperf.importer import import_path  # noqa: E402
from evidencepack.mlperf.query import load_results  # noqa: E402
from evidencepack.store import Store  # noqa: E402

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "mlperf" / "v5.1"


def run_import(tree: Path) -> tuple[float, int, list[Path]]:
    """Seconds for one import into a new store file, results stored, and the files read."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        with Store(Path(folder) / "bench.duckdb") as store:
            report = import_path(store, tree)
        elapsed = time.perf_counter() - start
        with Store(Path(folder) / "bench.duckdb") as store:
            files = sorted({Path(s.path) for r in load_results(store) for s in r.sources})
    if report.rejected:
        raise SystemExit(f"the import rejected {len(report.rejected)} result(s): fix that first")
    return elapsed, len(report.imported), files


def run_baseline(files: list[Path]) -> tuple[float, int]:
    """Seconds to read every file and json.loads every :::MLLOG line; lines parsed."""
    start = time.perf_counter()
    parsed = 0
    for path in files:
        data = path.read_bytes()
        if path.name == "mlperf_log_detail.txt":
            for line in data.decode("utf-8", errors="replace").splitlines():
                if line.startswith(":::MLLOG "):
                    json.loads(line[9:])
                    parsed += 1
    return time.perf_counter() - start, parsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the results tree")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (best is kept)")
    args = parser.parse_args()
    imports = [run_import(args.data) for _ in range(args.repeat)]
    files = imports[0][2]
    baselines = [run_baseline(files) for _ in range(args.repeat)]
    best_import = min(t for t, _, _ in imports)
    best_baseline = min(t for t, _ in baselines)
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"tree: {args.data}")
    print(f"results: {imports[0][1]}, files read: {len(files)} ({size_mb:.1f} MB)")
    print(f"baseline (read files + parse {baselines[0][1]} JSON lines): {best_baseline:.3f} s")
    print(f"mlperf import (new store file):                       {best_import:.3f} s")
    print(f"ratio import / baseline: {best_import / best_baseline:.1f}x")


if __name__ == "__main__":
    main()
