"""guidellm ``benchmarks.yaml``: the real 0.8.1 report written as YAML gives the runs and figures
of its JSON twin; YAML that is not a guidellm report is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

GENERATED = "formats/guidellm/generated/benchmarks.json"


@pytest.fixture
def report_yaml(shared_data: Path, tmp_path: Path) -> Path:
    doc = json.loads((shared_data / GENERATED).read_text())
    path = tmp_path / "benchmarks.yaml"
    # sorted keys, as PyYAML writes by default; libyaml's safe dumper for speed
    path.write_text(yaml.dump(doc, Dumper=yaml.CSafeDumper))
    return path


def test_yaml_report_is_its_json_twin(shared_data: Path, report_yaml: Path) -> None:
    doc = json.loads((shared_data / GENERATED).read_text())  # what the YAML holds
    parsed = read_input(report_yaml)
    twin = read_input(shared_data / GENERATED)
    assert parsed.format_id == "guidellm-yaml"
    assert parsed.file.tool == "guidellm"
    assert parsed.file.tool_version == doc["metadata"]["guidellm_version"]
    assert len(parsed.runs) == len(doc["benchmarks"]) == 3
    for run, bench in zip(parsed.runs, doc["benchmarks"], strict=True):
        assert run.requests_completed == bench["metrics"]["request_totals"]["successful"]
        assert run.load.concurrency == bench["config"]["strategy"]["streams"]
        assert run.per_request_rows == len(bench["requests"]["successful"]) + len(
            bench["requests"]["errored"]
        ) + len(bench["requests"]["incomplete"])
        ttfts = sorted(r["time_to_first_token_ms"] for r in bench["requests"]["successful"])
        assert run.ttft is not None
        assert run.ttft.max_ms == pytest.approx(ttfts[-1])
    ignore = {"run_id", "format_id"}
    assert [r.model_dump(exclude=ignore) for r in parsed.runs] == [
        r.model_dump(exclude=ignore) for r in twin.runs
    ]


def test_yaml_that_is_not_a_guidellm_report(tmp_path: Path, report_yaml: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text(
        report_yaml.read_text().replace("type_: generative_benchmark", "type_: other_benchmark")
    )
    with pytest.raises(InputError, match="unknown format"):
        read_input(other)
    aliased = tmp_path / "aliased.yaml"
    aliased.write_text("benchmarks:\n- &b {type_: generative_benchmark}\n- *b\n")
    with pytest.raises(InputError, match="unknown format"):
        read_input(aliased)


def test_a_broken_yaml_report_names_the_line(tmp_path: Path, report_yaml: Path) -> None:
    text = report_yaml.read_text().replace("type_: generative_benchmark", "type_: [", 1)
    broken = tmp_path / "broken.yaml"
    broken.write_text(text)
    # Not recognisable any more: refused, never a traceback.
    with pytest.raises(InputError):
        read_input(broken)
