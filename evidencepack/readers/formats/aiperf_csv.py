"""AIPerf and GenAI-Perf summary CSV: a table of distributions, a blank line, a table of values.

AIPerf lists its percentiles rising (``p1``, ``p5``, .., ``p99``; 0.13 adds a ``sum`` column,
0.1.x has none); GenAI-Perf lists them falling (``p99``, ``p95``, .., ``p25``). The CSV names no
tool, version or model, so the run says so. AIPerf's ``Minimum Request Timestamp (ns)`` row,
where present, dates the run (so its per-request file is found as the same run).

Only the rows read are checked (a number, finite, not negative, located by line): the others
(``OSL Mismatch Diff %`` is negative by nature, AIPerf 0.10 adds rows every release) are left
as the tool wrote them. Goodput (``Goodput``, ``Good Request Count``) is read with the run's
SLOs unknown: the CSV does not state them (the JSON export's ``input_config.slos`` does).
"""

from __future__ import annotations

import csv

from ...core.provenance import FileRecord
from ...errors import InputError
from .._runs import build_run, goodput_fields, one_run, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id, require_completed
from ..models import LatencyMetric, LatencyStats, TokenStats
from .aiperf import STAT_SOURCES, TO_MS, as_int

_CSV_SLOTS: dict[str, LatencyMetric] = {
    "time to first token": "ttft",
    "inter token latency": "tpot",
    "inter chunk latency": "itl",
    "request latency": "e2e",
}


def detect_csv(probe: Probe) -> bool:
    """AIPerf's ``profile_export_aiperf.csv``: a ``Metric`` column with ``avg`` and ``p99``."""
    header = probe.first if probe.container == "csv" else []
    return bool(header) and header[0] == "Metric" and "avg" in header and "p99" in header


