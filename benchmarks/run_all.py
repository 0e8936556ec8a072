"""Run every benchmark (each a child process) and print the table: our figure, its floor, ratio.

    python benchmarks/run_all.py [--quick] [--only verify,startup]

``--quick`` runs each script on a small input once (a smoke test of the scripts, not a
measurement). The full run takes several minutes and generates its inputs into
``benchmarks/.cache/`` (git-ignored) the first time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = {
    # row of the table -> script
    "verify": "bench_verify.py",
    "check": "bench_check_mlperf.py",
    "mlperf-import": "bench_mlperf_import.py",
    "startup": "bench_startup.py",
    "build": "bench_build.py",
    "requests": "bench_requests.py",
}
NOT_ROWS = {
    # benchmarks that are not a row of the table, run on their own
    "bench_measure_client.py": "the measure client's latency and rate beside a raw socket",
    "bench_warehouse.py": "the warehouse: time and size per 1,000 packs, query latency, Spark",
}
RESULT_PREFIX = "RESULT "


class RowFailed(Exception):
    """A benchmark script failed or printed no result: its row is missing from the table."""


def run(script: str, quick: bool) -> dict[str, object]:
    argv = [sys.executable, str(HERE / script), *(["--quick"] if quick else [])]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        raise RowFailed(f"{script} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    lines = [x for x in done.stdout.splitlines() if x.startswith(RESULT_PREFIX)]
    if not lines:
        raise RowFailed(f"{script} printed no {RESULT_PREFIX.strip()} line")
    result: dict[str, object] = json.loads(lines[-1][len(RESULT_PREFIX) :])
    result["seconds"] = time.perf_counter() - began
    return result


def table(results: list[dict[str, object]]) -> str:
    rows = [
        "| what | evidencepack | floor / peer | ratio | goal | met |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        clock = r["clock"]
        ours = f"{r['ours']}: {float(str(r[f'ours_{clock}_s'])):.3f} s {clock}"
        floor = f"{r['floor']}: {float(str(r[f'floor_{clock}_s'])):.3f} s {clock}"
        ratio = f"{float(str(r['ratio'])):.2f}x"
        goal = f"<= {r['goal']}x"
        if "memory_ratio" in r:
            ratio += f", memory {float(str(r['memory_ratio'])):.2f}x"
            goal += f", memory <= {r['memory_goal']}x"
        rows.append(
            f"| {r['row']} | {ours} | {floor} | {ratio} | {goal} | {'yes' if r['met'] else 'no'} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one run each")
    parser.add_argument("--only", help=f"comma-separated rows among {', '.join(SCRIPTS)}")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(SCRIPTS)
    unknown = [name for name in chosen if name not in SCRIPTS]
    if unknown:
        parser.error(f"unknown row(s) {unknown}; choose among {', '.join(SCRIPTS)}")
    results = []
    failed = []
    for name in chosen:
        print(f"== {name} ({SCRIPTS[name]})", flush=True)
        try:
            results.append(run(SCRIPTS[name], args.quick))
        except RowFailed as exc:  # report it, and still run the other rows
            print(f"run_all: {exc}", file=sys.stderr, flush=True)
            failed.append(name)
    print()
    print("Medians of paired runs (evidencepack and its floor alternated in the same run);")
    print(
        "ratios by CPU time." + (" QUICK: small inputs, one run: not a measurement." * args.quick)
    )
    print(table(results))
    if failed:
        print(f"run_all: failed: {', '.join(failed)} (no row in the table)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
