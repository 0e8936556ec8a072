"""Run ``measure``: one LoadGen worker process per load point, each into its own run folder.

A run folder is written under a temporary name and renamed when its worker has finished, so
a folder named ``RUNDIR`` is always a whole run (complete, or marked incomplete in its
``run.json`` with what was measured before it stopped). Ctrl-C stops the current worker cleanly
and the sweep with it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pydantic

from ..errors import CouldNotRun, InputError, InvalidRequest
from ..mlperf.loadgen_log import parse_detail
from ..mlperf.measure_record import MeasureRunRecord
from .options import MeasureOptions, PointConfig, check_options, points
from .prompts import load_prompts
from .record import RECORD_FILE
from .server_metrics import scrape
from .tokenizer_file import TOKENIZER_FILE, FileTokenizer, load_tokenizer_file

_STOP_WAIT_S = 30.0


@dataclass(frozen=True)
class PointResult:
    """What one load point gave: its folder, whether it completed, LoadGen's verdict."""

    name: str
    folder: Path
    complete: bool
    stop_reason: str | None
    validity: str | None
    invalid_reasons: tuple[str, ...]
    ok: int
    failed: int
    failures: dict[str, int]
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    completed_per_s: float | None
    figure_errors: tuple[str, ...] = ()
    """Figures LoadGen reported that cannot be (negative, not finite): said, never printed."""

    def line(self) -> str:
        """One line for the terminal."""
        if not self.complete:
            head = f"INCOMPLETE ({self.stop_reason})"
        else:
            head = str(self.validity)
            if self.invalid_reasons:
                head += " (" + "; ".join(self.invalid_reasons) + ")"
        parts = [f"{self.folder}: {head}", f"{self.ok} ok, {self.failed} failed"]
        if self.failures:
            parts.append(", ".join(f"{k} x{v}" for k, v in self.failures.items()))
        if self.ttft_p99_ms is not None:
            parts.append(f"TTFT p99 {self.ttft_p99_ms:.1f} ms")
        if self.tpot_p99_ms is not None:
            parts.append(f"TPOT p99 {self.tpot_p99_ms:.2f} ms")
        if self.completed_per_s is not None:
            parts.append(f"{self.completed_per_s:.3g} req/s")
        parts += [f"ERROR {error}" for error in self.figure_errors]
        return "; ".join(parts)


def measure(
    options: MeasureOptions,
    *,
    progress: Callable[[str], None] | None = None,
    on_result: Callable[[PointResult], None] | None = None,
) -> list[PointResult]:
    """Measure every load point of ``options``; stops at the first incomplete point.
    ``progress`` hears what is being done; ``on_result`` gets each point's result as it ends
    (without it, ``progress`` hears the result's line)."""
    check_options(options)
    if importlib.util.find_spec("mlperf_loadgen") is None:
        raise CouldNotRun(
            "measure drives MLPerf LoadGen, which is not installed: "
            "pip install 'evidencepack[measure]' (the mlcommons-loadgen wheel)"
        )
    load_prompts(options.prompts)  # located errors now, not in the worker
    if options.server_metrics is not None:
        scrape(options.server_metrics)  # an endpoint that cannot be read: said now
    # Read once, here: a file that is no tokenizer is said before LoadGen starts.
    tokenizer = None
    if options.tokenizer is not None:
        if progress is not None:
            size = options.tokenizer.stat().st_size if options.tokenizer.is_file() else 0
            large = " (a large file: this takes a while)" if size > 8 << 20 else ""
            progress(f"reading the tokenizer in {options.tokenizer}: {size:,} bytes{large}")
        tokenizer = load_tokenizer_file(options.tokenizer)
    planned = points(options)
    for _, config in planned:
        if Path(config.outdir).exists():
            raise InvalidRequest(f"{config.outdir} already exists: measure writes a new run folder")
        if partial_dir(Path(config.outdir)).exists():
            raise InvalidRequest(_partial_exists(partial_dir(Path(config.outdir))))
    results = []
    for name, config in planned:
        if progress is not None:
            progress(f"measuring {name} ({_describe(config)})")
        result = _run_point(name, config, tokenizer)
        results.append(result)
        if on_result is not None:
            on_result(result)
        elif progress is not None:
            progress(result.line())
        if not result.complete:
            break
    return results


