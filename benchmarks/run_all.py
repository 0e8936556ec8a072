"""Run every benchmark (each a child process) and print the table: our figure, its floor, ratio.

    python benchmarks/run_all.py [--quick] [--only verify,startup] [--json FILE]
    python benchmarks/run_all.py --quick --guard     # CI: fail on a regression (see below)
    python benchmarks/run_all.py --quick --record    # write today's ratios as the recorded ones

**Rows are found by convention**: every ``bench_*.py`` beside this file is a script of the table
unless ``NOT_ROWS`` names it; ``ORDER`` sets the order of the known ones and any other comes
after them, alphabetically (a new ``bench_check_runs.py`` is picked up without an edit here).
A script prints one ``RESULT {json}`` line per row (``_common.report``); it may print several
(``bench_startup.py``: ``--help``, ``check`` start-up, ``diff``). Every row's figures are medians
of paired runs, evidencepack and its floor alternated in the same run.

``--quick`` runs each script on small inputs with few pairs (under two minutes in all on the
2-core build machine); it is what the regression guard runs. The full run takes several minutes
and generates its inputs into ``benchmarks/.cache/`` (git-ignored) the first time.

**The guard** (``--guard``) compares each row's ratio to its floor with the ratio recorded for
the same mode in ``benchmarks/recorded.json`` and fails when one is worse by more than the margin
recorded there (``margin``: 0.5, i.e. 1.5x the recorded ratio). Both sides of a ratio are
measured in the same run, so a slower or busier machine moves both; a row past the margin is run
once more and its better ratio kept before the guard fails. A row with no recorded figure is
reported, not failed. ``--record`` rewrites the figures of the rows run (``--only``: the others
keep theirs), in the mode run (review the diff).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded.json"
ORDER = (
    # the known rows' scripts, in the table's order; any other bench_*.py follows
    "bench_verify.py",
    "bench_verify_memory.py",
    "bench_check_mlperf.py",
    "bench_check_runs.py",
    "bench_mlperf_import.py",
    "bench_build.py",  # before bench_startup.py: it leaves the sample pack that diff compares
    "bench_startup.py",
    "bench_requests.py",
)
NOT_ROWS = {
    # benchmarks that are not a row of the table, run on their own
    "bench_measure_client.py": "the measure client's latency and rate beside a raw socket",
    "bench_warehouse.py": "the warehouse: time and size per 1,000 packs, query latency, Spark",
}
RESULT_PREFIX = "RESULT "
GUARDED = ("ratio", "memory_ratio")  # what the guard compares with the recorded figures


def scripts() -> dict[str, str]:
    """Every row script, in the table's order: short name (``verify``) -> file name."""
    found = sorted(p.name for p in HERE.glob("bench_*.py") if p.name not in NOT_ROWS)
    ranked = sorted(found, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    return {name.removeprefix("bench_").removesuffix(".py"): name for name in ranked}


class RowFailed(Exception):
    """A benchmark script failed or printed no result: its row is missing from the table."""


def run(script: str, quick: bool) -> list[dict[str, Any]]:
    """Run one script; every row it printed, with the script's name and its seconds."""
    argv = [sys.executable, str(HERE / script), *(["--quick"] if quick else [])]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        raise RowFailed(f"{script} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    rows = [
        json.loads(x[len(RESULT_PREFIX) :])
        for x in done.stdout.splitlines()
        if x.startswith(RESULT_PREFIX)
    ]
    if not rows:
        raise RowFailed(f"{script} printed no {RESULT_PREFIX.strip()} line")
    seconds = time.perf_counter() - began
    for row in rows:
        row.setdefault("id", str(row["row"]).lower().replace(" ", "-"))
        row["script"] = script
        row["seconds"] = round(seconds, 1)
    return rows


def _figure(r: dict[str, Any], side: str) -> str:
    if r["clock"] == "memory":
        return f"{float(r[f'{side}_mib']):.1f} MiB peak"
    clock = r["clock"]
    other = "wall" if clock == "cpu" else "cpu"
    main, aside = float(r[f"{side}_{clock}_s"]), float(r[f"{side}_{other}_s"])
    return f"{main:.3f} s {clock} ({other} {aside:.3f})"


def table(results: list[dict[str, Any]]) -> str:
    """The Markdown table: each row's figure, its floor's, their ratio, the goal, met or not."""
    rows = [
        "| row | now | floor | ratio | goal | met |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        now = f"{r['ours']}: {_figure(r, 'ours')}"
        floor = f"{r['floor']}: {_figure(r, 'floor')}"
        ratio = f"{float(r['ratio']):.2f}x"
        goal = r.get("goal_text") or f"<= {r['goal']}x"
        if "memory_ratio" in r:
            ratio += f", memory {float(r['memory_ratio']):.2f}x"
            goal += f", memory <= {r['memory_goal']}x"
        met = "yes" if r["met"] else "no"
        rows.append(f"| {r['row']} | {now} | {floor} | {ratio} | {goal} | {met} |")
    return "\n".join(rows)


def regressions(
    results: list[dict[str, Any]], recorded: dict[str, Any], mode: str
) -> tuple[list[str], list[str]]:
    """The rows whose ratio is past the recorded one by more than the margin (messages), and the
    rows with no recorded figure."""
    margin = float(recorded["margin"])
    figures: dict[str, dict[str, float]] = recorded.get(mode, {})
    worse: list[str] = []
    unrecorded: list[str] = []
    for r in results:
        known = figures.get(r["id"])
        if known is None:
            unrecorded.append(r["id"])
            continue
        worse.extend(
            f"{r['id']}: {key} {float(r[key]):.2f}x, recorded {known[key]:.2f}x "
            f"(limit {known[key] * (1 + margin):.2f}x)"
            for key in GUARDED
            if key in r and key in known and float(r[key]) > known[key] * (1 + margin)
        )
    return worse, unrecorded


def record(results: list[dict[str, Any]], mode: str) -> None:
    """Write each row's guarded ratios as the recorded figures of ``mode``; the rows not run
    (``--only``) keep theirs."""
    recorded = json.loads(RECORDED.read_text()) if RECORDED.exists() else {"margin": 0.5}
    recorded.setdefault(mode, {}).update(
        {r["id"]: {key: round(float(r[key]), 3) for key in GUARDED if key in r} for r in results}
    )
    RECORDED.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    print(f"run_all: recorded the {mode} ratios of {len(results)} row(s) in {RECORDED}")


def _run_chosen(chosen: dict[str, str], quick: bool) -> tuple[list[dict[str, Any]], list[str]]:
    results: list[dict[str, Any]] = []
    failed: list[str] = []
    for name, script in chosen.items():
        print(f"== {name} ({script})", flush=True)
        try:
            results.extend(run(script, quick))
        except RowFailed as exc:  # report it, and still run the other rows
            print(f"run_all: {exc}", file=sys.stderr, flush=True)
            failed.append(name)
    return results, failed


def _guard(results: list[dict[str, Any]], quick: bool, mode: str) -> list[str]:
    """Compare with the recorded figures; re-run each script with a row past the margin once,
    keep each row's better ratio, and return what is still past it."""
    recorded = json.loads(RECORDED.read_text())
    worse, unrecorded = regressions(results, recorded, mode)
    if unrecorded:
        print(f"run_all: no recorded {mode} figure for {', '.join(unrecorded)} (not guarded)")
    if not worse:
        return []
    print("run_all: past the margin, running again once: " + "; ".join(worse), flush=True)
    again = {r["script"] for r in results if any(w.startswith(f"{r['id']}:") for w in worse)}
    for script in sorted(again):
        try:
            retried = {r["id"]: r for r in run(script, quick)}
        except RowFailed as exc:
            print(f"run_all: {exc}", file=sys.stderr, flush=True)
            continue
        for i, r in enumerate(results):
            better = retried.get(r["id"])
            if better is not None and float(better["ratio"]) < float(r["ratio"]):
                results[i] = better
    worse, _ = regressions(results, recorded, mode)
    return worse


def main() -> int:
    """Run the chosen rows, print the table, write the JSON; with --guard, fail on a regression."""
    every = scripts()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, few pairs (CI)")
    parser.add_argument("--only", help=f"comma-separated scripts among {', '.join(every)}")
    parser.add_argument("--json", type=Path, help="write the rows here (default: in the cache)")
    parser.add_argument("--guard", action="store_true", help="fail past the recorded ratios")
    parser.add_argument("--record", action="store_true", help="write the ratios as recorded")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(every)
    unknown = [name for name in names if name not in every]
    if unknown:
        parser.error(f"unknown script(s) {unknown}; choose among {', '.join(every)}")
    mode = "quick" if args.quick else "full"
    began = time.perf_counter()
    results, failed = _run_chosen({n: every[n] for n in names}, args.quick)
    worse = _guard(results, args.quick, mode) if args.guard else []
    print()
    print("Medians of paired runs (evidencepack and its floor alternated in the same run);")
    print(
        "ratios by CPU time unless a row says otherwise."
        + (" QUICK: small inputs, few pairs: a guard, not a measurement." * args.quick)
    )
    print(table(results))
    print(f"({time.perf_counter() - began:.0f} s)")
    out = args.json
    if out is None:
        sys.path.insert(0, str(HERE))
        from _common import CACHE

        CACHE.mkdir(parents=True, exist_ok=True)
        out = CACHE / f"results-{mode}.json"
    out.write_text(json.dumps({"mode": mode, "rows": results}, indent=2, sort_keys=True) + "\n")
    print(f"run_all: wrote {out}")
    if args.record and not failed:
        record(results, mode)
    if failed:
        print(f"run_all: failed: {', '.join(failed)} (no row in the table)", file=sys.stderr)
        return 1
    if worse:
        print("run_all: REGRESSION past the recorded ratios:", file=sys.stderr)
        for line in worse:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
