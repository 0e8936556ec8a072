"""MLPerf Training results: MLLOG result files, time-to-train as the round's summarizer scores it.

A training results tree (mlcommons ``training_results_v5.1``) holds
``<submitter>/results/<system>/<benchmark>/result_<n>.txt`` (one MLLOG file per run, lines
``:::MLLOG {json}``), an optional ``scaling.json`` (``{"scaling_factor": f}``, set by the review
committee) and ``<submitter>/systems/<system>.json``.

The score (mlcommons/logging ``result_summarizer._compute_strong_score_standalone``): each
run's time to train is ``run_stop - run_start`` in minutes; a run that did not converge
(``run_stop`` status other than ``success``) is dropped; with at most one dropped, the runs are
sorted, the fastest is dropped and the slowest unless a non-converged one was already dropped,
the rest are averaged (olympic average), and the average is multiplied by the scaling factor.
More than one non-converged run: no score.

Lines are read as the summarizer's parser reads them: anything before ``:::MLLOG`` on a line is
ignored (srun rank prefixes such as ``0: :::MLLOG {...}``, with or without leading spaces). A run
file the summarizer cannot score (no ``run_start``, no ``run_stop``: a run killed before it
finished; a broken record) is dropped as it drops it, counted with the non-converged runs, and
kept as a ``DroppedRun`` whose reason names the line really missing.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from ..core._models import StrictModel
from ..errors import InputError
from ._files import read_json, read_text

MLLOG = ":::MLLOG"
MAX_DROPPED = 1  # the summarizer's max_dropped_scores (4 for unet3d only, not an LLM)

# The LLM benchmarks of MLPerf Training (training_policies ``training_rules.adoc``): the
# reference model and task, its dataset, the quality metric and target, and how many runs a
# submission makes (mlcommons/logging ``benchmark_meta`` for gpt3 and llama2_70b_lora; the
# Llama 3.1 counts are those the v5.1 submissions carry).
TRAINING_BENCHMARKS: dict[str, tuple[str, str, str, float, int]] = {
    "llama2_70b_lora": (
        "Llama 2 70B, LoRA fine-tuning",
        "SCROLLS GovReport",
        "eval loss",
        0.925,
        10,
    ),
    "llama31_405b": ("Llama 3.1 405B, pre-training", "C4", "log perplexity", 5.6, 3),
    "llama31_8b": ("Llama 3.1 8B, pre-training", "C4", "log perplexity", 3.3, 10),
    "gpt3": ("GPT-3 175B, pre-training", "C4", "log perplexity", 2.69, 3),
}


class TrainingRun(StrictModel):
    """One ``result_<n>.txt``: its time to train and whether the score uses it."""

    path: str = Field(description="the run's result_<n>.txt, as imported")
    run_start_ms: int = Field(description="run_start's time_ms, milliseconds since the epoch")
    run_stop_ms: int = Field(description="run_stop's time_ms, milliseconds since the epoch")
    minutes: float = Field(
        description="(run_stop - run_start) / 60000: the run's time to train, minutes"
    )
    status: str | None = Field(
        description="run_stop's metadata status (success when converged); None when not logged"
    )
    converged: bool = Field(description="true when run_stop's status is success")
    used: bool = Field(default=False, description="true when the score's olympic mean uses the run")
    last_eval: float | None = Field(
        default=None, description="the last eval_accuracy the run logged; None when it logged none"
    )
    target: float | None = Field(
        default=None, description="the target_accuracy the run logged; None when it logged none"
    )
    line: int = Field(description="the line of run_stop in the file")


class DroppedRun(StrictModel):
    """A run file the summarizer cannot score: dropped, and counted with the non-converged."""

    path: str = Field(description="the run's result_<n>.txt, as imported")
    reason: str = Field(
        description="why the run has no time to train, naming the file and line (file:line: ...)"
    )
    line: int = Field(
        description="the line the reason names (the last :::MLLOG record, or the broken one)"
    )


def _records(path: Path, where: str) -> list[tuple[int, str]]:
    """``(line number, JSON text)`` of every line holding ``:::MLLOG``, its prefix stripped."""
    found = []
    for number, raw in enumerate(read_text(path, lenient=True, name=where).splitlines(), 1):
        at = raw.find(MLLOG)
        if at >= 0:
            found.append((number, raw[at + len(MLLOG) :].strip()))
    return found


def read_run(path: Path, *, named: str | None = None) -> TrainingRun | DroppedRun:
    """One MLLOG result file: its run, or a ``DroppedRun`` when the summarizer cannot score it
    (no ``run_start`` or ``run_stop``, a broken record), whose reason names the real line."""
    where = named or str(path)
    start: tuple[int, int] | None = None
    stop: tuple[int, int, str | None] | None = None
    last_eval: float | None = None
    target: float | None = None
    records = _records(path, where)
    for number, text in records:
        try:
            record = json.loads(text)
            key, when = record["key"], int(record["time_ms"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            reason = f"{where}:{number}: not a complete :::MLLOG record (a parse error)"
            return DroppedRun(path=where, reason=reason, line=number)
        value, meta = record.get("value"), record.get("metadata")
        if key == "run_start" and start is None:
            start = (when, number)
        elif key == "run_stop" and stop is None:
            status = meta.get("status") if isinstance(meta, dict) else None
            stop = (when, number, str(status) if status is not None else None)
        elif key == "eval_accuracy" and isinstance(value, int | float):
            last_eval = float(value)
        elif key == "target_accuracy" and isinstance(value, int | float):
            target = float(value)
    last_line = records[-1][0] if records else 0
    if not records:
        return DroppedRun(path=where, reason=f"{where}: no :::MLLOG record", line=0)
    if start is None:
        reason = f"{where}:{last_line}: no run_start (the last :::MLLOG record is line {last_line})"
        return DroppedRun(path=where, reason=reason, line=last_line)
    if stop is None:
        reason = (
            f"{where}:{last_line}: no run_stop after run_start at line {start[1]}: the log ends "
            f"at its last :::MLLOG record, line {last_line} (the run was stopped before it "
            "finished, or the file is cut short)"
        )
        return DroppedRun(path=where, reason=reason, line=last_line)
    if stop[0] < start[0]:
        raise InputError(f"{where}:{stop[1]}: run_stop is before run_start (line {start[1]})")
    return TrainingRun(
        path=where,
        run_start_ms=start[0],
        run_stop_ms=stop[0],
        minutes=(stop[0] - start[0]) / 60_000,
        status=stop[2],
        converged=stop[2] == "success",
        last_eval=last_eval,
        target=target,
        line=stop[1],
    )


def read_scaling(path: Path | None, *, named: str | None = None) -> float:
    """``scaling.json``'s factor, 1.0 without the file; messages call the file ``named``
    (default: ``path``)."""
    if path is None:
        return 1.0
    where = named or str(path)
    data = read_json(path, name=where)
    factor = data.get("scaling_factor") if isinstance(data, dict) else None
    if isinstance(factor, bool) or not isinstance(factor, int | float) or factor <= 0:
        raise InputError(f"scaling_factor must be a positive number, not {factor!r}", file=where)
    return float(factor)


class TrainingScore(StrictModel):
    """The score and the runs it used (``minutes`` None: too many runs did not converge)."""

    minutes: float | None
    olympic_minutes: float | None
    scaling_factor: float
    dropped_not_converged: int
    runs: tuple[TrainingRun, ...]
    dropped: tuple[DroppedRun, ...] = ()


def score(
    runs: list[TrainingRun], scaling_factor: float, dropped_runs: list[DroppedRun] | None = None
) -> TrainingScore:
    """The summarizer's olympic average of the converged runs, times the scaling factor; a run
    it could not score (``dropped_runs``) counts as a non-converged one."""
    unscored = tuple(sorted(dropped_runs or (), key=lambda r: r.path))
    converged = sorted((r for r in runs if r.converged), key=lambda r: (r.minutes, r.path))
    dropped = len(runs) - len(converged) + len(unscored)
    used: list[TrainingRun] = []
    if dropped <= MAX_DROPPED:
        used = converged[MAX_DROPPED : len(converged) - (MAX_DROPPED - dropped)]
    olympic = sum(r.minutes for r in used) / len(used) if used else None
    chosen = {r.path for r in used}
    marked = tuple(
        r.model_copy(update={"used": r.path in chosen}) for r in sorted(runs, key=lambda r: r.path)
    )
    return TrainingScore(
        minutes=olympic * scaling_factor if olympic is not None else None,
        olympic_minutes=olympic,
        scaling_factor=scaling_factor,
        dropped_not_converged=dropped,
        runs=marked,
        dropped=unscored,
    )
