"""``check`` of a spec citing N small serving-run files: is the cost per added file flat?

Copies ``samples/`` into ``benchmarks/.cache/check-runs/`` and adds N generated ``vllm bench
serve --save-result`` files (8 requests each, about 1.5 KB, every one a different run) to the
first candidate's ``runs``. Each N is checked in this process (one warm-up ``check`` of the
sample first); the figure per file is the time over the sample's own ``check`` divided by N,
each the median of ``--repeat`` checks (3; sizes over 1,000 files are checked once).
Peak memory is the process's maximum RSS after the largest N (``check`` runs in-process, so it
is an upper bound for that N). Beside the times it counts the DuckDB statements per added file,
a figure the machine's load does not move. The goal: the cost per file flat from 100 to 10,000
files and at most 10 ms per small file.

    python benchmarks/bench_check_runs.py [--quick] [--sizes 100,1000,10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sys
from pathlib import Path

from _common import CACHE, REPO, RESULT_PREFIX, Timing, median, timed

from evidencepack.pipeline import CompileOptions, check
from evidencepack.store.connection import Connection

REQUESTS_PER_FILE = 8
GOAL_MS = 10.0


def run_file(seed: int) -> dict[str, object]:
    """One small ``vllm bench serve`` result: 8 requests, their aggregates computed from them."""
    rng = random.Random(seed)
    n = REQUESTS_PER_FILE
    outs = [rng.randint(2, 40) for _ in range(n)]
    ttfts = [rng.uniform(0.02, 0.4) for _ in range(n)]
    itls = [[rng.uniform(0.004, 0.03) for _ in range(o - 1)] for o in outs]
    lats = [t + sum(g) for t, g in zip(ttfts, itls, strict=True)]
    starts = [i * 0.05 for i in range(n)]
    duration = max(s + lat for s, lat in zip(starts, lats, strict=True))
    ins = [rng.randint(100, 300) for _ in range(n)]

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    tpots = [(lat - t) / (o - 1) * 1000 for lat, t, o in zip(lats, ttfts, outs, strict=True)]
    return {
        "date": "20261130-051200",
        "backend": "vllm",
        "endpoint_type": "vllm",
        "model_id": "acme/contract-summariser-70b-fp8 (sample)",
        "tokenizer_id": "acme/contract-summariser-70b-fp8 (sample)",
        "num_prompts": n,
        "request_rate": 1.0 + seed % 7,
        "burstiness": 1.0,
        "max_concurrency": None,
        "duration": duration,
        "completed": n,
        "failed": 0,
        "total_input_tokens": sum(ins),
        "total_output_tokens": sum(outs),
        "request_throughput": n / duration,
        "output_throughput": sum(outs) / duration,
        "total_token_throughput": (sum(ins) + sum(outs)) / duration,
        "mean_ttft_ms": mean([t * 1000 for t in ttfts]),
        "mean_tpot_ms": mean(tpots),
        "mean_e2el_ms": mean([lat * 1000 for lat in lats]),
        "input_lens": ins,
        "output_lens": outs,
        "ttfts": ttfts,
        "itls": itls,
        "latencies": lats,
        "start_times": starts,
        "errors": [""] * n,
    }


def spec_with_runs(count: int) -> Path:
    """The sample, copied, its first candidate citing ``count`` generated run files more."""
    folder = CACHE / f"check-runs-{count}"
    spec = folder / "pack.yaml"
    if spec.exists():
        return spec
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(REPO / "samples", folder, ignore=shutil.ignore_patterns("generate"))
    runs = folder / "evidence" / "many-runs"
    runs.mkdir(parents=True)
    cited = []
    for i in range(count):
        name = f"run-{i:05d}.json"
        (runs / name).write_text(json.dumps(run_file(i)))
        cited.append(f"        - path: evidence/many-runs/{name}\n")
    text = spec.read_text()
    anchor = "        - path: evidence/h200-vllm/runs/qps_2.0\n"
    if anchor not in text:
        raise SystemExit("the sample no longer cites evidence/h200-vllm/runs/qps_2.0: update")
    spec.write_text(text.replace(anchor, anchor + "".join(cited), 1))
    return spec


STATEMENTS = [0]


def _counted(method):  # type: ignore[no-untyped-def]
    def run(*args, **kwargs):  # type: ignore[no-untyped-def]
        STATEMENTS[0] += 1
        return method(*args, **kwargs)

    return run


def count_statements() -> None:
    """Count every statement sent to DuckDB (store, staging, price files) from now on."""
    Connection.execute = _counted(Connection.execute)  # type: ignore[method-assign]
    Connection.execute_over = _counted(Connection.execute_over)  # type: ignore[method-assign]


def timed_check(spec: Path, options: CompileOptions, repeat: int = 1) -> tuple[Timing, int]:
    """The median time of ``repeat`` ``check``s and the DuckDB statements one sent: a small N's
    figure per file is a small difference of two ``check``s, which one run leaves to noise."""
    timings, sent = [], 0
    for _ in range(repeat):
        before = STATEMENTS[0]
        timings.append(timed(lambda: check(spec, options)))
        sent = STATEMENTS[0] - before
    return median(timings), sent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="100 and 400 files only (the regression guard)"
    )
    parser.add_argument("--sizes", default=None, help="comma-separated file counts")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="checks timed (median) of the sample and of each size up to 1,000 files (default 3)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    sizes = sizes or ([100, 400] if args.quick else [100, 1000, 10000])
    specs = {n: spec_with_runs(n) for n in sizes}
    options = CompileOptions()
    count_statements()
    check(REPO / "samples" / "pack.yaml", options)  # warm-up: imports, page cache
    base, base_statements = timed_check(REPO / "samples" / "pack.yaml", options, args.repeat)
    print(
        f"check of the sample: cpu {base.cpu_s:.3f} s, wall {base.wall_s:.3f} s, "
        f"{base_statements} DuckDB statements"
    )
    per_file: dict[int, float] = {}
    wall_per_file: dict[int, float] = {}
    statements: dict[int, float] = {}
    for n in sizes:
        t, sent = timed_check(specs[n], options, args.repeat if n <= 1000 else 1)
        per_file[n] = (t.cpu_s - base.cpu_s) / n * 1000
        wall_ms = (t.wall_s - base.wall_s) / n * 1000
        wall_per_file[n] = wall_ms
        statements[n] = (sent - base_statements) / n
        print(
            f"{n:>6} run files: cpu {t.cpu_s:8.2f} s  wall {t.wall_s:8.2f} s  "
            f"{per_file[n]:6.2f} ms per file (cpu), {wall_ms:6.2f} ms (wall), "
            f"{statements[n]:.1f} DuckDB statements per file"
        )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak_mib:.0f} MiB")
    worst = max(per_file.values())
    growth = per_file[max(sizes)] / per_file[min(sizes)] if len(sizes) > 1 else 1.0
    met = worst <= GOAL_MS and growth <= 1.5
    print(
        f"cost per file, largest over smallest size: {growth:.2f}x; worst {worst:.2f} ms; "
        f"goal <= {GOAL_MS} ms per file and flat: {'met' if met else 'MISSED'}"
    )
    small, large = min(sizes), max(sizes)
    line = {
        # run_all.py's columns: "ours" is the time per file at the largest size, "floor" the
        # same at the smallest; the ratio is their quotient (flat: 1.0), the goal 1.5x.
        "row": "check, many run files (per file)",
        "ours": f"check, {large:,} run files, per file",
        "floor": f"check, {small:,} run files, per file",
        "id": "check-runs",
        "ours_cpu_s": round(per_file[large] / 1000, 5),
        "floor_cpu_s": round(per_file[small] / 1000, 5),
        "ours_wall_s": round(wall_per_file[large] / 1000, 5),
        "floor_wall_s": round(wall_per_file[small] / 1000, 5),
        "ratio": round(growth, 3),
        "clock": "cpu",
        "goal": 1.5,
        "met": met,
        "ms_per_file": {str(n): round(v, 3) for n, v in per_file.items()},
        "statements_per_file": {str(n): round(v, 2) for n, v in statements.items()},
        "ms_goal": GOAL_MS,
        "peak_rss_mib": round(peak_mib, 1),
    }
    print(RESULT_PREFIX + json.dumps(line, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
