"""AIPerf 0.1.x (Oct 2025): metrics under ``records``, load under ``input_config.loadgen``,
per-request ``metrics.ttft`` and ``metadata.timestamp_ns``, a CSV without ``sum``.

The three files are the real aiperf 0.13.0 run of ``formats/aiperf/generated`` rewritten into
0.1.x's layout (the layout of the tool's own example artifacts), with three cancelled requests
added as 0.1.x records them; every figure checked is read from the rewritten file itself.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import InputError
from evidencepack.intake.load import load_input
from evidencepack.intake.stored import load_runs
from evidencepack.pipeline import CompileOptions, check
from evidencepack.readers.registry import read_input
from evidencepack.store import Store

from ...test_pipeline import _edit
from ..builders import write_json, write_jsonl

FOLDER = "formats/aiperf/generated"
_RENAMED = {"time_to_first_token": "ttft", "time_to_second_token": "ttst"}
_STATS = ("avg", "min", "max", "p1", "p5", "p25", "p50", "p75", "p90", "p95", "p99", "std")
CANCELLED = 3


def _requests(shared_data: Path) -> list[dict[str, Any]]:
    out = []
    for line in (shared_data / FOLDER / "profile_export.jsonl").read_text().splitlines():
        record = json.loads(line)
        meta = record["metadata"]
        metrics = {_RENAMED.get(k, k): v for k, v in record["metrics"].items()}
        out.append(
            {
                "metadata": {
                    "x_request_id": meta["x_request_id"],
                    "timestamp_ns": meta["request_start_ns"],
                    "credit_phase": meta["benchmark_phase"],
                },
                "metrics": metrics,
                "error": record.get("error"),
            }
        )
    first = min(r["metadata"]["timestamp_ns"] for r in out)
    cancelled = {"code": 499, "type": "RequestCancellationError", "message": "cancelled"}
    out += [
        {
            "metadata": {"timestamp_ns": first + 1000 + i, "credit_phase": "profiling"},
            "metrics": {"error_request_count": {"value": 1, "unit": "requests"}},
            "error": cancelled,
        }
        for i in range(CANCELLED)
    ]
    return out


def _summary(shared_data: Path, first_ns: int) -> dict[str, Any]:
    doc = json.loads((shared_data / FOLDER / "profile_export_aiperf.json").read_text())
    records: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict) and "unit" in value and "avg" in value:
            tag = _RENAMED.get(key, key)
            stats = {s: value.get(s) for s in _STATS}
            records[tag] = {"tag": tag, "unit": value["unit"], "header": tag, **stats}
            records[tag]["count"] = value.get("count", 1)
    records["error_request_count"] = {"tag": "error_request_count", "unit": "requests",
                                      "avg": float(CANCELLED), "count": 1}  # fmt: skip
    records["min_request_timestamp"] = {"tag": "min_request_timestamp", "unit": "ns",
                                        "avg": float(first_ns), "count": 1}  # fmt: skip
    phase = doc["input_config"]["phases"][0]
    model = doc["input_config"]["models"]["items"][0]["name"]
    local = dt.datetime.fromisoformat(doc["start_time"]) - dt.timedelta(hours=7)
    return {
        "records": records,
        "input_config": {
            "endpoint": {"model_names": [model], "type": "chat", "streaming": True},
            "loadgen": {
                "concurrency": phase["concurrency"],
                "request_rate_mode": "concurrency_burst",
                "request_count": 40 + CANCELLED,
                "request_cancellation_rate": 7.0,
            },
        },
        "was_cancelled": False,
        "error_summary": [
            {"error_details": {"code": 499, "type": "RequestCancellationError"}, "count": CANCELLED}
        ],  # fmt: skip
        "start_time": local.isoformat(),  # 0.1.x writes local time
    }


def _csv(shared_data: Path, path: Path, first_ns: int) -> Path:
    with (shared_data / FOLDER / "profile_export_aiperf.csv").open(newline="") as handle:
        rows = list(csv.reader(handle))
    drop = rows[0].index("sum")
    out = []
    for row in rows:
        if row and row[0] == "Metric" and len(row) == 2:
            out.append(row)
            out.append(["Minimum Request Timestamp (ns)", f"{first_ns}.00"])
            continue
        out.append([c for i, c in enumerate(row) if i != drop] if len(row) > drop else row)
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(out)
    return path


@pytest.fixture
def run01(shared_data: Path, tmp_path: Path) -> dict[str, Path]:
    requests = _requests(shared_data)
    first = min(r["metadata"]["timestamp_ns"] for r in requests)
    return {
        "jsonl": write_jsonl(tmp_path / "profile_export.jsonl", requests),
        "json": write_json(tmp_path / "profile_export_aiperf.json", _summary(shared_data, first)),
        "csv": _csv(shared_data, tmp_path / "profile_export_aiperf.csv", first),
    }


def test_summary_under_records(run01: dict[str, Path]) -> None:
    doc = json.loads(run01["json"].read_text())
    records = doc["records"]
    parsed = read_input(run01["json"])
    assert parsed.format_id == "aiperf-summary"
    (run,) = parsed.runs
    assert (run.tool, run.tool_version, run.layout) == (
        "aiperf", None, "metrics under records (0.1.x)"
    )  # fmt: skip
    assert run.identity.model_name == doc["input_config"]["endpoint"]["model_names"][0]
    assert run.identity.settings["request_cancellation_rate_pct"] == 7.0
    concurrency = doc["input_config"]["loadgen"]["concurrency"]
    assert (run.load.kind, run.load.concurrency) == ("closed_loop", concurrency)
    assert run.requests_completed == records["request_count"]["avg"]
    assert run.requests_failed == CANCELLED
    assert run.requests_sent == records["request_count"]["avg"] + CANCELLED
    assert run.ttft is not None
    assert run.ttft.mean_ms == records["ttft"]["avg"]
    assert run.ttft.p99_ms == records["ttft"]["p99"]
    assert run.tpot is not None
    assert run.tpot.p50_ms == records["inter_token_latency"]["p50"]
    assert run.e2e is not None
    assert run.e2e.max_ms == records["request_latency"]["max"]
    assert run.request_throughput_per_s == records["request_throughput"]["avg"]
    assert run.output_token_throughput_per_s == records["output_token_throughput"]["avg"]
    assert run.tokens.output_total_tokens == records["total_osl"]["avg"]
    # The time is the epoch of the first request, not the local start_time.
    first = dt.datetime.fromtimestamp(records["min_request_timestamp"]["avg"] / 1e9, tz=dt.UTC)
    assert run.timestamp is not None
    assert dt.datetime.fromisoformat(run.timestamp) == first.replace(
        microsecond=first.microsecond // 1000 * 1000
    )
    assert any("ttst" in w and "dropped" in w for w in parsed.warnings)


def test_per_request_records_with_ttft_and_timestamp_ns(run01: dict[str, Path]) -> None:
    records = [json.loads(line) for line in run01["jsonl"].read_text().splitlines()]
    ok = [r for r in records if r["error"] is None]
    parsed = read_input(run01["jsonl"])
    (run,) = parsed.runs
    assert run.tool == "aiperf"
    assert (run.requests_sent, run.requests_completed) == (len(records), len(ok))
    assert run.requests_failed == CANCELLED
    ttfts = sorted(r["metrics"]["ttft"]["value"] for r in ok)
    assert run.ttft is not None
    assert run.ttft.mean_ms == pytest.approx(sum(ttfts) / len(ttfts))
    assert run.ttft.max_ms == pytest.approx(ttfts[-1])
    starts = [r["metadata"]["timestamp_ns"] / 1e9 for r in ok]
    ends = [
        r["metadata"]["timestamp_ns"] / 1e9 + r["metrics"]["request_latency"]["value"] / 1e3
        for r in ok
    ]
    assert run.duration_s == pytest.approx(max(ends) - min(starts))
    assert run.request_throughput_per_s == pytest.approx(len(ok) / (max(ends) - min(starts)))
    assert run.output_token_throughput_per_s is not None


def test_csv_without_sum_is_aiperf(run01: dict[str, Path]) -> None:
    with run01["csv"].open(newline="") as handle:
        table = list(csv.reader(handle))
    header = table[0]
    rows = {row[0]: row for row in table[1:] if row}
    (run,) = read_input(run01["csv"]).runs
    assert "sum" not in header
    assert run.tool == "aiperf"
    ttft = rows["Time to First Token (ms)"]
    assert run.ttft is not None
    assert run.ttft.p99_ms == float(ttft[header.index("p99")])
    assert run.requests_completed == int(float(rows["Request Count"][1]))


def test_genai_perf_csv_is_told_by_falling_percentiles(tmp_path: Path) -> None:
    path = tmp_path / "profile_export_genai_perf.csv"
    path.write_text(
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n"
        "Time To First Token (ms),8.00,7.00,9.00,8.98,8.90,8.80,8.50,8.00,7.50\n"
        "Request Latency (ms),5.00,4.00,6.00,5.98,5.90,5.80,5.50,5.00,4.50\n"
        "\nMetric,Value\nRequest Throughput (per sec),3.00\nRequest Count,12\n"
    )
    (run,) = read_input(path).runs
    assert run.tool == "genai-perf"
    # GenAI-Perf writes thousands with commas, quoted, as its own docs show.
    path.write_text(
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n"
        'Time To First Token (ms),"1,146.31",249.48,"3,485.23","3,457.97","3,349.56",'
        '"3,215.06","1,330.93",640.07,286.52\n'
        "\nMetric,Value\nRequest Throughput (per sec),3.00\nRequest Count,12\n"
    )
    (run,) = read_input(path).runs
    assert run.ttft is not None
    assert (run.ttft.mean_ms, run.ttft.p99_ms) == (1146.31, 3457.97)


def test_the_three_files_are_one_run(run01: dict[str, Path]) -> None:
    store = Store()
    for key in ("json", "csv", "jsonl"):
        load_input(store, read_input(run01[key]), role="runs", candidate="c")
    runs = {r.format_id: r for r in load_runs(store)}
    detail = runs["aiperf-requests"]
    assert {r.tool for r in runs.values()} == {"aiperf"}
    for fmt in ("aiperf-summary", "aiperf-csv"):
        summary = runs[fmt]
        assert f"checked against the per-request rows of {detail.run_id}" in summary.warnings
        assert {c.metric for c in summary.checks} >= {"ttft", "e2e"}
        assert all(c.ok for c in summary.checks), [c for c in summary.checks if not c.ok]
    doc = json.loads(run01["json"].read_text())
    # The per-request run, the run's one load point, has the summary's model and load.
    assert detail.identity.model_name == doc["input_config"]["endpoint"]["model_names"][0]
    assert detail.load.concurrency == doc["input_config"]["loadgen"]["concurrency"]
    row = store.rows("SELECT model_name, concurrency FROM serving_runs WHERE run_id = ?",
                     [detail.run_id])  # fmt: skip
    assert row == [{"model_name": detail.identity.model_name,
                    "concurrency": detail.load.concurrency}]  # fmt: skip


def test_records_lookalike_and_bad_unit(run01: dict[str, Path], tmp_path: Path) -> None:
    doc = json.loads(run01["json"].read_text())
    for value in doc["records"].values():
        value.pop("tag")
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "lookalike.json", doc))
    doc = json.loads(run01["json"].read_text())
    doc["records"]["ttft"]["unit"] = "fortnights"
    with pytest.raises(InputError, match=r"\$\.records\.ttft\.unit: unknown time unit"):
        read_input(write_json(tmp_path / "bad.json", doc))


def test_the_three_files_in_a_spec_are_one_load_point(samples: Path, shared_data: Path) -> None:
    """Cited in a spec and checked, the three files are one AIPerf run, named aiperf, with the
    summary's model and concurrency; the sweep does not mix AIPerf with GenAI-Perf."""
    folder = samples / "evidence" / "aiperf01"
    folder.mkdir()
    requests = _requests(shared_data)
    first = min(r["metadata"]["timestamp_ns"] for r in requests)
    write_jsonl(folder / "profile_export.jsonl", requests)
    summary = _summary(shared_data, first)
    write_json(folder / "profile_export_aiperf.json", summary)
    _csv(shared_data, folder / "profile_export_aiperf.csv", first)
    _edit(
        samples / "pack.yaml",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n"
        + "".join(
            f"        - path: evidence/aiperf01/{name}\n"
            for name in (
                "profile_export_aiperf.json",
                "profile_export_aiperf.csv",
                "profile_export.jsonl",
            )
        ),  # fmt: skip
    )
    decision = check(samples / "pack.yaml", CompileOptions())
    rows = [r for r in decision.comparability if r.kind == "run" and "aiperf01" in r.subject]
    # One run (the per-request file); the summary and the CSV joined it.
    assert [r.subject for r in rows] == ["evidence/aiperf01/profile_export.jsonl"]
    (row,) = rows
    # Its model and concurrency are the summary's, read from the file, not declared or unknown.
    model = summary["input_config"]["endpoint"]["model_names"][0]
    assert "model_name" not in row.declared
    assert any(d.field == "model_name" and d.observed == model for d in row.differences)
    assert "concurrency" not in row.unknown
    result = next(c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "h200-vllm")
    assert "genai-perf" not in result.reason
