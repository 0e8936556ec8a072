"""System description JSON: real quirks (string numbers, dicts, U+202F, TODO) normalised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.mlperf.system import clean_int, normalise_system, read_system


def test_redhat_dict_stack_string_counts_and_narrow_nbsp(shared_data: Path) -> None:
    path = shared_data / "mlperf/v5.1/closed/RedHat/systems/XE8640_4xH100_vLLM.json"
    raw = path.read_text(encoding="utf-8")
    assert "\u202f" in raw
    assert '"number_of_nodes"                   : "1"' in raw
    system = read_system(path, "id")
    assert (system.nodes, system.accelerators_per_node, system.accelerators_total) == (1, 1, 1)
    assert system.host_processor is not None
    assert "\u202f" not in system.host_processor
    assert system.host_processor.startswith("Intel Xeon 6448Y")
    # other_software_stack is a dict here: {"cuda_driver_version": ..., "vllm": "0.10.0"}
    names = [(c.kind, c.name, c.version) for c in system.stack.components]
    assert ("runtime", "vLLM", "0.10.0") in names
    assert ("platform", "CUDA", "12.8") in names
    assert "cuda_version: 12.8" in system.stack.raw


def test_google_todo_fields_become_none(shared_data: Path) -> None:
    path = shared_data / "mlperf/v4.0-transcribed/v4.0/closed/Google/systems/tpu_v5e_x4.json"
    system = read_system(path, "id")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["accelerators_per_node"] == "4"
    assert system.accelerators_total == 4
    assert system.accelerator == "TPU v5e"


def test_cpu_system_has_zero_accelerators_and_no_accelerator_name(shared_data: Path) -> None:
    path = shared_data / "mlperf/v5.1/closed/Cisco/systems/X210M8-1-node-2S-GNR_86C.json"
    system = read_system(path, "id")
    assert (system.accelerators_per_node, system.accelerators_total) == (0, 0)
    assert system.accelerator is None  # "N/A"


def test_multi_node_total(shared_data: Path) -> None:
    path = (
        shared_data
        / "mlperf/v5.1/open/AMD_MangoBoost/systems/64xMI355X-PollaraCluster-EPYC9575F.json"
    )
    system = read_system(path, "id")
    assert (system.nodes, system.accelerators_per_node, system.accelerators_total) == (8, 8, 64)


@pytest.mark.parametrize(
    ("value", "expected", "noted"),
    [
        (8, 8, False),
        ("8", 8, False),
        (" 8\u202f", 8, False),
        (8.0, 8, False),
        ("TODO", None, True),
        ("", None, True),
        ("eight", None, True),
        (True, None, True),
        ({"count": 8}, None, True),
        (None, None, False),
    ],
)
def test_clean_int(value: object, expected: int | None, noted: bool) -> None:
    notes: list[str] = []
    assert clean_int(value, "field", notes) == expected
    assert bool(notes) is noted


def test_unreadable_counts_leave_total_unknown_with_a_note() -> None:
    system = normalise_system(
        {"number_of_nodes": "TODO", "accelerators_per_node": 8}, path="x.json", system_id="id"
    )
    assert system.accelerators_total is None
    assert system.notes == ("number_of_nodes: 'TODO' is a placeholder, not a count",)


def test_bad_system_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "division": "closed",\n  oops\n}', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken.json:3:3: not valid JSON"):
        read_system(broken, "id")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="must be a JSON object"):
        read_system(listed, "id")
    with pytest.raises(InputError, match="no such file"):
        read_system(tmp_path / "absent.json", "id")
