"""``mlperf show training/...``: one MLPerf Training result, its runs and the reading checklist."""

from __future__ import annotations

from pathlib import Path

from ..store import Store
from .query import unknown_key
from .training_import import TrainingResult, load_training

_STATUS = {"pass": "pass", "fail": "FAIL", "skip": "not checked"}


def find_training(store: Store, key: str) -> TrainingResult:
    """The stored training result with this key; an unknown key names the nearest ones."""
    found = load_training(store, [key])
    if found:
        return found[0]
    raise unknown_key(store, "mlperf_training_results", key)


def describe_training(t: TrainingResult) -> str:
    """The text ``mlperf show`` prints for a training result."""
    ttt = "none" if t.time_to_train_min is None else f"{t.time_to_train_min:.6g} min"
    olympic = "-" if t.olympic_min is None else f"{t.olympic_min:.6g} min"
    fields = [
        ("round", t.round or "none (name it with --round, or a folder named v5.1)"),
        ("division", t.division or "-"),
        ("benchmark", t.benchmark),
        ("time to train", f"{ttt} = olympic average {olympic} x scaling {t.scaling_factor:g}"),
        (
            "runs used",
            f"{len(t.runs_used)} of {len(t.runs) + len(t.dropped_runs)} (fastest and slowest "
            "dropped; a dropped non-converged run counts as the slowest)",
        ),
        ("model", t.model or "-"),
        ("dataset", t.dataset or "-"),
        ("quality", f"{t.quality_metric} <= {t.quality_target:g}" if t.quality_target else "-"),
        ("system", t.system_name or t.system),
        (
            "accelerators",
            f"{t.accelerators_total if t.accelerators_total is not None else '?'} x "
            f"{t.accelerator or '?'} ({t.nodes or '?'} node(s))",
        ),
        ("stack", t.stack_raw or "-"),
    ]
    width = max(len(k) for k, _ in fields)
    lines = [t.key, "", "training result (a situational reference, not serving capacity):"]
    lines += [f"  {k:<{width}}  {v}" for k, v in fields] + ["", "runs:"]
    for run in t.runs:
        mark = "used" if run.used else ("not converged" if not run.converged else "dropped")
        last = "-" if run.last_eval is None else f"{run.last_eval:.6g}"
        lines.append(
            f"  {Path(run.path).name:<14} {run.minutes:>10.4f} min  {mark:<13} eval {last}"
        )
    if t.dropped_runs or any(not r.converged for r in t.runs):
        lines += ["", "dropped runs (counted as not converged, as the summarizer counts them):"]
        for run in t.runs:
            if not run.converged:
                lines.append(
                    f"  {Path(run.path).name:<14} run_stop status {run.status or 'not logged'} "
                    f"(line {run.line}), not success"
                )
        for dropped in t.dropped_runs:
            lines.append(f"  {Path(dropped.path).name:<14} {dropped.reason}")
    lines += ["", "checks:"]
    for row in t.checks:
        lines.append(f"  {_STATUS[row.status]:<12} {row.rule}")
        lines.append(f"      limit    {row.expected}")
        lines.append(f"      measured {row.actual}")
        if row.source:
            lines.append(f"      source   {row.source}")
    lines += ["", "files:"] + [
        f"  {s.role:<13} {s.path}  sha256 {s.sha256[:16]}" for s in t.sources
    ]
    return "\n".join(lines)
