"""AIPerf's CSV: the reader checks the rows it reads and leaves the others as the tool wrote them.

AIPerf 0.10 writes ``OSL Mismatch Diff %`` (requested minus produced output length, in percent):
negative whenever a request produced more tokens than asked, and not a figure the reader uses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

CSV = "formats/aiperf/generated/profile_export_aiperf.csv"


def _with_row(shared_data: Path, tmp_path: Path, starts: str, old: str, new: str) -> Path:
    lines = (shared_data / CSV).read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith(starts))
    lines[number] = lines[number].replace(old, new)
    path = tmp_path / "profile_export_aiperf.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_negative_value_in_an_unused_row_is_left_alone(shared_data: Path, tmp_path: Path) -> None:
    path = _with_row(shared_data, tmp_path, "OSL Mismatch Diff %", "31.25", "-78.77")
    (run,) = read_input(path).runs
    (real,) = read_input(shared_data / CSV).runs
    assert run.ttft == real.ttft
    assert run.tpot == real.tpot
    assert run.e2e == real.e2e
    assert run.request_throughput_per_s == real.request_throughput_per_s


def test_text_in_an_unused_row_is_left_alone(shared_data: Path, tmp_path: Path) -> None:
    path = _with_row(shared_data, tmp_path, "HTTP Blocked (ms)", "0.00", "N/A")
    (run,) = read_input(path).runs
    assert run.ttft is not None
    assert run.ttft.mean_ms == 20.26


def test_a_negative_value_in_a_row_read_is_refused_with_its_line(
    shared_data: Path, tmp_path: Path
) -> None:
    lines = (shared_data / CSV).read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("Time to First Token"))
    path = _with_row(shared_data, tmp_path, "Time to First Token", "20.26", "-20.26")
    with pytest.raises(InputError, match=rf"line {number + 1}: avg: negative value -20.26"):
        read_input(path)
    values = _with_row(shared_data, tmp_path, "Request Throughput", "23.94", "-23.94")
    with pytest.raises(InputError, match=r"Request Throughput \(requests/sec\): negative value"):
        read_input(values)
