"""Import MLPerf Training results into their own tables, apart from inference results.

``find_training(path)`` finds ``<submitter>/results/<system>/<benchmark>/result_*.txt``
folders; ``build_training`` reads one into a ``TrainingResult`` (time to train as the round
scores it, the runs used, the reading checklist: reference model, dataset, quality target,
system, stack) with check rows; ``load_training`` reads them back. Keys:
``training/<round>/<division>/<submitter>/<system>/<benchmark>``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..core._models import StrictModel
from ..errors import InputError
from ..store import Store
from .context import ImportContext
from .models import CheckRow, CheckStatus, SourceFile
from .query import load_records
from .training import (
    TRAINING_BENCHMARKS,
    DroppedRun,
    TrainingRun,
    read_run,
    read_scaling,
    score,
)

_RESULT = re.compile(r"^result_\d+\.txt$")
_ROUND = re.compile(r"(?:^|[_-])v?(\d+\.\d+)$")


@dataclass(frozen=True)
class TrainingFiles:
    """One training result's folder and files."""

    folder: Path
    submitter_dir: Path
    submitter: str
    system: str
    benchmark: str
    runs: tuple[Path, ...]
    scaling: Path | None
    system_json: Path | None
    round_dir: str | None


class TrainingResult(StrictModel):
    """A training result: its time to train, the runs it used, and what it was measured on."""

    key: str = Field(
        description=(
            "the result's stable key: training/<round>/<division>/<submitter>/<system>/<benchmark>"
        )
    )
    round: str | None = Field(
        description=(
            "the MLPerf Training round: --round, else the tree's folder name; None when unknown"
        )
    )
    division: str | None = Field(
        description="closed or open, from the system description; None when not stated"
    )
    submitter: str = Field(description="the submitting organisation (the submitter folder's name)")
    system: str = Field(description="the system's folder name (its id in the submission)")
    system_name: str | None = Field(
        description="the system's name from its description; None when not stated"
    )
    location: str = Field(
        description="the result's folder: <submitter>/results/<system>/<benchmark>"
    )
    benchmark: str = Field(description="the training benchmark (e.g. llama2_70b_lora)")
    model: str | None = Field(
        description=(
            "the benchmark's reference model and task (e.g. 'Llama 2 70B, LoRA fine-tuning')"
        )
    )
    dataset: str | None = Field(description="the benchmark's dataset (e.g. C4)")
    quality_metric: str | None = Field(
        description="the quality metric a run must reach (e.g. eval loss, log perplexity)"
    )
    quality_target: float | None = Field(
        description="the target a run's last evaluation must reach (at or below it)"
    )
    time_to_train_min: float | None = Field(
        description=(
            "the round's score: the olympic mean of the converged runs x the "
            "scaling factor, minutes; None when more than one run did not converge"
        )
    )
    olympic_min: float | None = Field(
        description=(
            "the olympic mean of the converged runs, minutes, before scaling; None "
            "when more than one run did not converge"
        )
    )
    scaling_factor: float = Field(
        description="the factor the review committee set in scaling.json (1.0 without the file)"
    )
    runs_required: int | None = Field(
        description="how many runs a submission of the benchmark makes"
    )
    runs: tuple[TrainingRun, ...] = Field(
        description=(
            "every run file with a time to train (run_start and run_stop), and whether the "
            "score uses it"
        )
    )
    dropped_runs: tuple[DroppedRun, ...] = Field(
        default=(),
        description=(
            "every run file the round's summarizer cannot score (no run_start or run_stop, a "
            "broken record), with why; each counts as a non-converged run"
        ),
    )
    accelerator: str | None = Field(
        description=(
            "the accelerator as the system description names it (several kinds "
            "joined by ' + '); None when not stated"
        )
    )
    accelerators_per_node: int | None = Field(
        description="accelerators per node, from the system description; None when not stated"
    )
    nodes: int | None = Field(
        description="number of nodes, from the system description; None when not stated"
    )
    accelerators_total: int | None = Field(
        description="nodes x accelerators per node; None when either is not stated"
    )
    framework: str | None = Field(
        description="the framework part of the system's software stack; None when it names none"
    )
    stack_raw: str = Field(
        description=(
            "the system's software stack as written (framework: ...; other_software_stack: ...)"
        )
    )
    checks: tuple[CheckRow, ...] = Field(
        description=(
            "each re-applied rule (runs, convergence, score, each used run's "
            "quality) with its verdict"
        )
    )
    sources: tuple[SourceFile, ...] = Field(
        description=(
            "every file the result was read from (run:<name>, system, scaling), with its digest"
        )
    )
    notes: tuple[str, ...] = Field(
        default=(), description="what could not be read from the system description"
    )

    @property
    def runs_used(self) -> tuple[TrainingRun, ...]:
        """The runs the olympic average took."""
        return tuple(r for r in self.runs if r.used)


