"""AIPerf's per-request profile_export.jsonl: percentiles recomputed in SQL, checked against the
summary JSON of the same run, which the test reads itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

JSONL = "formats/aiperf/generated/profile_export.jsonl"
JSON = "formats/aiperf/generated/profile_export_aiperf.json"


def _records(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_real_per_request_file(shared_data: Path) -> None:
    records = _records(shared_data / JSONL)
    summary = json.loads((shared_data / JSON).read_text())
    parsed = read_input(shared_data / JSONL)
    assert parsed.format_id == "aiperf-requests"
    (run,) = parsed.runs
    assert run.per_request_rows == len(records) == summary["request_count"]["avg"]
    ttft = [r["metrics"]["time_to_first_token"]["value"] for r in records]
    gaps = [g for r in records for g in r["metrics"]["inter_chunk_latency"]["value"]]
    tpot = [r["metrics"]["inter_token_latency"]["value"] for r in records]
    assert run.ttft is not None
    assert run.ttft.p99_ms == pytest.approx(np.percentile(ttft, 99))
    assert run.itl is not None
    assert run.itl.count == len(gaps)
    assert run.itl.mean_ms == pytest.approx(np.mean(gaps))
    # Our TPOT, from latency, TTFT and OSL, equals AIPerf's own per-request ITL.
    assert run.tpot is not None
    assert run.tpot.mean_ms == pytest.approx(np.mean(tpot))
    # ... and the figures match the summary AIPerf wrote for the same run.
    for stats, key in (
        (run.ttft, "time_to_first_token"),
        (run.e2e, "request_latency"),
        (run.tpot, "inter_token_latency"),
        (run.itl, "inter_chunk_latency"),
    ):
        assert stats is not None
        assert stats.mean_ms == pytest.approx(summary[key]["avg"])
        assert stats.p50_ms == pytest.approx(summary[key]["p50"])
        assert stats.p99_ms == pytest.approx(summary[key]["p99"])
    assert run.duration_s == pytest.approx(summary["benchmark_duration"]["avg"], rel=1e-3)
    assert parsed.requests is not None
    assert list(parsed.requests["ttft_ms"]) == pytest.approx(ttft)


def _edit(shared_data: Path, tmp_path: Path, line: int, change) -> Path:  # type: ignore[no-untyped-def]
    lines = (shared_data / JSONL).read_text().splitlines()
    record = json.loads(lines[line - 1])
    change(record)
    lines[line - 1] = json.dumps(record)
    path = tmp_path / "profile_export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_negative_ttft_names_the_line(shared_data: Path, tmp_path: Path) -> None:
    def negative(r: dict) -> None:  # type: ignore[type-arg]
        r["metrics"]["time_to_first_token"]["value"] = -3.0

    path = _edit(shared_data, tmp_path, 7, negative)
    where = r"line 7: \$\.metrics\.time_to_first_token\.value \(or \$\.metrics\.ttft\.value\)"
    with pytest.raises(InputError, match=where + ": neg"):
        read_input(path)


def test_wrong_unit_names_the_line(shared_data: Path, tmp_path: Path) -> None:
    def seconds(r: dict) -> None:  # type: ignore[type-arg]
        r["metrics"]["request_latency"]["unit"] = "s"

    path = _edit(shared_data, tmp_path, 12, seconds)
    with pytest.raises(InputError, match=r"line 12: \$\.metrics\.request_latency\.unit"):
        read_input(path)


def test_failed_requests_are_counted_not_measured(shared_data: Path, tmp_path: Path) -> None:
    def failed(r: dict) -> None:  # type: ignore[type-arg]
        r["error"] = {"code": 500, "type": "InternalServerError", "message": "boom"}

    path = _edit(shared_data, tmp_path, 3, failed)
    (run,) = read_input(path).runs
    assert (run.requests_completed, run.requests_failed) == (39, 1)
    assert run.ttft is not None
    assert run.ttft.count == 39


def test_truncated_last_line(shared_data: Path, tmp_path: Path) -> None:
    path = tmp_path / "profile_export.jsonl"
    text = (shared_data / JSONL).read_text()
    path.write_text(text[: len(text) - 300])
    with pytest.raises(InputError, match=r"line 40: truncated JSON"):
        read_input(path)
