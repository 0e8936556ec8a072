"""A v6.1 official table attacked (issue 42): a power row is attached only to a result of its own
system, and hostile values are located errors, not tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.mlperf.official_table import read_table

LOCATION = "closed/Vendor/results/8xA_vLLM/llama2-70b-99/Server"


def _row(**fields: object) -> dict[str, object]:
    return {
        "Location": f"./{LOCATION}/performance/run_1",
        "Model": "llama2-70b-99",
        "Scenario": "Server",
        "Organization": "Vendor",
        "SystemName": "8xA vLLM",
        "Result": 100.0,
        "Units": "Tokens/s",
        **fields,
    }


def test_a_power_row_of_another_system_is_not_attached(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    rows = {"1": _row(), "2": _row(SystemName="8xB TRT", Result=9000.0, Units="Watts")}
    path.write_text(json.dumps(rows))
    table = read_table(path)
    assert table.row(LOCATION, "performance") is not None
    with pytest.raises(InputError, match=r"power row .*row '2'.* '8xB TRT'.*row '1'"):
        table.row(LOCATION, "power")
    same = tmp_path / "same.json"
    same.write_text(json.dumps({"1": _row(), "2": _row(Result=9000.0, Units="Watts")}))
    power = read_table(same).row(LOCATION, "power")
    assert power is not None
    assert power.value == 9000.0


@pytest.mark.parametrize(
    "value",
    ["1e999", str(10**400), '"NaN"', '"-Infinity"', "true"],
    ids=["overflowing", "huge-int", "nan", "infinity", "bool"],
)
def test_hostile_values_are_located_errors(tmp_path: Path, value: str) -> None:
    path = tmp_path / "summary.json"
    text = json.dumps({"7": _row(Result="@")}).replace('"@"', value)
    path.write_text(text)
    with pytest.raises(InputError, match=r"row '7': Result is"):
        read_table(path)