def find_training(path: Path) -> Iterator[TrainingFiles]:
    """Every training result folder under ``path``, in sorted order."""
    for current, dirs, files in os.walk(path.resolve()):
        dirs.sort()
        here = Path(current)
        if len(here.parts) < 4 or here.parts[-3] != "results":
            continue
        # A benchmark folder: its run files are here, and nothing below it is another result
        # (an inference tree's scenario, performance and run folders are not walked), unless
        # its own folders may be benchmark folders (a system folder named "results").
        if here.parts[-2] != "results":
            dirs[:] = []
        runs = tuple(sorted(here / f for f in files if _RESULT.match(f)))
        if not runs:
            continue
        submitter_dir = here.parents[2]
        system = here.parent.name
        system_json = submitter_dir / "systems" / f"{system}.json"
        scaling = here / "scaling.json"
        yield TrainingFiles(
            folder=here,
            submitter_dir=submitter_dir,
            submitter=submitter_dir.name,
            system=system,
            benchmark=here.name,
            runs=runs,
            scaling=scaling if scaling.is_file() else None,
            system_json=system_json if system_json.is_file() else None,
            round_dir=next(
                (f"v{m.group(1)}" for p in submitter_dir.parents if (m := _ROUND.search(p.name))),
                None,
            ),
        )


class NotAnLlmTraining(InputError):
    """A training benchmark that is not an LLM's (resnet, rgat, ...): skipped."""


def build_training(
    files: TrainingFiles, *, round_: str | None, names: ImportContext
) -> TrainingResult:
    """One training result from its run files, scaling factor and system description."""
    if files.benchmark not in TRAINING_BENCHMARKS:
        raise NotAnLlmTraining(
            f"training benchmark {files.benchmark!r} is not an LLM benchmark "
            f"(read: {', '.join(TRAINING_BENCHMARKS)}): out of scope, skipped",
            file=names.name(files.folder),
        )
    model, dataset, metric, target, required = TRAINING_BENCHMARKS[files.benchmark]
    read = [read_run(names.private(p), named=names.name(p)) for p in files.runs]
    runs = [r for r in read if isinstance(r, TrainingRun)]
    unscored = [r for r in read if isinstance(r, DroppedRun)]
    scaling = read_scaling(
        names.private_or_none(files.scaling), named=names.name_or_none(files.scaling)
    )
    scored = score(runs, scaling, unscored)
    if files.system_json is None:
        raise InputError(
            "missing (every result needs its system description)",
            file=names.name(files.submitter_dir / "systems" / f"{files.system}.json"),
        )
    system = names.system(files.system_json)
    round_name = round_ or files.round_dir
    division = system.division
    key = "/".join(
        ("training", round_name or "no-round", division or "no-division", files.submitter)
        + (files.system, files.benchmark)
    )
    roles = [(f"run:{p.name}", p) for p in files.runs] + [("system", files.system_json)]
    if files.scaling is not None:
        roles.append(("scaling", files.scaling))
    return TrainingResult(
        key=key,
        round=round_name,
        division=division,
        submitter=files.submitter,
        system=files.system,
        system_name=system.system_name,
        location=f"{files.submitter}/results/{files.system}/{files.benchmark}",
        benchmark=files.benchmark,
        model=model,
        dataset=dataset,
        quality_metric=metric,
        quality_target=target,
        time_to_train_min=scored.minutes,
        olympic_min=scored.olympic_minutes,
        scaling_factor=scored.scaling_factor,
        runs_required=required,
        runs=scored.runs,
        dropped_runs=scored.dropped,
        accelerator=system.accelerator,
        accelerators_per_node=system.accelerators_per_node,
        nodes=system.nodes,
        accelerators_total=system.accelerators_total,
        framework=_framework(system.stack.raw),
        stack_raw=system.stack.raw,
        checks=_checks(scored.runs, scored.dropped, scored.minutes, required, metric, target),
        sources=tuple(names.source(role, path) for role, path in roles),
        notes=system.notes,
    )