def _describe(config: PointConfig) -> str:
    if config.scenario == "offline":
        return "Offline"
    return f"Server at {config.target_qps:g} queries/s"


def partial_dir(final: Path) -> Path:
    """Where a run folder is written before it is whole: ``.RUNDIR.partial`` beside it."""
    return final.parent / f".{final.name}.partial"


def _partial_exists(temp: Path) -> str:
    return (
        f"{temp} exists (an interrupted measure, or a folder of yours): measure deletes only "
        "what it created; remove or rename it, or choose another -o"
    )


def _run_point(name: str, config: PointConfig, tokenizer: FileTokenizer | None) -> PointResult:
    final = Path(config.outdir)
    temp = partial_dir(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        temp.mkdir()  # never an existing folder: only what this run created is ever deleted
    except FileExistsError as exc:
        raise InvalidRequest(_partial_exists(temp)) from exc
    if tokenizer is not None:
        # The worker counts with this very file, and leaves it in the folder if it counted.
        (temp / TOKENIZER_FILE).write_bytes(tokenizer.json_bytes)
        config = dataclasses.replace(config, tokenizer_source=tokenizer.source)
    config_file = temp / ".worker-config.json"
    log_file = temp / ".worker.log"
    config_file.write_text(
        dataclasses.replace(config, outdir=str(temp)).to_json(), encoding="utf-8"
    )
    command = [sys.executable, "-m", "evidencepack.measure.worker", str(config_file)]
    with log_file.open("wb") as log:
        # Its own session: a terminal's Ctrl-C reaches only us, and we stop the worker cleanly.
        # Its stdin is a pipe nobody writes to: when this process dies, even by SIGKILL, the
        # pipe closes and the worker, which watches it, stops (it never outlives `measure`).
        proc = subprocess.Popen(  # noqa: S603
            command, stdin=subprocess.PIPE, stdout=log, stderr=log, start_new_session=True
        )
        try:
            proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(_STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
    record_path = temp / RECORD_FILE
    if not record_path.exists():
        tail = log_file.read_text(encoding="utf-8", errors="replace")[-2000:]
        shutil.rmtree(temp, ignore_errors=True)
        raise CouldNotRun(
            f"the LoadGen worker for {name} stopped (exit {proc.returncode}) without a run "
            f"record:\n{tail}"
        )
    config_file.unlink()
    log_file.unlink()
    temp.rename(final)
    return read_result(name, final)


def read_result(name: str, folder: Path) -> PointResult:
    """The summary of a finished run folder (its record and, if complete, LoadGen's verdict)."""
    path = folder / RECORD_FILE
    try:
        record = MeasureRunRecord.model_validate_json(path.read_bytes())
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CouldNotRun(
            f"{path}: the run record is not valid at {where}: {first['msg']}"
        ) from exc
    counts = record.requests
    validity: str | None = None
    reasons: tuple[str, ...] = ()
    ttft = tpot = rate = None
    detail = folder / "mlperf_log_detail.txt"
    if record.complete and detail.exists():
        try:
            log = parse_detail(detail)
        except InputError as exc:
            raise CouldNotRun(f"{detail}: LoadGen's log is unreadable: {exc.message}") from exc
        validity, reasons = log.validity, tuple(log.invalid_reasons)
        ttft, tpot = log.ttft_ms.get("p99"), log.tpot_ms.get("p99")
        rate = log.samples_per_s
    errors = []
    for label, value in (("TTFT p99", ttft), ("TPOT p99", tpot), ("completed req/s", rate)):
        if value is not None and not (math.isfinite(value) and value >= 0):
            errors.append(f"{label}: LoadGen's log has {value!r}, an impossible figure (not shown)")
    ttft, tpot, rate = (
        None if v is None or not (math.isfinite(v) and v >= 0) else v for v in (ttft, tpot, rate)
    )
    return PointResult(
        name=name,
        folder=folder,
        complete=record.complete,
        stop_reason=record.stop_reason,
        validity=validity,
        invalid_reasons=reasons,
        ok=counts.ok,
        failed=counts.failed,
        failures=dict(counts.failures),
        ttft_p99_ms=ttft,
        tpot_p99_ms=tpot,
        completed_per_s=rate,
        figure_errors=tuple(errors),
    )
