"""GenAI-Perf ``analyze`` summary (``analyze_export_genai_perf.csv``): one sweep, one row per
load point.

``genai-perf analyze --sweep-type concurrency|request_rate|...`` profiles each point into its own
artifact folder and writes one summary CSV: a table ``Config Name, Concurrency`` (or ``Request
Rate``), ``ISL``, ``Num Dataset Entries`` and p99 latencies, average output token and request
throughput; a blank line; a GPU telemetry table keyed by ``Config Name`` and ``GPU``. Each row of
the first table is one run (its own id). The CSV names no tool version; the model only as the
prefix of each ``<model>_run_config_<n>`` config name, which is said on the run. Only p99s are
written; GenAI-Perf's inter-token latency is (e2e - TTFT) / (tokens - 1) per request, our TPOT.
The GPU table is skipped with a warning naming its line.
"""

from __future__ import annotations

import csv
import re
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._runs import build_run, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, item_id, with_tool
from ..models import Identity, LatencyMetric, LatencyStats, Load, ServingRun

_LOADS = ("Concurrency", "Request Rate")
_P99: dict[str, tuple[LatencyMetric, float]] = {
    "p99 time to first token (ms)": ("ttft", 1.0),
    "p99 inter token latency (ms)": ("tpot", 1.0),
    "p99 request latency (ms)": ("e2e", 1.0),
}
_CONFIG = re.compile(r"^(?P<model>.+)_run_config_\d+$")


def detect(probe: Probe) -> bool:
    """``Config Name`` then ``Concurrency``/``Request Rate`` and at least one ``p99`` column."""
    header = probe.first if probe.container == "csv" else []
    return (
        len(header) > 4
        and header[0] == "Config Name"
        and header[1] in _LOADS
        and any(cell.startswith("p99 ") for cell in header)
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per row of the summary's first table."""
    try:
        with probe.path.open(encoding="utf-8", newline="") as handle:
            rows = list(enumerate(csv.reader(handle), start=1))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{probe.name}: cannot read the CSV: {exc}") from exc
    header = [cell.strip() for cell in rows[0][1]]
    body: list[tuple[int, dict[str, str]]] = []
    file_warnings = ["the CSV does not record GenAI-Perf's version"]
    for number, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            rest = [n for n, r in rows if n > number and any(c.strip() for c in r)]
            if rest:
                file_warnings.append(
                    f"line {rest[0]}: the GPU telemetry table "
                    f"({len(rest) - 1} rows) is not read: no serving figure in it"
                )
            break
        body.append((number, dict(zip(header, (c.strip() for c in row), strict=False))))
    if not body:
        raise InputError(f"{probe.name}: line 2: a GenAI-Perf analyze summary without a row")
    unused = [c for c in header[4:] if c.lower() not in _P99 and c not in _THROUGHPUT]
    if unused:
        file_warnings.append(
            "column(s) this reader has no place for were dropped: " + ", ".join(unused)
        )
    runs = [_run(probe, record, index, number, cells, header[1]) for index, (number, cells)
            in enumerate(body)]  # fmt: skip
    return ParsedInput(
        format_id=FORMAT.id,
        file=with_tool(record, "genai-perf", None, file_warnings),
        runs=tuple(runs),
        warnings=tuple(file_warnings + [f"{r.run_id}: {w}" for r in runs for w in r.warnings]),
    )


_THROUGHPUT = {
    "Avg. Output Token Throughput (tokens/sec)": "output_token_throughput_per_s",
    "Request Throughput (requests/sec)": "request_throughput_per_s",
}


def _run(
    probe: Probe, record: FileRecord, index: int, number: int, cells: dict[str, str], load: str
) -> ServingRun:
    def num(column: str) -> float | None:
        return _number(probe, number, column, cells.get(column, ""))

    latency: dict[str, LatencyStats | None] = {}
    for column in cells:
        slot = _P99.get(column.lower())
        if slot is not None and (p99 := num(column)) is not None:
            latency[slot[0]] = tool_stats(slot[0], {"p99": p99}, scale=slot[1])
    config = cells.get("Config Name", "")
    match = _CONFIG.match(config)
    warnings = ["the summary holds p99 latencies and mean throughput only"]
    if match:
        warnings.append(
            f"the model is read from the config name {config!r} (GenAI-Perf names each point "
            "<model>_run_config_<n>)"
        )
    level = num(load)
    fields: dict[str, Any] = {k: num(c) for c, k in _THROUGHPUT.items()}
    columns = (("isl", "ISL"), ("num_dataset_entries", "Num Dataset Entries"))
    settings: dict[str, str | int | float | bool | None] = {
        key: value for key, column in columns if (value := num(column)) is not None
    }
    return build_run(
        reconcile(None, index, latency),
        warnings,
        run_id=item_id(record, index),
        index=index,
        format_id=FORMAT.id,
        tool="genai-perf",
        layout=f"analyze sweep over {load.lower()}",
        label=config or None,
        identity=Identity(model_name=match.group("model") if match else None, settings=settings),
        load=_load(load, level),
        **fields,
    )


def _load(kind: str, level: float | None) -> Load:
    if level is None or level <= 0:
        return Load()
    if kind == "Concurrency":
        return Load(kind="closed_loop", concurrency=int(level))
    return Load(kind="open_loop", request_rate_per_s=level)


def _number(probe: Probe, line: int, column: str, cell: str) -> float | None:
    """A cell as a number: GenAI-Perf writes thousands with commas (``"1,146.31"``)."""
    text = cell.replace(",", "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError as exc:
        raise InputError(f"{probe.name}: line {line}: {column}: not a number: {cell!r}") from exc
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise InputError(f"{probe.name}: line {line}: {column}: {cell} is not a measurement")
    return value


FORMAT = Format("genai-perf-analyze", "runs", "genai-perf", detect, parse)
