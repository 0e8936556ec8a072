"""guidellm ``benchmarks.csv`` (0.5 and later): one row per benchmark under a three-row header.

The header names each column by group (``Timings``, ``Request Latency``), name (``Successful
ms``) and unit or statistic (``Sec``, ``Mean``, ``Percentiles``); rows start where
``Benchmark/Type`` is ``generative_benchmark``. ``Percentiles`` holds eleven values: min, p0.1,
p1, p5, p10, p25, p75, p90, p95, p99, max (the median has its own column). The CSV keeps
aggregates only, so the tool's figures are kept and marked as the JSON reader marks them
(TPOT includes the first token and is weighted per token, as guidellm computes it). Warm-up and
cool-down were already left out by guidellm; their length is said on the run.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._runs import build_run, reconcile, tool_stats, unbounded_rate
from ..base import Format, ParsedInput, Probe, item_id, require_completed, with_tool
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

PERCENTILES = ("min", "p001", "p01", "p05", "p10", "p25", "p75", "p90", "p95", "p99", "max")
_MAIN = ("min", "p90", "p95", "p99", "max")
# slot -> (group, definition, weighting, scale to ms)
_LATENCY: dict[LatencyMetric, tuple[str, Definition, Weighting, float]] = {
    "ttft": ("Time to First Token", "ttft", "request", 1.0),
    "e2e": ("Request Latency", "e2e", "request", 1000.0),
    "tpot": ("Time per Output Token", "tpot_incl_first", "token", 1.0),
    # guidellm's ITL is (last - first token) / (tokens - 1): by value our TPOT (as in the JSON)
    "itl": ("Inter Token Latency", "tpot_excl_first", "token", 1.0),
}
_HEADER_GROUPS = {"Benchmark", "Timings", "Request Counts"}


def detect(probe: Probe) -> bool:
    """GuideLLM's ``benchmarks.csv``: a header with Benchmark, Timings and Request Counts."""
    header = probe.first if probe.container == "csv" else []
    return bool(header) and set(header) >= _HEADER_GROUPS


class _Row:
    """One benchmark row, its cells addressed by (group, name, stat)."""

    def __init__(
        self, probe: Probe, number: int, columns: list[tuple[str, str, str]], cells: list[str]
    ) -> None:
        self.probe = probe
        self.number = number
        self.cells = dict(zip(columns, cells, strict=False))
        self.warnings: list[str] = []
        """The cells that could not be used, each named by line and column."""

    def text(self, group: str, name: str, stat: str = "") -> str | None:
        """The cell's text, stripped; None when the column is absent or the cell empty."""
        cell = self.cells.get((group, name, stat))
        return None if cell is None else cell.strip() or None

    def num(self, group: str, name: str, stat: str = "") -> float | None:
        """The cell as a finite number (None when empty); anything else is an error."""
        cell = self.text(group, name, stat)
        if cell is None:
            return None
        try:
            value = float(cell)
        except ValueError as exc:
            raise self.error(f"{group} / {name} {stat}".strip(), f"not a number: {cell!r}") from exc
        if not math.isfinite(value):
            raise self.error(f"{group} / {name} {stat}".strip(), f"{cell} is not a measurement")
        return value

    def json(self, group: str, name: str, stat: str = "") -> Any:
        """The cell's JSON value; a cell that is not JSON is left out with a warning."""
        cell = self.text(group, name, stat)
        if cell is None:
            return None
        try:
            return json.loads(cell)
        except (json.JSONDecodeError, RecursionError):
            column = f"{group} / {name} {stat}".strip()
            self.warnings.append(f"line {self.number}: {column}: not JSON: left out")
            return None

    def error(self, column: str, message: str) -> InputError:
        """An ``InputError`` naming the file, this row's line and ``column``."""
        return InputError(f"{self.probe.name}: line {self.number}: {column}: {message}")


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per row of GuideLLM's CSV export."""
    rows = read_rows(probe)
    depth = next((i for i, (_, cells) in enumerate(rows) if "generative_benchmark" in cells), None)
    if depth is None or depth == 0:
        raise InputError(
            f"{probe.name}: a guidellm benchmarks.csv header without one generative_benchmark row"
        )
    headers = [cells for _, cells in rows[:depth]][:3] + [[]] * (3 - min(depth, 3))
    width = max(len(h) for h in headers)
    columns = [
        (_cell(headers[0], i), _cell(headers[1], i), _cell(headers[2], i)) for i in range(width)
    ]
    runs: list[ServingRun] = []
    version: str | None = None
    for index, (number, cells) in enumerate(
        r for r in rows[depth:] if any(c.strip() for c in r[1])
    ):
        row = _Row(probe, number, columns, cells)
        meta = row.json("Runtime Info", "Metadata")
        if isinstance(meta, dict) and isinstance(meta.get("guidellm_version"), str):
            version = meta["guidellm_version"]
        runs.append(_run(row, index, record, version))
    file_warnings = [] if version else ["the file does not record guidellm's version"]
    return parsed_runs(CSV_FORMAT.id, record, version, file_warnings, runs)


def parsed_runs(
    format_id: str,
    record: FileRecord,
    version: str | None,
    file_warnings: list[str],
    runs: list[ServingRun],
) -> ParsedInput:
    """A guidellm file's runs, its own warnings and each run's (prefixed with the run's id)."""
    warnings = file_warnings + [f"{r.run_id}: {w}" for r in runs for w in r.warnings]
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, "guidellm", version, file_warnings),
        runs=tuple(runs),
        warnings=tuple(warnings),
    )


