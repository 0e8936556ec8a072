"""AIPerf summary JSON: the real aiperf 0.13.0 export, checked against its own fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import write_json

SUMMARY = "formats/aiperf/generated/profile_export_aiperf.json"


def test_real_summary(shared_data: Path) -> None:
    path = shared_data / SUMMARY
    doc = json.loads(path.read_text())
    parsed = read_input(path)
    assert parsed.format_id == "aiperf-summary"
    assert (parsed.file.tool, parsed.file.tool_version) == ("aiperf", doc["aiperf_version"])
    (run,) = parsed.runs
    assert run.requests_completed == doc["request_count"]["avg"]
    assert run.duration_s == doc["benchmark_duration"]["avg"]
    assert run.request_throughput_per_s == doc["request_throughput"]["avg"]
    assert run.output_token_throughput_per_s == doc["output_token_throughput"]["avg"]
    assert run.identity.model_name == doc["input_config"]["models"]["items"][0]["name"]
    phase = doc["input_config"]["phases"][0]
    assert (run.load.kind, run.load.concurrency) == ("closed_loop", phase["concurrency"])
    assert run.identity.concurrency == phase["concurrency"]
    # AIPerf's inter_token_latency is (latency - TTFT)/(OSL - 1): evidencepack's TPOT.
    assert run.tpot is not None
    assert run.tpot.canonical
    assert run.tpot.p99_ms == doc["inter_token_latency"]["p99"]
    assert run.itl is not None
    assert run.itl.weighting == "gap"
    assert run.itl.count == doc["inter_chunk_latency"]["count"]
    assert run.ttft is not None
    assert run.ttft.mean_ms == doc["time_to_first_token"]["avg"]
    assert run.e2e is not None
    assert run.e2e.p90_ms == doc["request_latency"]["p90"]
    assert run.tokens.output_mean_tokens == doc["output_sequence_length"]["avg"]


def test_seconds_are_converted_and_unknown_units_refused(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / SUMMARY).read_text())
    doc["request_latency"] = {
        k: (v / 1000 if isinstance(v, float) else v) for k, v in doc["request_latency"].items()
    }
    doc["request_latency"]["unit"] = "sec"
    (run,) = read_input(write_json(tmp_path / "s.json", doc)).runs
    assert run.e2e is not None
    assert run.e2e.p99_ms == pytest.approx(174.43584868)
    doc["request_latency"]["unit"] = "fortnights"
    with pytest.raises(InputError, match=r"\$\.request_latency\.unit: unknown time unit"):
        read_input(write_json(tmp_path / "s.json", doc))


def test_genai_perf_summary_is_read_without_a_version(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / SUMMARY).read_text())
    for key in ("aiperf_version", "schema_version"):
        doc.pop(key)
    doc["input_config"] = {"model": ["acme/m"], "concurrency": 2}
    parsed = read_input(write_json(tmp_path / "profile_export_genai_perf.json", doc))
    assert parsed.runs[0].tool == "genai-perf"
    assert parsed.runs[0].tool_version is None
    assert parsed.runs[0].identity.model_name == "acme/m"
