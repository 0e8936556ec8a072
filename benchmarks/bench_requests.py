"""Load a one-million-request per-request file: evidencepack's loader beside bare DuckDB.

Generates an AIPerf-style ``profile_export.jsonl`` (1,000,000 records, seeded) in
``benchmarks/.cache/`` once, then measures, each in its own child process so peak memory is
its own: (1) ``read_input`` + ``load_input`` into an in-memory store (detection, DuckDB bulk
read, validation, SQL percentiles, columnar insert), and (2) DuckDB's ``read_json`` of the
same file into a table. Prints wall time and peak RSS for each.

    python benchmarks/bench_requests.py [--requests N]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
REPO = Path(__file__).resolve().parent.parent


def generate(path: Path, n: int, seed: int = 7) -> None:
    """AIPerf ``profile_export.jsonl`` records: metadata, metrics as {value, unit}, error."""
    rng = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    start_ns = 1_796_015_164_000_000_000
    with tmp.open("w", encoding="utf-8") as out:
        for i in range(n):
            start_ns += rng.randint(50_000, 2_000_000)
            ttft = rng.uniform(10.0, 400.0)
            osl = rng.randint(2, 512)
            gaps = [rng.uniform(2.0, 40.0) for _ in range(4)]
            latency = ttft + sum(gaps) * (osl - 1) / 4
            record = {
                "metadata": {
                    "session_num": i,
                    "request_start_ns": start_ns,
                    "request_end_ns": start_ns + int(latency * 1e6),
                    "benchmark_phase": "profiling",
                    "was_cancelled": False,
                },
                "metrics": {
                    "input_sequence_length": {"value": rng.randint(64, 4096), "unit": "tokens"},
                    "output_sequence_length": {"value": osl, "unit": "tokens"},
                    "time_to_first_token": {"value": ttft, "unit": "ms"},
                    "request_latency": {"value": latency, "unit": "ms"},
                    "inter_token_latency": {"value": (latency - ttft) / (osl - 1), "unit": "ms"},
                    "inter_chunk_latency": {"value": gaps, "unit": "ms"},
                },
                "error": None,
            }
            out.write(json.dumps(record, separators=(",", ":")))
            out.write("\n")
    tmp.replace(path)


def measure_ours(path: Path) -> str:
    from evidencepack.inputs.load import load_input
    from evidencepack.inputs.registry import read_input
    from evidencepack.store import Store

    parsed = read_input(path)
    store = Store()
    load_input(store, parsed, role="runs", candidate="bench")
    rows = store.rows("SELECT count(*) AS n FROM run_requests")[0]["n"]
    run = parsed.runs[0]
    p99 = run.ttft.p99_ms if run.ttft else None
    return f"{rows} rows stored; TTFT p99 {p99:.2f} ms recomputed in SQL"


def measure_duckdb(path: Path) -> str:
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute(
        "CREATE TABLE t AS SELECT * FROM read_json(?, format='newline_delimited')", [str(path)]
    )
    rows = con.execute("SELECT count(*) FROM t").fetchone()
    return f"{rows[0] if rows else 0} rows in a table (auto-detected schema)"


def child(kind: str, path: Path) -> None:
    # Import this checkout's evidencepack, not whichever one is installed.
    sys.path.insert(0, str(REPO))
    began = time.perf_counter()
    note = measure_ours(path) if kind == "evidencepack" else measure_duckdb(path)
    wall = time.perf_counter() - began
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"kind": kind, "wall_s": wall, "peak_rss_mib": peak_mib, "note": note}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--child", choices=("evidencepack", "duckdb"), help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, Path(args.path))
        return 0
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"profile_export_{args.requests}.jsonl"
    if not path.exists():
        began = time.perf_counter()
        generate(path, args.requests)
        print(f"generated {path} in {time.perf_counter() - began:.1f} s")
    size_mib = path.stat().st_size / 2**20
    print(f"{path.name}: {args.requests} records, {size_mib:.0f} MiB")
    print(f"{'loader':<14} {'wall s':>8} {'peak RSS MiB':>13}  note")
    for kind in ("evidencepack", "duckdb"):
        done = subprocess.run(
            [sys.executable, __file__, "--child", kind, "--path", str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"{kind}: failed\n{done.stderr}", file=sys.stderr)
            return 1
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{kind:<14} {result['wall_s']:>8.2f} {result['peak_rss_mib']:>13.0f}  {result['note']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
