"""Find MLPerf results under a path: a results tree, one submission, or a LoadGen output folder.

Layouts (mlcommons/inference submission checker ``constants.py``), with ``S`` =
``<division>/<submitter>`` and ``R`` = ``<system>/<benchmark>/<Scenario>``::

    S/systems/<system>.json
    S/results/R/performance/run_1/mlperf_log_{detail,summary}.txt
    S/results/R/accuracy/accuracy.txt
    v4.x, v5.x: S/measurements/R/<system>[_<Scenario>].json
                S/compliance/R/TEST06/verify_accuracy.txt
    v6.x:       S/results/R/measurements.json, S/results/R/TEST06/verify_accuracy.txt
    power-measured: S/results/R/performance/{run_1/spl.txt, ranging/, power/}
    v6.1+, the endpoint tool: S/results/R/performance/result_summary.json (or
                results_summary.json, run_1/metrics_final_snapshot.json, the legacy
                run_1/results.json), S/results/R/accuracy/accuracy_results.json (no LoadGen logs)

Scenario folders may be lowercase. The round comes from a folder named ``v5.1`` or
``inference_results_v5.1`` above the division, when there is one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .accuracy import has_precision
from .benchmarks import resolve_scenario
from .endpoint_result import ACCURACY_RESULTS, ENDPOINT_OUTPUTS
from .loadgen_log import DETAIL_NAME, SUMMARY_NAME
from .rounds import KNOWN_ROUNDS

DIVISIONS = ("closed", "open", "network")
_ROUND_DIR = re.compile(r"(?:^|[_-])(v?\d+\.\d+)$")


@dataclass(frozen=True)
class ResultFiles:
    """Where one result's files are (None where a file is absent)."""

    results_dir: Path
    in_tree: bool
    submitter_dir: Path | None
    division: str | None
    submitter: str | None
    system: str | None
    benchmark_dir: str
    scenario_dir: str
    round_dir: str | None
    location: str
    detail: Path | None
    summary: Path | None
    system_json: Path | None = None
    measurements: Path | None = None
    user_conf: Path | None = None
    accuracy: Path | None = None
    test06: Path | None = None
    endpoint_summary: Path | None = None
    endpoint_accuracy: Path | None = None
    spl: Path | None = None


def find_results(path: Path) -> Iterator[ResultFiles]:
    """Every result under ``path`` in a stable order (sorted paths)."""
    path = path.resolve()
    if _has_logs(path):
        if path.parent.name == "performance" and _is_results_dir(path.parent.parent):
            yield _tree_result(path.parent.parent)
        else:
            yield _loadgen_result(path)
        return
    if _is_results_dir(path):
        yield _tree_result(path)
        return
    for current, dirs, files in os.walk(path):
        dirs.sort()
        here = Path(current)
        if _is_results_dir(here):
            dirs[:] = []  # nothing below a scenario folder is another result
            yield _tree_result(here)
            continue
        if "results" in dirs:
            # a submitter folder: only results/ holds results (compliance/ holds TEST runs)
            dirs[:] = ["results"]
            continue
        if (
            # a LoadGen folder of one's own, beside other ones, outside any results tree
            (DETAIL_NAME in files or SUMMARY_NAME in files)
            and here.parent.name != "performance"
            and "results" not in here.relative_to(path).parts
        ):
            dirs[:] = []
            yield _loadgen_result(here)


def _has_logs(folder: Path) -> bool:
    return (folder / DETAIL_NAME).is_file() or (folder / SUMMARY_NAME).is_file()


def _is_results_dir(folder: Path) -> bool:
    parts = folder.parts
    return len(parts) >= 5 and parts[-4] == "results" and resolve_scenario(parts[-1]) is not None


def _loadgen_result(folder: Path) -> ResultFiles:
    return ResultFiles(
        results_dir=folder,
        in_tree=False,
        submitter_dir=None,
        division=None,
        submitter=None,
        system=None,
        benchmark_dir=folder.name,
        scenario_dir="",
        round_dir=None,
        location=folder.name,
        detail=_file(folder / DETAIL_NAME),
        summary=_file(folder / SUMMARY_NAME),
    )


def _tree_result(results_dir: Path) -> ResultFiles:
    scenario_dir = results_dir.name
    benchmark_dir = results_dir.parent.name
    system = results_dir.parent.parent.name
    submitter_dir = results_dir.parents[3]
    folder = submitter_dir.parent.name.lower()
    division = folder if folder in DIVISIONS else None
    base = submitter_dir.parent.parent if division else submitter_dir.parent
    run = _run_dir(results_dir / "performance")
    measurements_dir = _child(submitter_dir / "measurements" / system / benchmark_dir, scenario_dir)
    compliance_dir = _child(submitter_dir / "compliance" / system / benchmark_dir, scenario_dir)
    return ResultFiles(
        results_dir=results_dir,
        in_tree=True,
        submitter_dir=submitter_dir,
        division=division,
        submitter=submitter_dir.name,
        system=system,
        benchmark_dir=benchmark_dir,
        scenario_dir=scenario_dir,
        round_dir=_round_of(submitter_dir),
        location=results_dir.relative_to(base).as_posix(),
        detail=_file(run / DETAIL_NAME) if run else None,
        summary=_file(run / SUMMARY_NAME) if run else None,
        system_json=_file(submitter_dir / "systems" / f"{system}.json"),
        measurements=_file(results_dir / "measurements.json")
        or _measurements(measurements_dir, system, scenario_dir),
        user_conf=_file(results_dir / "user.conf")
        or (_file(measurements_dir / "user.conf") if measurements_dir else None),
        accuracy=_file(results_dir / "accuracy" / "accuracy.txt"),
        endpoint_summary=next(
            (f for name in ENDPOINT_OUTPUTS if (f := _file(results_dir / name)) is not None), None
        ),
        spl=_file(run / "spl.txt") if run else None,
        endpoint_accuracy=_file(results_dir / "accuracy" / ACCURACY_RESULTS),
        test06=_file(results_dir / "TEST06" / "verify_accuracy.txt")
        or (_file(compliance_dir / "TEST06" / "verify_accuracy.txt") if compliance_dir else None),
    )


def _run_dir(performance: Path) -> Path | None:
    """``performance/run_1`` (what the checker reads), else the first ``run_*`` there is."""
    if (performance / "run_1").is_dir():
        return performance / "run_1"
    if not performance.is_dir():
        return None
    runs = sorted(p for p in performance.iterdir() if p.is_dir() and p.name.startswith("run_"))
    return runs[0] if runs else None


def _child(parent: Path, name: str) -> Path | None:
    """``parent/name``, matching the scenario folder's case loosely (``Offline`` vs ``offline``)."""
    if (parent / name).is_dir():
        return parent / name
    if not parent.is_dir():
        return None
    for candidate in sorted(parent.iterdir()):
        if candidate.is_dir() and candidate.name.lower() == name.lower():
            return candidate
    return None


def _measurements(folder: Path | None, system: str, scenario_dir: str) -> Path | None:
    if folder is None:
        return None
    for name in (f"{system}_{scenario_dir}.json", f"{system}.json"):
        if (folder / name).is_file():
            return folder / name
    for candidate in sorted(folder.glob("*.json")):
        if has_precision(candidate):
            return candidate
    return None


def _round_of(submitter_dir: Path) -> str | None:
    for folder in submitter_dir.parents:
        match = _ROUND_DIR.search(folder.name)
        if match:
            name = match.group(1)
            name = name if name.startswith("v") else f"v{name}"
            return name if name in KNOWN_ROUNDS else None
    return None


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None