def parse_csv(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from AIPerf's CSV export; rows it cannot use become warnings."""
    rows: list[tuple[int, list[str]]] = []
    try:
        with probe.path.open(encoding="utf-8", newline="") as handle:
            rows = [(n, row) for n, row in enumerate(csv.reader(handle), start=1)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{probe.name}: cannot read the CSV: {exc}") from exc
    header = [cell.strip() for cell in rows[0][1]]
    tool = _tool(header)
    raw_stats: dict[str, tuple[int, list[str], list[str]]] = {}
    raw_values: dict[str, tuple[int, str, str]] = {}
    skipped: list[str] = []
    for start, table_header, body in _tables(rows):
        if table_header[0] == "Metric" and "avg" in table_header:
            for number, row in body:
                raw_stats[row[0].strip().lower()] = (number, table_header, row)
        elif table_header[:2] == ["Metric", "Value"]:
            for number, row in body:
                if len(row) >= 2:
                    name = row[0].strip()
                    raw_values[name.lower()] = (number, name, row[1])
        else:
            # AIPerf 0.8+ appends GPU telemetry (GPU_Index columns); later ones may add more.
            columns = ",".join(cell.strip() for cell in table_header[:4])
            skipped.append(
                f"line {start}: a table this reader does not use ({columns}...; "
                f"{len(body)} rows) was skipped"
            )
    # Only the rows read are checked: a row this reader has no use for may hold anything.
    stats = {
        name: (number, _csv_cells(probe, number, header, row))
        for name, (number, header, row) in raw_stats.items()
        if _split_unit(name)[0] in _READ_STATS
    }
    values = {
        name: _csv_number(probe, number, label, cell)
        for name, (number, label, cell) in raw_values.items()
        if _split_unit(name)[0] in _READ_VALUES
    }
    latency: dict[str, LatencyStats | None] = {}
    for name, (number, cells) in stats.items():
        base, unit = _split_unit(name)
        slot = _CSV_SLOTS.get(base)
        if slot is None:
            continue
        if unit not in TO_MS:
            raise InputError(f"{probe.name}: line {number}: unknown time unit {unit!r}")
        mapped = {k: cells.get(src) for k, src in STAT_SOURCES.items()}
        latency[slot] = tool_stats(slot, mapped, scale=TO_MS[unit])
    completed = _lookup(values, "request count")
    if completed is not None:
        require_completed(probe.name, "'Request Count' row", int(completed))
    settled = reconcile(None, 0, latency)
    warnings = [
        "the CSV does not name the tool, its version or the model; "
        f"read as {tool} from its column layout",
        *skipped,
    ]
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=CSV_FORMAT.id,
        tool=tool,
        timestamp=iso_from_epoch((_lookup(values, "minimum request timestamp") or 0) / 1e9),
        requests_completed=as_int(completed),
        requests_failed=as_int(_lookup(values, "error request count")),
        duration_s=_lookup(values, "benchmark duration"),
        request_throughput_per_s=_lookup(values, "request throughput"),
        output_token_throughput_per_s=_lookup(values, "output token throughput"),
        total_token_throughput_per_s=_lookup(values, "total token throughput"),
        **goodput_fields(
            _lookup(values, "goodput"),
            good_requests=_lookup(values, "good request count"),
            judged_requests=completed if _lookup(values, "goodput") is not None else None,
        ),
        tokens=TokenStats(
            input_mean_tokens=_mean_of(stats, "input sequence length"),
            output_mean_tokens=_mean_of(stats, "output sequence length"),
            input_total_tokens=as_int(_lookup(values, "total input sequence length")),
            output_total_tokens=as_int(_lookup(values, "total output sequence length")),
        ),
    )
    return one_run(CSV_FORMAT.id, record, run, file_warnings=warnings)


_READ_STATS = frozenset((*_CSV_SLOTS, "input sequence length", "output sequence length"))
_READ_VALUES = frozenset(
    (
        "request count",
        "error request count",
        "minimum request timestamp",
        "benchmark duration",
        "request throughput",
        "output token throughput",
        "total token throughput",
        "goodput",
        "good request count",
        "total input sequence length",
        "total output sequence length",
    )
)
"""The rows this reader takes (by name without the unit); every other row is left unread."""


def _tool(header: list[str]) -> str:
    """AIPerf or GenAI-Perf from the first header: a ``sum`` column or rising percentiles."""
    order = [int(c[1:]) for c in header if c[:1] == "p" and c[1:].isdigit()]
    rising = len(order) > 1 and order == sorted(order)
    return "aiperf" if "sum" in header or rising else "genai-perf"


def _tables(
    rows: list[tuple[int, list[str]]],
) -> list[tuple[int, list[str], list[tuple[int, list[str]]]]]:
    """Split the rows into tables: each starts at the file's top, after a blank line, at a
    ``Metric`` header, or at a row as wide as no row of the table before it (a table written
    without a blank line); its first row is its header. Returns (header line, header, body)."""
    tables: list[tuple[int, list[str], list[tuple[int, list[str]]]]] = []
    starting = True
    for number, row in rows:
        cells = [cell.strip() for cell in row]
        if not any(cells):
            starting = True
            continue
        if starting or cells[0] == "Metric" or len(cells) != len(tables[-1][1]):
            tables.append((number, cells, []))
            starting = False
            continue
        tables[-1][2].append((number, row))
    return tables


def _split_unit(name: str) -> tuple[str, str | None]:
    if name.endswith(")") and "(" in name:
        base, _, unit = name[:-1].rpartition("(")
        return base.strip(), unit.strip()
    return name.strip(), None


def _lookup(values: dict[str, float], base: str) -> float | None:
    for name, value in values.items():
        if _split_unit(name)[0] == base:
            return value
    return None


def _mean_of(stats: dict[str, tuple[int, dict[str, float | None]]], base: str) -> float | None:
    for name, (_, cells) in stats.items():
        if _split_unit(name)[0] == base:
            return cells.get("avg")
    return None


def _csv_cells(
    probe: Probe, number: int, header: list[str], row: list[str]
) -> dict[str, float | None]:
    cells: dict[str, float | None] = {}
    for column, cell in zip(header[1:], row[1:], strict=False):
        cells[column] = _csv_number(probe, number, column, cell) if cell.strip() else None
    return cells


def _csv_number(probe: Probe, number: int, column: str, cell: str) -> float:
    """A cell as a number; GenAI-Perf writes thousands with commas (``"1,146.31"``)."""
    try:
        value = float(cell.replace(",", ""))
    except ValueError as exc:
        raise InputError(f"{probe.name}: line {number}: {column}: not a number: {cell!r}") from exc
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{probe.name}: line {number}: {column}: {cell} is not a measurement")
    if value < 0:
        raise InputError(f"{probe.name}: line {number}: {column}: negative value {cell}")
    return value


CSV_FORMAT = Format("aiperf-csv", "runs", "aiperf", detect_csv, parse_csv)
