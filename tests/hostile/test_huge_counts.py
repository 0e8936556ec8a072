"""Counts past a 32-bit store column (issue 42, left from round two: "1e9 requests/s with 1,000
accelerators per node overflows a 32-bit store column, exit 3"): the spec's own figures are sized
in 64 bits, and an MLPerf system description whose accelerators per node times nodes passes
2,147,483,647 is not read as a count (a note on the result), never an overflow of the store."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_COULD_NOT_RUN
from evidencepack.mlperf.system import read_system

SYSTEM = "evidence/mlperf/closed/SampleVendor/systems/8xMI325X_vLLM.json"


def _huge_traffic(spec: Path, per_replica: int | None = None) -> None:
    text = spec.read_text(encoding="utf-8")
    text = text.replace("peak_requests_per_s: 14", "peak_requests_per_s: 1000000000")
    text = re.sub(r"accelerators_per_node: \d+", "accelerators_per_node: 1000", text)
    if per_replica is not None:
        text = re.sub(
            r"accelerators_per_replica: \d+", f"accelerators_per_replica: {per_replica}", text
        )
    spec.write_text(text, encoding="utf-8")


def _check(spec: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["check", str(spec), "--json"])
    out, err = capsys.readouterr()
    assert code != EXIT_COULD_NOT_RUN, err
    assert "Traceback" not in err
    return code, json.loads(out)


@pytest.mark.parametrize("per_replica", [None, 1000])
def test_a_billion_requests_per_second_on_1000_accelerators_a_node_is_sized(
    samples: Path, capsys: pytest.CaptureFixture[str], per_replica: int | None
) -> None:
    spec = samples / "pack.yaml"
    _huge_traffic(spec, per_replica)
    _, decision = _check(spec, capsys)
    needed = {c["id"]: c["accelerators_needed"] for c in decision["candidates"]}
    assert all(isinstance(n, int) and n > 100_000_000 for n in needed.values()), needed
    if per_replica:
        assert max(needed.values()) > 2**31, needed  # past a 32-bit column, held exactly


def test_an_mlperf_system_past_a_32_bit_count_is_not_read_as_one(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _huge_traffic(spec)
    system = samples / SYSTEM
    data = json.loads(system.read_text(encoding="utf-8"))
    data |= {"accelerators_per_node": 1000, "number_of_nodes": 3_000_000}  # 3e9 accelerators
    system.write_text(json.dumps(data), encoding="utf-8")
    code, decision = _check(spec, capsys)
    references = decision["references"]
    assert isinstance(references, list)
    mi325x = next(r for r in references if "MI325X" in str(r["accelerator"]))
    assert mi325x["accelerators_total"] is None  # not a count: never per-accelerator figures
    assert mi325x["per_accelerator_value"] is None
    assert code in (0, 1)
    # The note says why, on the result (evidencepack mlperf show lists it).
    read = read_system(system, "8xMI325X_vLLM", name=SYSTEM)
    assert read.accelerators_total is None
    assert any("3,000,000,000 is not a plausible count" in note for note in read.notes), read.notes
