"""guidellm 0.2-0.4 ``benchmarks.csv`` (one header row), read against the cells the tests wrote.

The files are built here the way guidellm's own writer builds them, read in
vllm-project/guidellm ``src/guidellm/benchmark/output.py`` (``GenerativeBenchmarkerCSV``, commit
0d8c8bf7d1483f8ddd244fad50709780241cdc15 for 0.4; ``GenerativeBenchmarksReport.save_csv`` and the
0.3 ``GenerativeBenchmarkerCSV`` with ``Args``/``Worker``/``Request Loader``/``Extras``), with the
metric fields of ``src/guidellm/benchmark/benchmark.py`` (0.3, commit
47ce29248e510dd6852133a7e833efed30a96a16) and ``src/guidellm/benchmark/objects.py`` (0.4, commit
414febe687508116770af906eb3cbbb6c706d510): the description columns, then per status
``<Status> Requests`` and per metric mean / median / std dev / the eleven-value list, then the
JSON columns; ``csv.writer`` writes floats with ``str`` and the list as Python's ``str(list)``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

STATUSES = ("successful", "errored", "incomplete", "total")  # StatusBreakdown field order
METRICS_03 = (
    "requests_per_second",
    "request_concurrency",
    "request_latency",
    "prompt_token_count",
    "output_token_count",
    "time_to_first_token_ms",
    "time_per_output_token_ms",
    "inter_token_latency_ms",
    "output_tokens_per_second",
    "tokens_per_second",
)
METRICS_04 = (*METRICS_03[:5], "total_token_count", *METRICS_03[5:])
LIST = "[min, 0.1, 1, 5, 10, 25, 75, 90, 95, 99, max]"


def _dist(base: float) -> dict[str, Any]:
    """A distribution summary: mean, median, std_dev and min, p0.1 ... p99, max."""
    listed = [round(base * f, 6) for f in (0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.1, 1.3, 1.4, 1.7, 2.0)]
    return {"mean": base * 1.02, "median": base, "std_dev": base / 10, "listed": listed}


def _benchmark(strategy: str, successful: int, scale: float) -> dict[str, Any]:
    metrics = {m: {s: _dist(scale * (i + 1)) for s in STATUSES} for i, m in enumerate(METRICS_04)}
    return {
        "name": strategy,
        "totals": {
            "successful": successful,
            "errored": 2,
            "incomplete": 1,
            "total": successful + 3,
        },
        "metrics": metrics,
        "duration": 30.5,
    }


def _write(
    path: Path, benchmarks: list[dict[str, Any]], version: str, extras: list[dict[str, Any]]
) -> Path:
    """A benchmarks.csv as guidellm ``version`` ("0.3" or "0.4") writes it."""
    metrics = METRICS_03 if version == "0.3" else METRICS_04
    header: list[str] = ["Type", "Run Id", "Id", "Name", "Start Time", "End Time", "Duration"]
    for status in STATUSES:
        header.append(f"{status.capitalize()} Requests")
        for metric in metrics:
            shown = f"{status.capitalize()} {metric.replace('_', ' ').capitalize()}"
            header += [f"{shown} mean", f"{shown} median", f"{shown} std dev", f"{shown} {LIST}"]
    extra_names = (
        ["Args", "Worker", "Request Loader", "Extras"]
        if version == "0.3"
        else ["Profile", "Backend", "Generator Data"]
    )
    header += extra_names
    rows: list[list[Any]] = []
    for bench, extra in zip(benchmarks, extras, strict=True):
        row: list[Any] = ["generative_benchmark", "run-1", "id-1", bench["name"]]
        row += ["2025-06-01 10:00:00", "2025-06-01 10:00:30", bench["duration"]]
        for status in STATUSES:
            row.append(bench["totals"][status])
            for metric in metrics:
                dist = bench["metrics"][metric][status]
                row += [dist["mean"], dist["median"], dist["std_dev"], dist["listed"]]
        row += [json.dumps(extra.get(name, {})) for name in extra_names]
        rows.append(row)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _extras_03(strategy: dict[str, Any], **args: Any) -> dict[str, Any]:
    worker = {"type_": "generative_requests_worker", "backend_type": "openai_http"}
    worker["backend_model"] = "meta-llama/Llama-3.1-8B-Instruct"
    return {"Args": {"strategy": strategy, **args}, "Worker": worker, "Extras": {}}


def _cell(path: Path, row: int, column: str) -> str:
    table = list(csv.reader(path.open(newline="")))
    return table[1 + row][table[0].index(column)]


def test_a_03_sweep_is_read_from_its_columns(tmp_path: Path) -> None:
    benches = [_benchmark("synchronous", 40, 1.0), _benchmark("constant@2.50", 80, 2.0)]
    extras = [
        _extras_03({"type_": "synchronous"}, warmup_number=5, cooldown_duration=2.0),
        _extras_03({"type_": "constant", "rate": 2.5}),
    ]
    path = _write(tmp_path / "benchmarks.csv", benches, "0.3", extras)
    parsed = read_input(path)
    assert parsed.format_id == "guidellm-csv-v0.4"
    assert (parsed.file.tool, parsed.file.tool_version) == ("guidellm", None)
    assert len(parsed.runs) == 2
    first, second = parsed.runs
    assert first.layout == "benchmarks.csv (0.2-0.3, one header row)"
    assert first.requests_completed == int(_cell(path, 0, "Successful Requests"))
    assert first.requests_failed == int(_cell(path, 0, "Errored Requests"))
    assert first.requests_sent == int(_cell(path, 0, "Total Requests"))
    assert first.duration_s == float(_cell(path, 0, "Duration"))
    assert first.identity.model_name == "meta-llama/Llama-3.1-8B-Instruct"
    assert first.backend == "openai_http"
    assert (first.load.kind, first.load.concurrency) == ("closed_loop", 1)
    assert (second.load.kind, second.load.request_rate_per_s) == ("open_loop", 2.5)
    assert second.load.arrival == "constant"
    ttft = "Successful Time to first token ms"
    listed = json.loads(_cell(path, 1, f"{ttft} {LIST}"))
    assert second.ttft is not None
    assert second.ttft.mean_ms == float(_cell(path, 1, f"{ttft} mean"))
    assert second.ttft.p50_ms == float(_cell(path, 1, f"{ttft} median"))
    assert (second.ttft.min_ms, second.ttft.p90_ms, second.ttft.p99_ms) == (
        listed[0],
        listed[7],
        listed[9],
    )
    assert second.ttft.extra_percentiles_ms["p25"] == listed[5]
    e2e = float(_cell(path, 1, "Successful Request latency mean"))
    assert second.e2e is not None
    assert second.e2e.mean_ms == pytest.approx(e2e * 1000)  # seconds in the file
    assert second.tpot is not None
    assert (second.tpot.definition, second.tpot.weighting) == ("tpot_incl_first", "token")
    rps = float(_cell(path, 1, "Successful Requests per second mean"))
    assert second.request_throughput_per_s == rps
    prompt = float(_cell(path, 1, "Successful Prompt token count mean"))
    assert second.tokens.input_mean_tokens == prompt
    assert any("5 requests of warm-up" in w and "2.0 s of cool-down" in w for w in first.warnings)
    assert not any("warm-up" in w for w in second.warnings)


def test_a_04_file_is_read_with_its_backend_and_profile(tmp_path: Path) -> None:
    benches = [_benchmark("concurrent@8", 64, 1.5), _benchmark("throughput", 200, 3.0)]
    backend = {"type_": "openai_http", "model": "Qwen/Qwen3-8B", "target": "http://x"}
    extras = [
        {"Profile": {"type_": "concurrent", "streams": [8]}, "Backend": backend},
        {"Profile": {"type_": "throughput", "max_concurrency": 128}, "Backend": backend},
    ]
    path = _write(tmp_path / "benchmarks.csv", benches, "0.4", extras)
    runs = read_input(path).runs
    assert [r.layout for r in runs] == ["benchmarks.csv (0.4, one header row)"] * 2
    assert [r.identity.model_name for r in runs] == ["Qwen/Qwen3-8B"] * 2
    assert (runs[0].load.kind, runs[0].load.concurrency) == ("closed_loop", 8)
    assert (runs[1].load.kind, runs[1].load.concurrency) == ("offline", 128)
    assert runs[1].requests_completed == 200
    itl = float(_cell(path, 1, "Successful Inter token latency ms mean"))
    assert runs[1].itl is not None
    assert runs[1].itl.mean_ms == itl


def test_the_real_05_file_is_not_taken_by_the_old_reader(shared_data: Path) -> None:
    from evidencepack.readers.detect import probe_file
    from evidencepack.readers.formats import guidellm_csv, guidellm_csv_v04

    path = shared_data / "formats/guidellm/generated/benchmarks.csv"
    probe = probe_file(path)
    assert guidellm_csv.detect(probe)
    assert not guidellm_csv_v04.detect(probe)
    assert read_input(path).format_id == "guidellm-csv"


def test_the_old_file_is_not_taken_by_the_05_reader(tmp_path: Path) -> None:
    from evidencepack.readers.detect import probe_file
    from evidencepack.readers.formats import guidellm_csv

    path = _write(tmp_path / "b.csv", [_benchmark("synchronous", 5, 1.0)], "0.4", [{}])
    assert not guidellm_csv.detect(probe_file(path))


def _with_cell(path: Path, row: int, column: str, value: str) -> Path:
    table = list(csv.reader(path.open(newline="")))
    table[1 + row][table[0].index(column)] = value
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(table)
    return path


def test_a_broken_number_is_a_warning_naming_file_line_and_column(tmp_path: Path) -> None:
    benches = [_benchmark("concurrent@1", 10, 1.0), _benchmark("concurrent@2", 20, 1.0)]
    path = _write(tmp_path / "benchmarks.csv", benches, "0.4", [{}, {}])
    column = "Successful Time to first token ms mean"
    _with_cell(path, 1, column, "fast")
    parsed = read_input(path)
    second = parsed.runs[1]
    assert second.ttft is not None
    assert second.ttft.mean_ms is None
    assert second.ttft.p50_ms == float(_cell(path, 1, "Successful Time to first token ms median"))
    expected = f"{path}: line 3: column {column!r}: not a number ('fast')"
    assert any(expected in w for w in second.warnings)
    assert any(expected in w for w in parsed.warnings)
    assert parsed.runs[0].ttft is not None
    assert parsed.runs[0].ttft.mean_ms is not None


def test_a_broken_percentile_list_is_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path / "b.csv", [_benchmark("synchronous", 10, 1.0)], "0.3", [{}])
    column = f"Successful Request latency {LIST}"
    _with_cell(path, 0, column, "[0.1, 0.2]")
    run = read_input(path).runs[0]
    assert run.e2e is not None
    assert run.e2e.p99_ms is None
    assert run.e2e.mean_ms is not None
    assert any(f"line 2: column {column!r}: 2 values" in w for w in run.warnings)


def test_an_absent_column_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path / "b.csv", [_benchmark("synchronous", 10, 1.0)], "0.3", [{}])
    table = list(csv.reader(path.open(newline="")))
    drop = table[0].index("Successful Requests per second mean")
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([r[:drop] + r[drop + 1 :] for r in table])
    parsed = read_input(path)
    assert parsed.runs[0].request_throughput_per_s is None
    assert any(
        f"{path}: line 1: the header has no column 'Successful Requests per second mean'" in w
        for w in parsed.warnings
    )


def test_a_file_without_a_usable_row_is_refused_with_its_line(tmp_path: Path) -> None:
    benches = [_benchmark("synchronous", 10, 1.0), _benchmark("synchronous", 10, 1.0)]
    path = _write(tmp_path / "benchmarks.csv", benches, "0.4", [{}, {}])
    _with_cell(path, 0, "Successful Requests", "ten")
    _with_cell(path, 1, "Successful Requests", "")
    with pytest.raises(InputError, match=rf"{path}: line 3: no usable benchmark row"):
        read_input(path)


def test_one_unusable_row_is_skipped_with_a_warning(tmp_path: Path) -> None:
    benches = [_benchmark("synchronous", 10, 1.0), _benchmark("concurrent@4", 30, 1.0)]
    path = _write(tmp_path / "benchmarks.csv", benches, "0.4", [{}, {}])
    _with_cell(path, 0, "Successful Requests", "ten")
    parsed = read_input(path)
    assert [r.requests_completed for r in parsed.runs] == [30]
    assert any(
        "line 2: column 'Successful Requests': not a number ('ten')" in w for w in parsed.warnings
    )
    assert any("line 2: no Successful Requests count: row skipped" in w for w in parsed.warnings)


@pytest.mark.parametrize("name", ["constant@-1.00", "poisson@nan", "concurrent@0", "burst@x"])
def test_a_name_that_is_no_load_leaves_the_load_unknown(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / "b.csv", [_benchmark(name, 10, 1.0)], "0.4", [{}])
    run = read_input(path).runs[0]
    assert run.load.kind is None
    assert run.requests_completed == 10
