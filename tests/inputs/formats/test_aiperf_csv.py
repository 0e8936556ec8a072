"""AIPerf's two-table CSV: the real export, cross-checked with the JSON of the same run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

CSV = "formats/aiperf/generated/profile_export_aiperf.csv"
JSON = "formats/aiperf/generated/profile_export_aiperf.json"


def _rows(path: Path) -> dict[str, list[str]]:
    with path.open(newline="") as handle:
        return {row[0]: row for row in csv.reader(handle) if row}


def test_real_csv(shared_data: Path) -> None:
    rows = _rows(shared_data / CSV)
    doc = json.loads((shared_data / JSON).read_text())
    parsed = read_input(shared_data / CSV)
    assert parsed.format_id == "aiperf-csv"
    (run,) = parsed.runs
    assert run.tool == "aiperf"
    assert run.requests_completed == int(float(rows["Request Count"][1]))
    assert run.request_throughput_per_s == float(rows["Request Throughput (requests/sec)"][1])
    ttft = rows["Time to First Token (ms)"]
    header = (shared_data / CSV).read_text().splitlines()[0].split(",")
    assert run.ttft is not None
    assert run.ttft.p99_ms == float(ttft[header.index("p99")])
    assert run.ttft.mean_ms == float(ttft[header.index("avg")])
    # Rounded to two decimals, the CSV agrees with the JSON of the same run.
    assert run.ttft.p99_ms == pytest.approx(doc["time_to_first_token"]["p99"], abs=0.005)
    assert run.tpot is not None
    assert run.tpot.mean_ms == pytest.approx(doc["inter_token_latency"]["avg"], abs=0.005)
    assert any("does not name the tool" in w for w in run.warnings)


def test_non_numeric_cell_is_located(shared_data: Path, tmp_path: Path) -> None:
    lines = (shared_data / CSV).read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("Request Latency"))
    lines[number] = lines[number].replace("159.23", "NaN", 1)
    path = tmp_path / "p.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        InputError, match=rf"p\.csv: line {number + 1}: avg: NaN is not a measurement"
    ):
        read_input(path)
