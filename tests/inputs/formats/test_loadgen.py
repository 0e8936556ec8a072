"""The team's own LoadGen runs as serving runs (real LoadGen 6.0.17 outputs), read through the
mlperf stage's parser and checked against the log lines the test reads itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input


def _mllog(path: Path) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for line in path.read_text().splitlines():
        if line.startswith(":::MLLOG "):
            record = json.loads(line[len(":::MLLOG ") :])
            values[record["key"]] = record["value"]
    return values


def test_server_run(shared_data: Path) -> None:
    path = shared_data / "loadgen/llama2-70b_Server_perf/mlperf_log_detail.txt"
    log = _mllog(path)
    parsed = read_input(path)
    assert parsed.format_id == "mlperf-loadgen-detail"
    (run,) = parsed.runs
    assert run.tool_version == log["loadgen_version"]
    assert run.load.kind == "open_loop"
    assert run.load.request_rate_per_s == log["effective_target_qps"]
    assert run.requests_completed == log["result_query_count"]
    assert run.request_throughput_per_s == log["result_completed_samples_per_sec"]
    assert run.ttft is not None
    assert run.ttft.p99_ms == log["result_first_token_99.00_percentile_latency_ns"] / 1e6
    assert run.tpot is not None
    assert run.tpot.canonical
    assert run.tpot.mean_ms == log["result_time_to_output_token_mean"] / 1e6
    assert run.e2e is not None
    assert run.e2e.p50_ms == log["result_50.00_percentile_latency_ns"] / 1e6


def test_offline_run(shared_data: Path) -> None:
    path = shared_data / "loadgen/llama2-70b_Offline_perf/mlperf_log_detail.txt"
    log = _mllog(path)
    (run,) = read_input(path).runs
    assert run.load.kind == "offline"
    assert run.requests_completed == log["result_query_count"] * log["effective_samples_per_query"]
    assert run.output_token_throughput_per_s == log["result_tokens_per_second"]


def test_invalid_run_says_why(shared_data: Path) -> None:
    (run,) = read_input(
        shared_data / "loadgen/custom_Server_overload_perf/mlperf_log_detail.txt"
    ).runs
    assert any(w.startswith("LoadGen judged the run INVALID") for w in run.warnings)


def test_summary_alone_matches_the_detail_log(shared_data: Path) -> None:
    folder = shared_data / "loadgen/llama2-70b-interactive_Server_perf"
    (detail,) = read_input(folder / "mlperf_log_detail.txt").runs
    parsed = read_input(folder / "mlperf_log_summary.txt")
    assert parsed.format_id == "mlperf-loadgen-summary"
    (summary,) = parsed.runs
    assert summary.ttft is not None
    assert detail.ttft is not None
    assert summary.ttft.p99_ms == pytest.approx(detail.ttft.p99_ms, rel=1e-6)


def test_accuracy_run_yields_no_serving_run(shared_data: Path) -> None:
    for name in ("mlperf_log_detail.txt", "mlperf_log_summary.txt"):
        parsed = read_input(shared_data / "loadgen/llama2-70b_Offline_acc" / name)
        assert parsed.runs == ()
        assert any("accuracy-mode" in w for w in parsed.warnings)


def test_truncated_log_line_is_located(shared_data: Path, tmp_path: Path) -> None:
    text = (shared_data / "loadgen/gptj_Server_perf/mlperf_log_detail.txt").read_text()
    path = tmp_path / "mlperf_log_detail.txt"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match="malformed line"):
        read_input(path)


_RUNS = ("llama2-70b_Server_perf", "llama2-70b_Offline_perf", "gptj_Server_perf")


@pytest.mark.parametrize("run", _RUNS)
@pytest.mark.parametrize("keep", [0.2, 0.5, 0.8, 0.95])
def test_a_truncated_summary_is_refused_with_file_and_line(
    shared_data: Path, tmp_path: Path, run: str, keep: float
) -> None:
    lines = (shared_data / "loadgen" / run / "mlperf_log_summary.txt").read_text().splitlines()
    cut = max(8, int(len(lines) * keep))  # past the "Scenario" line: it reads as a summary
    kept = lines[:cut]
    last = max(i for i, line in enumerate(kept, start=1) if line.strip())
    path = tmp_path / "mlperf_log_summary.txt"
    path.write_text("\n".join(kept) + "\n")
    with pytest.raises(InputError, match=rf"mlperf_log_summary.txt:{last}: the summary ends here"):
        read_input(path)


@pytest.mark.parametrize("run", _RUNS)
@pytest.mark.parametrize("where", ["mid-line", "before result_validity"])
def test_a_cut_detail_log_names_the_line(
    shared_data: Path, tmp_path: Path, run: str, where: str
) -> None:
    text = (shared_data / "loadgen" / run / "mlperf_log_detail.txt").read_text()
    if where == "mid-line":
        kept = text[: len(text) // 2]
        expected = rf"mlperf_log_detail.txt:{kept.count(chr(10)) + 1}: truncated"
    else:
        lines = text.splitlines()
        validity = next(i for i, line in enumerate(lines) if '"key": "result_validity"' in line)
        kept = "\n".join(lines[:validity]) + "\n"
        expected = rf"mlperf_log_detail.txt:{validity}: the log ends here"
    path = tmp_path / "mlperf_log_detail.txt"
    path.write_text(kept)
    with pytest.raises(InputError, match=expected):
        read_input(path)
