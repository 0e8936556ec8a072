"""guidellm ``benchmarks.csv`` of 0.2-0.4: one header row, then one row per benchmark.

Read from guidellm's own writer (vllm-project/guidellm, ``src/guidellm/benchmark/output.py``:
``GenerativeBenchmarksReport.save_csv`` in 0.2-0.3, ``GenerativeBenchmarkerCSV`` registered as
``csv`` in 0.3-0.4, e.g. commit 0d8c8bf7d1483f8ddd244fad50709780241cdc15). Each row holds:

- ``Type`` (``generative_benchmark``), ``Run Id``, ``Id``, ``Name`` (the strategy:
  ``synchronous``, ``concurrent@4``, ``throughput``, ``constant@2.00``, ``poisson@2.00``, the
  rate rounded to 0.01), ``Start Time`` and ``End Time`` (local time, no zone) and ``Duration``
  (s);
- per status (``Successful``, ``Errored``, ``Incomplete``, ``Total``): ``<Status> Requests`` and,
  per metric, ``<Status> <Metric> mean`` / ``median`` / ``std dev`` /
  ``[min, 0.1, 1, 5, 10, 25, 75, 90, 95, 99, max]`` (a Python list), where ``<Metric>`` is the
  field name spaced and capitalised: ``Request latency`` (s), ``Time to first token ms``,
  ``Time per output token ms`` and ``Inter token latency ms`` (both weighted per token),
  ``Requests per second``, ``Output tokens per second``, ``Tokens per second``,
  ``Prompt token count``, ``Output token count``;
- JSON columns: ``Args``, ``Worker``, ``Request Loader``, ``Extras`` (0.2-0.3: ``Args`` holds the
  strategy and the warm-up/cool-down settings, ``Worker`` the backend and model) or ``Profile``,
  ``Backend``, ``Generator Data`` (0.4).

The file keeps aggregates only and no guidellm version. It never has the 0.5+ CSV's
``Benchmark``/``Timings``/``Request Counts`` header groups, so the two detectors cannot both
accept a file.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._json import Node
from .._runs import build_run, reconcile
from ..base import Format, ParsedInput, Probe, item_id, require_completed
from ..models import (
    Definition,
    Identity,
    LatencyMetric,
    LatencyStats,
    Load,
    ServingRun,
    TokenStats,
    Weighting,
)
from .guidellm_csv import PERCENTILES, listed_stats, parsed_runs, read_rows, strategy_load
from .guidellm_layouts import load_of

_LIST = "[min, 0.1, 1, 5, 10, 25, 75, 90, 95, 99, max]"
# slot -> (metric as guidellm prints it, definition, weighting, scale to ms)
_LATENCY: dict[LatencyMetric, tuple[str, Definition, Weighting, float]] = {
    "ttft": ("Time to first token ms", "ttft", "request", 1.0),
    "e2e": ("Request latency", "e2e", "request", 1000.0),
    "tpot": ("Time per output token ms", "tpot_incl_first", "token", 1.0),
    # guidellm's ITL is (last - first token) / (tokens - 1): by value our TPOT (as in the JSON)
    "itl": ("Inter token latency ms", "tpot_excl_first", "token", 1.0),
}
_SIGNATURE = {"Successful Requests", "Successful Request latency mean"}
_NEWER = {"Benchmark", "Timings", "Request Counts"}


def detect(probe: Probe) -> bool:
    """guidellm 0.2-0.4 ``benchmarks.csv``: one header row naming ``Successful Requests`` and
    ``Successful Request latency mean``, without the 0.5+ header groups."""
    header = set(probe.first) if probe.container == "csv" else set()
    return header >= _SIGNATURE and not header & _NEWER


class _Row:
    """One benchmark row, its cells addressed by header name; what cannot be read is a warning."""

    def __init__(self, probe: Probe, number: int, header: list[str], cells: list[str]) -> None:
        self.probe = probe
        self.number = number
        self.header = header
        self.cells = dict(zip(header, cells, strict=False))
        self.warnings: list[str] = []

    def text(self, column: str) -> str | None:
        """The cell's text, stripped; None when the column is absent or the cell empty."""
        cell = self.cells.get(column)
        return None if cell is None else cell.strip() or None

    def num(self, column: str) -> float | None:
        """The number in ``column``; None with a warning when it is absent or not a number."""
        cell = self.text(column)
        if cell is None:
            if column in self.header:
                self.warn(column, "empty: left out")
            return None
        try:
            value = float(cell)
        except ValueError:
            self.warn(column, f"not a number ({cell[:40]!r}): left out")
            return None
        if not math.isfinite(value):
            self.warn(column, f"{cell} is not a measurement: left out")
            return None
        return value

    def numbers(self, column: str, count: int) -> list[float | None] | None:
        """The list of ``count`` numbers guidellm wrote as ``[a, b, ...]``; None (with a warning)
        when it cannot be read. A non-finite member is None."""
        cell = self.text(column)
        if cell is None:
            return None
        parts = cell.removeprefix("[").removesuffix("]").split(",")
        try:
            values = [float(part) for part in parts]
        except ValueError:
            self.warn(column, f"not a list of numbers ({cell[:40]!r}): left out")
            return None
        if len(values) != count:
            self.warn(column, f"{len(values)} values where guidellm writes {count}: left out")
            return None
        return [v if math.isfinite(v) else None for v in values]

    def json(self, column: str) -> dict[str, Any]:
        """The cell's JSON object; empty when absent, and with a warning when not JSON."""
        cell = self.text(column)
        if cell is None:
            return {}
        try:
            value = json.loads(cell)
        except (json.JSONDecodeError, RecursionError):
            self.warn(column, "not JSON: left out")
            return {}
        return value if isinstance(value, dict) else {}

    def warn(self, column: str, message: str) -> None:
        """Say that a cell was left out: the file, this row's line, the column."""
        self.warnings.append(f"{self.probe.name}: line {self.number}: column {column!r}: {message}")


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per benchmark row of a guidellm 0.2-0.4 CSV export."""
    rows = read_rows(probe)
    header_line, header = rows[0] if rows else (1, [])
    header = [cell.strip() for cell in header]
    file_warnings = ["the file does not record guidellm's version"]
    missing = sorted(_wanted() - set(header))
    if missing:
        file_warnings.append(
            f"{probe.name}: line {header_line}: the header has no column "
            f"{', '.join(repr(m) for m in missing)}: those figures are unknown for every row"
        )
    runs: list[ServingRun] = []
    for number, cells in rows[1:]:
        if not any(c.strip() for c in cells):
            continue
        row = _Row(probe, number, header, cells)
        run = _run(row, len(runs), record)
        if run is None:
            file_warnings += row.warnings
        else:
            runs.append(run)
    if not runs:
        last = rows[-1][0] if rows else 1
        raise InputError(
            f"{probe.name}: line {last}: no usable benchmark row in this guidellm 0.2-0.4 "
            "benchmarks.csv (each needs Type generative_benchmark and a Successful Requests count)"
        )
    return parsed_runs(FORMAT.id, record, None, file_warnings, runs)


def _wanted() -> set[str]:
    """The columns this reader uses."""
    base = {"Type", "Name", "Start Time", "Duration", "Total Requests", "Errored Requests"}
    stats = {
        f"Successful {metric} {stat}"
        for metric, *_ in _LATENCY.values()
        for stat in ("mean", "median", "std dev", _LIST)
    }
    means = {
        f"Successful {m} mean"
        for m in (
            "Requests per second",
            "Output tokens per second",
            "Tokens per second",
            "Prompt token count",
            "Output token count",
        )
    }
    return _SIGNATURE | base | stats | means


def _run(row: _Row, index: int, record: FileRecord) -> ServingRun | None:
    """The row's run; None (with the row's warnings) when it is not a usable benchmark."""
    kind = row.text("Type")
    if kind is not None and kind != "generative_benchmark":
        row.warn("Type", f"{kind!r} is not a generative benchmark: row skipped")
        return None
    successful = row.num("Successful Requests")
    if successful is None:
        row.warnings.append(
            f"{row.probe.name}: line {row.number}: no Successful Requests count: row skipped"
        )
        return None
    completed = int(round(successful))
    require_completed(row.probe.name, f"line {row.number}: Successful Requests", completed)
    warnings = [
        "a CSV keeps aggregates only: the tool's figures are kept (TPOT includes the first token, "
        "weighted per token)"
    ]
    args, worker = row.json("Args"), row.json("Worker")
    backend, profile = row.json("Backend"), row.json("Profile")
    excluded = _warmup_cooldown(args)
    if excluded:
        warnings.append(excluded)
    latency: dict[str, LatencyStats | None] = {
        slot: _stats(row, slot, *spec) for slot, spec in _LATENCY.items()
    }
    settled = reconcile(None, 0, latency)
    model = worker.get("backend_model") or backend.get("model")
    kind_of_backend = worker.get("backend_type") or backend.get("type_")
    fields: dict[str, Any] = {
        "run_id": item_id(record, index),
        "index": index,
        "format_id": FORMAT.id,
        "tool": "guidellm",
        "tool_version": None,
        "layout": _layout(row.header),
        "timestamp": row.text("Start Time"),
        "identity": Identity(model_name=model if isinstance(model, str) and model else None),
        "backend": kind_of_backend if isinstance(kind_of_backend, str) else None,
        "load": _load(row, args, profile),
        "requests_sent": _int(row.num("Total Requests")),
        "requests_completed": completed,
        "requests_failed": _int(row.num("Errored Requests")),
        "duration_s": row.num("Duration"),
        "request_throughput_per_s": row.num("Successful Requests per second mean"),
        "output_token_throughput_per_s": row.num("Successful Output tokens per second mean"),
        "total_token_throughput_per_s": row.num("Successful Tokens per second mean"),
        "tokens": TokenStats(
            input_mean_tokens=row.num("Successful Prompt token count mean"),
            output_mean_tokens=row.num("Successful Output token count mean"),
        ),
    }
    # Every cell is read by now: the row's warnings (absent or unreadable cells) join the run's.
    return build_run(settled, warnings + row.warnings, **fields)


def _stats(
    row: _Row,
    slot: LatencyMetric,
    metric: str,
    definition: Definition,
    weighting: Weighting,
    scale: float,
) -> LatencyStats | None:
    name = f"Successful {metric}"
    values: dict[str, float | None] = {
        "mean": row.num(f"{name} mean"),
        "p50": row.num(f"{name} median"),
        "std": row.num(f"{name} std dev"),
    }
    listed = row.numbers(f"{name} {_LIST}", len(PERCENTILES))
    return listed_stats(slot, values, listed, definition, weighting, scale)


def _load(row: _Row, args: dict[str, Any], profile: dict[str, Any]) -> Load:
    """The strategy in ``Args`` (0.2-0.3, exact rate) or else the ``Name`` (rate to 0.01); a
    0.4 throughput profile's ``max_concurrency`` caps it."""
    strategy = args.get("strategy")
    if isinstance(strategy, dict):
        load = load_of(Node(strategy, row.probe.name, f"line {row.number}: Args.strategy"))
        if load.kind is not None:
            return load
    load = strategy_load(row.text("Name"))
    cap = profile.get("max_concurrency")
    if load.kind == "offline" and isinstance(cap, int) and not isinstance(cap, bool) and cap > 0:
        return load.model_copy(update={"concurrency": cap})
    return load


def _warmup_cooldown(args: dict[str, Any]) -> str | None:
    """What guidellm 0.2-0.3 left out of the figures as warm-up and cool-down (``Args``)."""
    parts = []
    for phase in ("warmup", "cooldown"):
        number, duration = args.get(f"{phase}_number"), args.get(f"{phase}_duration")
        said = [
            text
            for value, text in ((number, f"{number} requests"), (duration, f"{duration} s"))
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        ]
        if said:
            parts.append(f"{' / '.join(said)} of {'warm-up' if phase == 'warmup' else 'cool-down'}")
    if not parts:
        return None
    return (
        f"guidellm left {' and '.join(parts)} out of these figures: those requests are not in "
        "the sample"
    )


def _layout(header: list[str]) -> str:
    if "Args" in header:
        return "benchmarks.csv (0.2-0.3, one header row)"
    if "Profile" in header:
        return "benchmarks.csv (0.4, one header row)"
    return "benchmarks.csv (0.2-0.4, one header row)"


def _int(value: float | None) -> int | None:
    return None if value is None else int(round(value))


FORMAT = Format("guidellm-csv-v0.4", "runs", "guidellm", detect, parse)
