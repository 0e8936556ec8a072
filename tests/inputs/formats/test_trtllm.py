"""trtllm-bench --report_json, built from ReportUtility.get_statistics_dict's field list."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import requests, trtllm_report, write_json


def test_streaming_report(tmp_path: Path) -> None:
    report = trtllm_report(requests(n=40, seed=41))
    parsed = read_input(write_json(tmp_path / "report.json", report))
    assert parsed.format_id == "trtllm-bench-report"
    (run,) = parsed.runs
    assert (run.tool, run.tool_version) == ("trtllm-bench", report["engine"]["version"])
    assert run.identity.runtime_name == "tensorrt-llm"
    assert run.identity.runtime_version == report["engine"]["version"]
    assert run.identity.precision == report["engine"]["quantization"]
    assert run.identity.batch_size == report["world_info"]["max_batch_size"]
    assert run.load.kind == "offline"
    assert run.requests_completed == report["request_info"]["num_requests"]
    perf, streaming = report["performance"], report["streaming_metrics"]
    assert run.duration_s == pytest.approx(perf["total_latency_ms"] / 1000)
    assert run.output_token_throughput_per_s == perf["system_output_throughput_tok_s"]
    assert run.e2e is not None
    assert run.e2e.p99_ms == perf["request_latency_percentiles_ms"]["p99"]
    assert run.ttft is not None
    assert run.ttft.mean_ms == streaming["ttft_percentiles"]["average"]
    assert run.tpot is not None
    assert run.tpot.canonical
    assert run.tpot.p50_ms == streaming["tpot_percentiles"]["p50"]


def test_non_streaming_report_has_no_token_latencies(tmp_path: Path) -> None:
    report = trtllm_report(requests(n=10, seed=42), streaming=False)
    (run,) = read_input(write_json(tmp_path / "report.json", report)).runs
    assert run.ttft is None
    assert run.tpot is None
    assert run.e2e is not None
    assert any("not a streaming run" in w for w in run.warnings)


def test_missing_performance_section_is_not_a_report(tmp_path: Path) -> None:
    report = trtllm_report(requests(n=10, seed=43))
    report["performance"] = "n/a"
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "report.json", report))


def test_latency_report_is_a_closed_loop_of_one(tmp_path: Path) -> None:
    report = trtllm_report(requests(n=20, seed=43))
    # ``trtllm-bench latency`` writes the same report with the batch fixed to one request.
    report["world_info"]["max_batch_size"] = 1
    report["request_info"]["avg_num_concurrent_requests"] = 1.0
    (run,) = read_input(write_json(tmp_path / "latency.json", report)).runs
    assert (run.load.kind, run.load.concurrency) == ("closed_loop", 1)
    assert run.identity.concurrency == 1
    assert run.layout == "latency (max_batch_size 1)"
    assert run.requests_completed == report["request_info"]["num_requests"]
    assert run.e2e is not None
    assert run.e2e.p99_ms == report["performance"]["request_latency_percentiles_ms"]["p99"]
    report["world_info"]["max_batch_size"] = 256
    (offline,) = read_input(write_json(tmp_path / "throughput.json", report)).runs
    assert (offline.load.kind, offline.layout) == ("offline", "throughput")
