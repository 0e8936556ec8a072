"""Goodput is a figure of its own, with the SLOs that define it where the file states them, and
never a throughput: AIPerf (JSON and CSV), vLLM's ``request_goodput``, guidellm 0.8+. SGLang's
total token throughput is read where the line has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.readers.registry import read_input

from ..builders import requests, sglang_result, vllm_result, write_json, write_jsonl

AIPERF = "formats/aiperf/generated/profile_export_aiperf.json"
AIPERF_CSV = "formats/aiperf/generated/profile_export_aiperf.csv"
GUIDELLM = "formats/guidellm/generated/benchmarks.json"


def test_aiperf_goodput_with_its_slos(shared_data: Path) -> None:
    doc = json.loads((shared_data / AIPERF).read_text())
    (run,) = read_input(shared_data / AIPERF).runs
    assert run.goodput is not None
    assert run.goodput.requests_per_s == doc["goodput"]["avg"]
    assert run.goodput_per_s == doc["goodput"]["avg"]
    assert run.goodput.good_requests == int(doc["good_request_count"]["avg"])
    assert run.goodput.judged_requests == int(doc["request_count"]["avg"])
    assert run.goodput.slos == doc["input_config"]["slos"]
    assert run.goodput.slo_source == "$.input_config.slos"
    assert not any("good_request_count" in w for w in run.warnings)  # read, not dropped


def test_aiperf_csv_goodput_says_its_slos_are_not_stated(shared_data: Path) -> None:
    (run,) = read_input(shared_data / AIPERF_CSV).runs
    assert run.goodput is not None
    assert run.goodput.requests_per_s == 23.94
    assert run.goodput.good_requests == 40
    assert run.goodput.slos == {}
    assert run.goodput.slo_source == "not stated in the file"


def test_vllm_request_goodput(tmp_path: Path) -> None:
    result = vllm_result(requests(n=10, seed=5), detailed=False)
    result["request_goodput"] = 1.25
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.goodput is not None
    assert run.goodput.requests_per_s == 1.25
    assert run.goodput.slo_source == "not stated in the file"
    assert run.request_throughput_per_s == result["request_throughput"]  # never mixed
    result["request_goodput"] = None  # vLLM without --goodput
    (plain,) = read_input(write_json(tmp_path / "p.json", result)).runs
    assert plain.goodput is None
    assert plain.goodput_per_s is None


def test_guidellm_goodput_with_its_slos(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / GUIDELLM).read_text())
    doc["config"]["spec"]["metrics"]["slo"] = {"ttft_ms": 500.0, "e2el_ms": 2000.0}
    bench = doc["benchmarks"][0]
    metrics = bench["metrics"]
    throughput = metrics["output_tokens_per_second"]["successful"]["mean"]
    metrics.update(
        slo_attainment=0.75,
        slo_determined_requests=24,
        request_goodput={"successful": {"mean": 5.2}},
        output_token_goodput={"successful": {"mean": throughput * 0.75}},
    )
    run = read_input(write_json(tmp_path / "benchmarks.json", doc)).runs[0]
    assert run.goodput is not None
    assert run.goodput.requests_per_s == 5.2
    assert run.goodput.tokens_per_s == pytest.approx(throughput * 0.75)
    assert (run.goodput.good_requests, run.goodput.judged_requests) == (18, 24)
    assert run.goodput.slos == {"ttft_ms": 500.0, "e2el_ms": 2000.0}
    assert run.goodput.slo_source == "$.config.spec.metrics.slo"
    assert run.output_token_throughput_per_s == throughput


def test_guidellm_without_slos_has_no_goodput(shared_data: Path) -> None:
    assert all(r.goodput is None for r in read_input(shared_data / GUIDELLM).runs)


def test_guidellm_incomplete_requests_are_said(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / GUIDELLM).read_text())
    totals = doc["benchmarks"][0]["metrics"]["request_totals"]
    totals.update(incomplete=3, total=totals["total"] + 3)
    run = read_input(write_json(tmp_path / "benchmarks.json", doc)).runs[0]
    assert run.requests_sent == totals["total"]
    assert any("3 request(s) incomplete" in w for w in run.warnings)
    assert any(f.kind == "unaccounted-requests" for f in run.findings)


def test_sglang_total_token_throughput(tmp_path: Path) -> None:
    line = sglang_result(requests(n=10, seed=6), details=False)
    line["total_throughput"] = 4321.0
    (run,) = read_input(write_jsonl(tmp_path / "s.jsonl", [line])).runs
    assert run.total_token_throughput_per_s == 4321.0
    del line["total_throughput"]  # an older line: input + output, said
    (older,) = read_input(write_jsonl(tmp_path / "o.jsonl", [line])).runs
    assert older.total_token_throughput_per_s == pytest.approx(
        line["input_throughput"] + line["output_throughput"]
    )
    assert any("input_throughput + output_throughput" in w for w in older.warnings)


def test_inspect_shows_goodput_apart_from_throughput(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(shared_data / AIPERF)]) == 0
    lines = capsys.readouterr().out.splitlines()
    (run_line,) = [line for line in lines if line.startswith("  run ")]
    assert "goodput" not in run_line
    assert "4071 total tok/s" in run_line
    (goodput,) = [line for line in lines if "goodput" in line]
    assert "goodput 23.94 req/s; 40 of 40 requests met every SLO" in goodput
    assert "time_to_first_token <= 50" in goodput
    assert "not a throughput" in goodput


def test_guidellm_csv_incomplete_requests_are_said(shared_data: Path, tmp_path: Path) -> None:
    import csv

    source = shared_data / "formats/guidellm/generated/benchmarks.csv"
    rows = list(csv.reader(source.open(newline="")))
    incomplete = next(
        i for i, (a, b) in enumerate(zip(rows[0], rows[1], strict=False))
        if (a, b) == ("Request Counts", "Incomplete")
    )  # fmt: skip
    rows[3][incomplete] = "3"
    rows[3][incomplete + 2] = str(int(rows[3][incomplete + 2]) + 3)  # Total
    path = tmp_path / "benchmarks.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    run = read_input(path).runs[0]
    assert any("3 request(s) incomplete" in w for w in run.warnings)
    assert any(f.kind == "unaccounted-requests" for f in run.findings)
