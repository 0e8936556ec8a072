"""guidellm benchmarks.csv (0.8.1, three header rows) and the 0.5+ JSON's warm-up/cool-down
requests, read against the cells and requests the tests read themselves."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import write_json

CSV_PATH = "formats/guidellm/generated/benchmarks.csv"
JSON_PATH = "formats/guidellm/generated/benchmarks.json"


def _table(path: Path) -> list[dict[tuple[str, str, str], str]]:
    rows = list(csv.reader(path.open(newline="")))
    columns = list(zip(rows[0], rows[1], rows[2], strict=True))
    return [dict(zip(columns, row, strict=True)) for row in rows[3:] if any(row)]


def test_every_benchmark_row_is_a_run(shared_data: Path) -> None:
    csv.field_size_limit(1 << 30)
    path = shared_data / CSV_PATH
    table = _table(path)
    parsed = read_input(path)
    assert parsed.format_id == "guidellm-csv"
    assert parsed.file.tool == "guidellm"
    meta = json.loads(table[0][("Runtime Info", "Metadata", "")])
    assert parsed.file.tool_version == meta["guidellm_version"]
    assert len(parsed.runs) == len(table) > 1
    for run, row in zip(parsed.runs, table, strict=True):
        assert run.requests_completed == int(row[("Request Counts", "Successful", "")])
        assert run.requests_failed == int(row[("Request Counts", "Errored", "")])
        assert run.duration_s == float(row[("Timings", "Duration", "Sec")])
        strategy, _, streams = row[("Benchmark", "Strategy", "")].partition("@")
        assert strategy == "concurrent"
        assert (run.load.kind, run.load.concurrency) == ("closed_loop", int(streams))
        backend = json.loads(row[("Run Info", "Backend", "")])
        assert run.identity.model_name == backend["model"]
        rps = row[("Server Throughput", "Successful Requests/Sec", "Mean")]
        assert run.request_throughput_per_s == float(rps)
        ttft = row[("Time to First Token", "Successful ms", "Percentiles")]
        listed = json.loads(ttft)  # min, p0.1, p1, p5, p10, p25, p75, p90, p95, p99, max
        assert run.ttft is not None
        assert run.ttft.mean_ms == float(row[("Time to First Token", "Successful ms", "Mean")])
        assert run.ttft.p50_ms == float(row[("Time to First Token", "Successful ms", "Median")])
        assert (run.ttft.p90_ms, run.ttft.p99_ms) == (listed[7], listed[9])
        e2e = row[("Request Latency", "Successful Sec", "Mean")]
        assert run.e2e is not None
        assert run.e2e.mean_ms == pytest.approx(float(e2e) * 1000)
        assert run.tpot is not None
        assert (run.tpot.definition, run.tpot.canonical) == ("tpot_incl_first", False)


def test_csv_and_json_of_one_run_agree(shared_data: Path) -> None:
    """guidellm wrote both files from one sweep: the tool's figures must be the same."""
    from_csv = read_input(shared_data / CSV_PATH).runs
    doc = json.loads((shared_data / JSON_PATH).read_text())
    for run, bench in zip(from_csv, doc["benchmarks"], strict=True):
        metrics = bench["metrics"]
        pct = metrics["time_to_first_token_ms"]["successful"]["percentiles"]
        assert run.ttft is not None
        assert run.ttft.p99_ms == pct["p99"]
        assert run.request_throughput_per_s == metrics["requests_per_second"]["successful"]["mean"]
        assert run.requests_completed == metrics["request_totals"]["successful"]


def _edited(
    shared_data: Path,
    tmp_path: Path,
    column: tuple[str, str, str],
    row: int,
    value: str,
    *,
    name: Path | None = None,
) -> Path:
    """The real CSV (or the CSV ``name``) with one cell of one benchmark row (0 = the first)
    replaced."""
    rows = list(csv.reader((name or shared_data / CSV_PATH).open(newline="")))
    rows[3 + row][list(zip(rows[0], rows[1], rows[2], strict=True)).index(column)] = value
    path = tmp_path / "benchmarks.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_warmup_and_cooldown_seconds_are_said(shared_data: Path, tmp_path: Path) -> None:
    path = _edited(shared_data, tmp_path, ("Timings", "Warmup", "Sec"), 0, "5.0")
    first = read_input(path).runs[0]
    assert any("5 s of warm-up" in w and "not in the sample" in w for w in first.warnings)


