"""GenAI-Perf ``analyze``'s summary CSV (``analyze_export_genai_perf.csv``): one sweep, one run per
row, each its own id; the layout is the one GenAI-Perf's own docs print and its report code
writes (a perf table, a blank line, a GPU table)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

_PERF = [
    ["Config Name", "Concurrency", "ISL", "Num Dataset Entries",
     "p99 Time To First Token (ms)", "p99 Inter Token Latency (ms)", "p99 Request Latency (ms)",
     "p99 Output Sequence Length (tokens)", "Avg. Output Token Throughput (tokens/sec)",
     "Request Throughput (requests/sec)"],
    ["gpt2_run_config_0", "1", "201", "100", "82.02", "7.53", "879.20", "124.55", "145.93", "1.30"],
    ["gpt2_run_config_1", "4", "201", "100", "133.13", "7.29", "1,778.62", "126.16", "547.93",
     "4.32"],
    ["gpt2_run_config_2", "16", "201", "100", "433.54", "9.16", "2,779.75", "132.10", "1,149.63",
     "9.32"],
]  # fmt: skip
_GPU = [
    ["Config Name", "GPU", "p99 GPU Power Usage (W)", "p99 GPU Utilization (%)"],
    ["gpt2_run_config_0", "gpu0", "300.1", "45.0"],
]


def _write(path: Path, tables: list[list[list[str]]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        for k, table in enumerate(tables):
            if k:
                writer.writerow([])
            writer.writerows(table)
    return path


def test_analyze_summary_is_a_sweep_of_load_points(tmp_path: Path) -> None:
    path = _write(tmp_path / "analyze_export_genai_perf.csv", [_PERF, _GPU])
    parsed = read_input(path)
    assert parsed.format_id == "genai-perf-analyze"
    assert parsed.file.tool == "genai-perf"
    assert len(parsed.runs) == 3
    assert len({r.run_id for r in parsed.runs}) == 3
    for run, row in zip(parsed.runs, _PERF[1:], strict=True):
        assert run.tool == "genai-perf"
        assert run.label == row[0]
        assert run.identity.model_name == "gpt2"
        assert (run.load.kind, run.load.concurrency) == ("closed_loop", int(row[1]))
        assert run.ttft is not None
        assert run.ttft.p99_ms == float(row[4])
        assert run.tpot is not None
        assert run.tpot.p99_ms == float(row[5])
        assert run.e2e is not None
        assert run.e2e.p99_ms == float(row[6].replace(",", ""))
        assert run.output_token_throughput_per_s == float(row[8].replace(",", ""))
        assert run.request_throughput_per_s == float(row[9])
    assert any("GPU telemetry table" in w for w in parsed.warnings)
    assert any("p99 Output Sequence Length (tokens)" in w for w in parsed.warnings)


def test_request_rate_sweep_and_bad_cells(tmp_path: Path) -> None:
    rate = [list(r) for r in _PERF]
    rate[0][1] = "Request Rate"
    (first, *_) = read_input(_write(tmp_path / "rate.csv", [rate])).runs
    assert (first.load.kind, first.load.request_rate_per_s) == ("open_loop", 1.0)
    rate[2][4] = "fast"
    with pytest.raises(InputError, match=r"line 3: p99 Time To First Token \(ms\): not a number"):
        read_input(_write(tmp_path / "bad.csv", [rate]))
    rate[2][4] = "-3"
    with pytest.raises(InputError, match="line 3: .* is not a measurement"):
        read_input(_write(tmp_path / "neg.csv", [rate]))


def test_a_lookalike_without_p99_columns_is_refused(tmp_path: Path) -> None:
    lookalike = [["Config Name", "Concurrency", "ISL", "Num Dataset Entries", "Notes"],
                 ["x", "1", "2", "3", "none"]]  # fmt: skip
    with pytest.raises(InputError, match="unknown format"):
        read_input(_write(tmp_path / "other.csv", [lookalike]))
