"""promptfoo 0.121.20 results.json (real), read against its own fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import write_json

RESULTS = "formats/promptfoo/generated/results.json"


def test_real_results(shared_data: Path) -> None:
    path = shared_data / RESULTS
    doc = json.loads(path.read_text())
    parsed = read_input(path)
    assert parsed.format_id == "promptfoo-results"
    assert parsed.file.tool_version == doc["metadata"]["promptfooVersion"]
    (s,) = parsed.score_sets  # every graded score equals its pass/fail here
    metrics = doc["results"]["prompts"][0]["metrics"]
    assert s.metric == "pass"
    assert s.kind == "binary"
    assert s.n_items == len(doc["results"]["results"])
    assert s.n_passed == metrics["testPassCount"] == doc["results"]["stats"]["successes"]
    assert s.value == pytest.approx(
        metrics["testPassCount"] / (metrics["testPassCount"] + metrics["testFailCount"])
    )
    assert s.identity.model_name == doc["results"]["results"][0]["provider"]["label"]


def test_graded_scores_add_a_continuous_set(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / RESULTS).read_text())
    doc["results"]["results"][0]["score"] = 0.75
    parsed = read_input(write_json(tmp_path / "results.json", doc))
    assert [s.metric for s in parsed.score_sets] == ["pass", "score"]
    assert parsed.score_sets[1].kind == "continuous"


def test_a_result_without_success_is_located(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / RESULTS).read_text())
    del doc["results"]["results"][1]["success"]
    with pytest.raises(InputError, match=r"\$\.results\.results\[1\]\.success"):
        read_input(write_json(tmp_path / "results.json", doc))