def _framework(stack_raw: str) -> str | None:
    """The ``framework`` part of a system's stack text (``framework: ...; other_...``)."""
    first = stack_raw.split("; ")[0]
    return first.removeprefix("framework: ") if first.startswith("framework: ") else None


def _row(rule: str, expected: str, actual: str, ok: bool | None, source: str = "") -> CheckRow:
    status: CheckStatus = "skip" if ok is None else ("pass" if ok else "fail")
    return CheckRow(
        rule=rule, round=None, expected=expected, actual=actual, status=status, source=source
    )


def _checks(
    runs: tuple[TrainingRun, ...],
    unscored: tuple[DroppedRun, ...],
    minutes: float | None,
    required: int,
    metric: str,
    target: float,
) -> tuple[CheckRow, ...]:
    not_converged = sorted(
        [Path(r.path).name for r in runs if not r.converged] + [Path(r.path).name for r in unscored]
    )
    files = len(runs) + len(unscored)
    rows = [
        _row("training.runs", f">= {required} result files", str(files), files >= required),
        _row(
            "training.converged",
            "at most 1 run dropped (not converged: run_stop status other than success, or no "
            "run_stop)",
            f"{len(not_converged)} dropped"
            + (": " + ", ".join(not_converged) if not_converged else ""),
            len(not_converged) <= 1,
        ),
        _row(
            "training.score",
            "an olympic average over the converged runs",
            "none (too many runs did not converge)" if minutes is None else f"{minutes:.6g} min",
            minutes is not None,
        ),
    ]
    for run in runs:
        if not run.used:
            continue
        reached = run.last_eval is not None and run.last_eval <= target
        rows.append(
            _row(
                "training.quality",
                f"{metric} <= {target:g} (the quality target)",
                "no eval_accuracy" if run.last_eval is None else f"{run.last_eval:.6g}",
                reached,
                f"{run.path}:{run.line}",
            )
        )
    return tuple(rows)


def load_training(store: Store, keys: list[str] | None = None) -> list[TrainingResult]:
    """Training results by key (all when ``keys`` is None), ordered by key."""
    return load_records(store, "mlperf_training_results", TrainingResult, keys)


def training_row(result: TrainingResult, fingerprint: str) -> dict[str, object]:
    """The ``mlperf_training_results`` row of a result."""
    return {
        "key": result.key,
        "round": result.round,
        "division": result.division,
        "submitter": result.submitter,
        "system": result.system,
        "benchmark": result.benchmark,
        "model": result.model,
        "dataset": result.dataset,
        "quality_metric": result.quality_metric,
        "quality_target": result.quality_target,
        "time_to_train_min": result.time_to_train_min,
        "olympic_min": result.olympic_min,
        "scaling_factor": result.scaling_factor,
        "runs_total": len(result.runs) + len(result.dropped_runs),
        "runs_used": len(result.runs_used),
        "accelerator": result.accelerator,
        "accelerators_total": result.accelerators_total,
        "checks_ok": all(c.status != "fail" for c in result.checks),
        "sources_sha256": fingerprint,
        "record": result.model_dump(mode="json"),
    }
