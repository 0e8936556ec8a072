"""``inspect`` of a vLLM result of many appended runs beside a bare parse of the same lines.

Generates (once, into ``benchmarks/.cache/``) what ``vllm bench serve --append-result`` leaves
after N runs: one JSON result per line, the real dstack result of ``../shared/data`` with its
``date`` changed per line (50,000 lines, 46 MB; ``--quick``: 5,000). Then, paired and
alternated, each a child process: ``evidencepack inspect FILE`` (detection, every run read,
checked and described, the first 20 in full) against the floor, a Python process that
``json.loads`` every line. The ratio is by CPU time (what the guard keeps); the goal is
absolute: under 10 s for the 50,000 runs (issue 45), judged by CPU time (not wall: the build
machine is shared). With fewer runs (``--quick``) the figure for 50,000 is estimated from the
same pairs: ``inspect`` of a one-run file gives the fixed costs (start-up, imports, the store),
the N-run file the cost per run beyond them.

    python benchmarks/bench_inspect.py [--quick] [--runs 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys

from _common import CACHE, REPO, RESULT_PREFIX, SHARED, median, paired, timed_process

REAL = SHARED / "formats" / "vllm" / "public" / "dstack_pd_3p1d_conc128_gpt-oss-120b.json"
GOAL_S = 10.0
GOAL_RUNS = 50_000
FLOOR = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"


def generate(runs: int) -> str:
    """The appended file of ``runs`` lines (made once), its path."""
    path = CACHE / f"appended-{runs}.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        result = json.loads(REAL.read_text(encoding="utf-8"))
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            for n in range(runs):
                result["date"] = f"20250917-{n:06d}"
                out.write(json.dumps(result) + "\n")
        tmp.replace(path)
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 runs, 3 pairs")
    parser.add_argument("--runs", type=int, default=GOAL_RUNS, help="appended runs in the file")
    parser.add_argument("--repeat", type=int, default=3, help="paired runs (median kept)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.repeat = 5_000, 3
    path = generate(args.runs)
    python = sys.executable
    ours = [python, "-m", "evidencepack", "inspect", path]
    floor = [python, "-c", FLOOR, path]
    result = paired(
        lambda: timed_process(ours, cwd=REPO),
        lambda: timed_process(floor, cwd=REPO),
        args.repeat,
    )
    cpu_s, wall_s = result.ours.cpu_s, result.ours.wall_s
    if args.runs == GOAL_RUNS:
        estimate = cpu_s
    else:  # fixed costs from a one-run file, the rest per run
        one = generate(1)
        fixed = median(
            [
                timed_process([python, "-m", "evidencepack", "inspect", one], cwd=REPO)
                for _ in range(args.repeat)
            ]
        ).cpu_s
        estimate = fixed + (cpu_s - fixed) * (GOAL_RUNS - 1) / max(1, args.runs - 1)
    print(f"medians of {result.runs} paired runs (order alternated), {args.runs:,} runs:")
    print(f"  evidencepack inspect  cpu {cpu_s:8.3f} s  wall {wall_s:8.3f} s")
    print(
        f"  json.loads per line   cpu {result.floor.cpu_s:8.3f} s  "
        f"wall {result.floor.wall_s:8.3f} s"
    )
    print(f"  ratio (cpu) {result.cpu_ratio:.2f}x; 50,000 runs: {estimate:.2f} s cpu")
    line = {
        "id": "inspect-appended",
        "row": f"inspect, {args.runs:,} appended vLLM runs",
        "ours": "evidencepack inspect FILE (a process)",
        "floor": "python: json.loads every line",
        "clock": "cpu",
        "ours_cpu_s": round(cpu_s, 4),
        "floor_cpu_s": round(result.floor.cpu_s, 4),
        "ours_wall_s": round(wall_s, 4),
        "floor_wall_s": round(result.floor.wall_s, 4),
        "ratio": round(result.cpu_ratio, 3),
        "cpu_s_50000_runs": round(estimate, 3),
        "peak_rss_mib": round(result.ours.peak_mib, 1),
        "goal": GOAL_S,
        "goal_text": f"< {GOAL_S:.0f} s of CPU for {GOAL_RUNS:,} runs",
        "met": estimate < GOAL_S,
        "runs": result.runs,
    }
    print(RESULT_PREFIX + json.dumps(line, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