def read_rows(probe: Probe) -> list[tuple[int, list[str]]]:
    """Every row of a guidellm CSV with the line it starts on (cells may hold whole JSON
    documents, so the field size limit is raised)."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        with probe.path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            rows: list[tuple[int, list[str]]] = []
            line = 1
            for cells in reader:
                rows.append((line, cells))
                line = reader.line_num + 1
            return rows
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{probe.name}: cannot read the CSV: {exc}") from exc


def _run(row: _Row, index: int, record: FileRecord, version: str | None) -> ServingRun:
    completed = _int(row.num("Request Counts", "Successful"))
    require_completed(
        row.probe.name, f"line {row.number}: Request Counts / Successful", completed or 0
    )
    warnings = [
        "a CSV keeps aggregates only: the tool's figures are kept (TPOT includes the first token, "
        "weighted per token)"
    ]
    warmup, cooldown = row.num("Timings", "Warmup", "Sec"), row.num("Timings", "Cooldown", "Sec")
    if warmup or cooldown:
        warnings.append(
            f"guidellm left {warmup or 0:g} s of warm-up and {cooldown or 0:g} s of cool-down "
            "out of these figures: those requests are not in the sample"
        )
    incomplete = _int(row.num("Request Counts", "Incomplete"))
    if incomplete:
        warnings.append(
            f"{incomplete} request(s) incomplete (in flight when the benchmark ended, or "
            "cancelled): neither completed nor failed"
        )
    latency: dict[str, LatencyStats | None] = {
        slot: _stats(row, slot, *spec) for slot, spec in _LATENCY.items()
    }
    settled = reconcile(None, 0, latency)
    backend = row.json("Run Info", "Backend")
    backend = backend if isinstance(backend, dict) else {}
    model = backend.get("model") if isinstance(backend.get("model"), str) else None
    return build_run(
        settled,
        [*warnings, *row.warnings],  # after every cell above was read
        run_id=item_id(record, index),
        index=index,
        format_id=CSV_FORMAT.id,
        tool="guidellm",
        tool_version=version,
        layout="benchmarks.csv (0.5+)",
        timestamp=row.text("Timings", "Start Time"),
        identity=Identity(model_name=model or None),
        backend=backend.get("kind") if isinstance(backend.get("kind"), str) else None,
        load=strategy_load(row.text("Benchmark", "Strategy")),
        requests_sent=_int(row.num("Request Counts", "Total")),
        requests_completed=completed,
        requests_failed=_int(row.num("Request Counts", "Errored")),
        duration_s=row.num("Timings", "Duration", "Sec"),
        request_throughput_per_s=row.num("Server Throughput", "Successful Requests/Sec", "Mean"),
        output_token_throughput_per_s=row.num(
            "Token Throughput", "Successful Output Tokens/Sec", "Mean"
        ),
        total_token_throughput_per_s=row.num(
            "Token Throughput", "Successful Total Tokens/Sec", "Mean"
        ),
        tokens=TokenStats(
            input_mean_tokens=row.num("Token Metrics", "Successful Input Tokens", "Mean"),
            output_mean_tokens=row.num("Token Metrics", "Successful Output Tokens", "Mean"),
        ),
    )


def _stats(
    row: _Row,
    slot: LatencyMetric,
    group: str,
    definition: Definition,
    weighting: Weighting,
    scale: float,
) -> LatencyStats | None:
    name = next((n for (g, n, _) in row.cells if g == group and n.startswith("Successful")), None)
    if name is None:
        return None
    values: dict[str, float | None] = {
        "mean": row.num(group, name, "Mean"),
        "p50": row.num(group, name, "Median"),
        "std": row.num(group, name, "Std Dev"),
    }
    listed = row.json(group, name, "Percentiles")
    numbers = (
        [float(v) if isinstance(v, int | float) else None for v in listed]
        if isinstance(listed, list) and len(listed) == len(PERCENTILES)
        else None
    )
    return listed_stats(slot, values, numbers, definition, weighting, scale)


def listed_stats(
    slot: LatencyMetric,
    values: dict[str, float | None],
    listed: list[float | None] | None,
    definition: Definition,
    weighting: Weighting,
    scale: float,
) -> LatencyStats | None:
    """guidellm's mean / median / std dev (``values``) and its list of ``PERCENTILES`` (min,
    p0.1 ... p99, max; None when unreadable) as the tool's stats for ``slot``."""
    extra: dict[str, float | None] = {}
    for key, number in zip(PERCENTILES, listed or [], strict=False):
        if key in _MAIN:
            values[key] = number
        else:
            extra[key] = number
    return tool_stats(
        slot, values, definition=definition, weighting=weighting, scale=scale, extra=extra
    )


def _cell(row: list[str], index: int) -> str:
    return row[index].strip() if index < len(row) else ""


def strategy_load(strategy: str | None) -> Load:
    """``synchronous``, ``concurrent@4``, ``throughput``, ``constant@2.0``, ``poisson@8.0``."""
    kind, _, value = (strategy or "").partition("@")
    try:
        number = float(value) if value else None
    except ValueError:
        number = None
    unbounded = unbounded_rate(value.strip() if value else None)
    if number is not None and not (math.isfinite(number) and number >= 1e-9):
        number = None  # not a rate or a concurrency: the load stays unknown
    if kind == "synchronous":
        return Load(kind="closed_loop", concurrency=1)
    if kind == "concurrent" and number and number >= 1:
        return Load(kind="closed_loop", concurrency=int(number))
    if kind == "throughput" or (kind in ("constant", "poisson") and unbounded):
        return Load(kind="offline")  # a sentinel rate (1e9, inf) is no rate limit
    if kind in ("constant", "poisson") and number:
        return Load(kind="open_loop", request_rate_per_s=number, arrival=kind)  # type: ignore[arg-type]
    return Load()


def _int(value: float | None) -> int | None:
    return None if value is None else int(round(value))


CSV_FORMAT = Format("guidellm-csv", "runs", "guidellm", detect, parse)
