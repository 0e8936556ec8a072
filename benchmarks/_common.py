"""What every benchmark shares: paired timing, medians, and the one-line result ``run_all`` reads.

Each measurement times evidencepack and its floor (or peer) in the same run, alternating which
goes first, ``--repeat`` times; the figures are medians of those pairs, so that a shared or
noisy machine slows both sides alike and the ratio survives. CPU time (user + system of this
process and its threads, or of a child process) is the primary clock; wall time is printed
beside it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# Generated inputs; EVIDENCEPACK_BENCH_CACHE puts them elsewhere (the tests use a temporary folder).
CACHE = Path(
    os.environ.get("EVIDENCEPACK_BENCH_CACHE") or Path(__file__).resolve().parent / ".cache"
)
SAMPLE_PACK = CACHE / "sample-pack"
"""The sample built unsigned by ``bench_build.py`` (``evidencepack build``), left for the rows
after it that read a pack (``bench_startup.py``'s diff)."""
SHARED = Path(os.environ.get("EVIDENCEPACK_SHARED_DATA") or REPO.parent / "shared" / "data")
RESULT_PREFIX = "RESULT "

# time this checkout's code, not whichever evidencepack happens to be installed
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Timing:
    cpu_s: float
    wall_s: float
    peak_mib: float = 0.0  # a child process's peak RSS (timed_process only)


def cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], Any]) -> Timing:
    cpu, wall = cpu_now(), time.perf_counter()
    fn()
    return Timing(cpu_s=cpu_now() - cpu, wall_s=time.perf_counter() - wall)


def timed_process(
    argv: Sequence[str], *, exit_codes: Sequence[int] = (0,), **kwargs: Any
) -> Timing:
    """CPU (user + system, from wait4) and wall time of one child process; it must exit with
    one of ``exit_codes``."""
    wall = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - wall
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in exit_codes:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err}")
    return Timing(
        cpu_s=usage.ru_utime + usage.ru_stime, wall_s=elapsed, peak_mib=usage.ru_maxrss / 1024
    )


@dataclass(frozen=True)
class Paired:
    ours: Timing
    floor: Timing
    runs: int

    @property
    def cpu_ratio(self) -> float:
        return self.ours.cpu_s / self.floor.cpu_s

    @property
    def wall_ratio(self) -> float:
        return self.ours.wall_s / self.floor.wall_s


def median(timings: list[Timing]) -> Timing:
    """The median CPU time, wall time and peak memory of several timings (each on its own)."""
    return Timing(
        cpu_s=statistics.median(t.cpu_s for t in timings),
        wall_s=statistics.median(t.wall_s for t in timings),
        peak_mib=statistics.median(t.peak_mib for t in timings),
    )


def paired(
    ours: Callable[[], Timing], floor: Callable[[], Timing], repeat: int, *, warm_up: bool = True
) -> Paired:
    """Medians of ``repeat`` pairs, the order alternating (ours first, then floor first, ...)."""
    if warm_up:  # page cache, imports, .pyc files: paid once, by neither side's figures
        ours()
        floor()
    mine: list[Timing] = []
    theirs: list[Timing] = []
    for i in range(repeat):
        if i % 2 == 0:
            mine.append(ours())
            theirs.append(floor())
        else:
            theirs.append(floor())
            mine.append(ours())
    return Paired(ours=median(mine), floor=median(theirs), runs=repeat)


def report(
    row: str,
    result: Paired,
    *,
    ours: str,
    floor: str,
    goal: float,
    clock: str = "cpu",
    extra: dict[str, Any] | None = None,
    row_id: str | None = None,
) -> None:
    """Print both figures and the ratio, then the ``RESULT`` line ``run_all.py`` collects.

    ``row_id`` is the row's stable key (``benchmarks/recorded.json`` keeps each row's ratio
    under it; default: ``row`` in lower case, spaces as dashes): the same in ``--quick`` and
    full runs, whatever sizes ``row`` names."""
    ratio = result.cpu_ratio if clock == "cpu" else result.wall_ratio
    width = max(len(ours), len(floor))
    print(f"medians of {result.runs} paired runs (order alternated):")
    for label, t in ((ours, result.ours), (floor, result.floor)):
        print(f"  {label:<{width}}  cpu {t.cpu_s:8.3f} s   wall {t.wall_s:8.3f} s")
    print(
        f"  ratio (cpu) {result.cpu_ratio:.2f}x   ratio (wall) {result.wall_ratio:.2f}x   "
        f"goal <= {goal}x by {clock} time: {'met' if ratio <= goal else 'MISSED'}"
    )
    line = {
        "id": row_id or row.lower().replace(" ", "-"),
        "row": row,
        "ours": ours,
        "floor": floor,
        "ours_cpu_s": round(result.ours.cpu_s, 4),
        "floor_cpu_s": round(result.floor.cpu_s, 4),
        "ours_wall_s": round(result.ours.wall_s, 4),
        "floor_wall_s": round(result.floor.wall_s, 4),
        "ratio": round(ratio, 3),
        "clock": clock,
        "goal": goal,
        "met": ratio <= goal,
        "runs": result.runs,
        **(extra or {}),
    }
    print(RESULT_PREFIX + json.dumps(line, sort_keys=True), flush=True)