def test_a_non_number_is_located(shared_data: Path, tmp_path: Path) -> None:
    path = _edited(shared_data, tmp_path, ("Timings", "Duration", "Sec"), 1, "fast")
    with pytest.raises(InputError, match=r"line 5: Timings / Duration Sec: not a number"):
        read_input(path)


def test_a_cell_that_is_not_json_is_a_warning_not_a_silent_gap(
    shared_data: Path, tmp_path: Path
) -> None:
    """The backend cell names the model; broken, the model is unknown and the run says why."""
    column = ("Run Info", "Backend", "")
    cell = _table(shared_data / CSV_PATH)[0][column]
    assert json.loads(cell)["model"]
    path = _edited(shared_data, tmp_path, column, 0, cell[: len(cell) // 2])
    first = read_input(path).runs[0]
    assert first.identity.model_name is None
    assert any("line 4: Run Info / Backend: not JSON: left out" in w for w in first.warnings)


def test_incomplete_requests_are_a_finding_not_dropped(shared_data: Path, tmp_path: Path) -> None:
    """guidellm counts requests still in flight at the end as "Incomplete": neither completed
    nor failed; the analysis counts them as failed, and the run says so (WARN)."""
    first = _edited(shared_data, tmp_path, ("Request Counts", "Incomplete", ""), 0, "2")
    path = _edited(shared_data, tmp_path, ("Request Counts", "Total", ""), 0, "26", name=first)
    run = read_input(path).runs[0]
    assert (run.requests_sent, run.requests_completed, run.requests_failed) == (26, 24, 0)
    found = [f for f in run.findings if f.kind == "unaccounted-requests"]
    assert [(f.severity, f.detail) for f in found] == [
        (
            "WARN",
            "2 of the 26 requests sent neither completed nor failed (in flight when the run "
            "ended, or cancelled): they count as failed, 2 of 26",
        )
    ]
    assert read_input(shared_data / CSV_PATH).runs[0].findings == ()


def _shift(request: dict[str, Any], seconds: float) -> dict[str, Any]:
    moved = copy.deepcopy(request)
    for key in ("request_start_time", "request_end_time"):
        moved[key] += seconds
    timings = moved["info"]["timings"]
    for key, value in timings.items():
        if isinstance(value, float) and value > 1e9:
            timings[key] = value + seconds
    moved["request_id"] += f"-shifted{seconds}"
    return moved


def test_warmup_and_cooldown_requests_are_excluded_not_sampled(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared_data / JSON_PATH).read_text())
    bench = doc["benchmarks"][0]
    measured = bench["requests"]["successful"]
    window = bench["scheduler_metrics"]
    assert all(
        window["measure_start_time"] <= r["request_start_time"] <= window["measure_end_time"]
        for r in measured
    )
    span = window["measure_end_time"] - window["measure_start_time"]
    warmup = [_shift(r, -span - 1) for r in measured[:3]]
    cooldown = [_shift(r, span + 1) for r in measured[-2:]]
    bench["requests"]["successful"] = warmup + measured + cooldown
    bench["warmup_duration"], bench["cooldown_duration"] = 1.0, 1.0
    parsed = read_input(write_json(tmp_path / "benchmarks.json", doc))
    run = parsed.runs[0]
    assert run.per_request_rows == len(measured)
    assert any("3 warm-up and 2 cool-down" in w and "not part of the sample" in w
               for w in run.warnings)  # fmt: skip
    assert not any("a sample" in w and "tool's aggregates are kept" in w for w in run.warnings)
    ttft = [r["time_to_first_token_ms"] for r in measured]
    assert run.ttft is not None
    assert run.ttft.source == "per_request"
    assert run.ttft.mean_ms == pytest.approx(np.mean(ttft))
    assert run.ttft.p99_ms == pytest.approx(np.percentile(ttft, 99))
    assert any("warm-up" in w for w in parsed.warnings)


def test_extra_rows_inside_the_window_are_still_a_sample(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / JSON_PATH).read_text())
    bench = doc["benchmarks"][0]
    bench["metrics"]["request_totals"]["successful"] += 5  # the file keeps fewer than measured
    parsed = read_input(write_json(tmp_path / "benchmarks.json", doc))
    run = parsed.runs[0]
    assert run.per_request_rows == 0
    assert any("a sample" in w for w in run.warnings)
