"""inspect-ai logs: the real .eval (zstd, and an older deflate one) and .json files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers import _zip
from evidencepack.readers.formats.inspect_ai import score_value
from evidencepack.readers.registry import read_input

GEN = "formats/inspect-ai/generated"
FIX = "formats/inspect-ai/repo_fixtures"
ARITH_JSON = "2026-11-30T05-03-12-00-00_arith_6K5jXqkC8Q8GYRTv6FcCgL.json"


def test_zstd_eval_matches_its_json_twin_and_header(shared_data: Path) -> None:
    path = next((shared_data / GEN).glob("*.eval"))
    with _zip.ZipReader(path) as archive:
        header = json.loads(archive.read("header.json"))
    assert {i.compress_type for i in zipfile.ZipFile(path).infolist()} == {_zip.ZSTD_METHOD}
    parsed = read_input(path)
    assert parsed.format_id == "inspect-ai-eval"
    assert parsed.file.tool_version == header["eval"]["packages"]["inspect_ai"]
    scores = {s["name"]: s for s in header["results"]["scores"]}
    assert {s.scorer for s in parsed.score_sets} == set(scores)
    for s in parsed.score_sets:
        assert s.value == scores[s.scorer]["metrics"]["accuracy"]["value"]
        assert s.n_items == header["results"]["completed_samples"]
        assert s.kind == "binary"
        assert s.mean_item_score == s.value
        assert s.identity.model_name == header["eval"]["model"]
        assert s.task == header["eval"]["task"]


def test_json_log_reads_sample_scores(shared_data: Path) -> None:
    path = shared_data / FIX / "2025-05-12T20-28-13-04-00_popularity.json"
    doc = json.loads(path.read_text())
    (s,) = read_input(path).score_sets
    values = [score_value(x["scores"]["match"]["value"]) for x in doc["samples"]]
    assert s.n_items == len(values)
    assert s.n_passed == sum(1 for v in values if v == 1.0)
    assert s.mean_item_score == pytest.approx(
        doc["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    )
    assert s.stderr == doc["results"]["scores"][0]["metrics"]["stderr"]["value"]
    # A cancelled eval: its scores are kept, the partial run said plainly.
    assert doc["status"] == "cancelled"
    unfinished = f"only its {len(values)} sample(s) of the {doc['eval']['dataset']['samples']}"
    assert any(unfinished in w and "'cancelled'" in w for w in s.warnings)


def test_eval_without_scores_is_refused(shared_data: Path) -> None:
    # Like a serving file with no completed request: nothing was measured, exit 1.
    with pytest.raises(InputError, match=r"holds no scored sample \(10 sample\(s\), status "
                       r"success\): nothing was measured"):  # fmt: skip
        read_input(next((shared_data / FIX).glob("*.eval")))


def test_a_dict_valued_scorer_names_each_key_as_its_metric(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared_data / GEN / ARITH_JSON).read_text())
    for k, sample in enumerate(doc["samples"]):
        sample["scores"]["match"]["value"] = {"correct": k % 2, "format": 1.0 - 0.25 * k}
    doc["results"]["scores"][0] = dict(doc["results"]["scores"][0], name="correct", scorer="match")
    format_entry = json.loads(json.dumps(doc["results"]["scores"][0]))
    format_entry["name"] = "format"
    format_entry["metrics"] = {"mean": {"name": "mean", "value": 0.75, "params": {}}}
    doc["results"]["scores"].append(format_entry)
    path = tmp_path / "dict_scores.json"
    path.write_text(json.dumps(doc))
    sets = {(s.scorer, s.metric): s for s in read_input(path).score_sets}
    assert set(sets) == {("match", "correct"), ("match", "format"), ("includes", "accuracy")}
    n = len(doc["samples"])
    fmt = sets[("match", "format")]
    assert fmt.mean_item_score == pytest.approx(sum(1.0 - 0.25 * k for k in range(n)) / n)
    assert fmt.value == 0.75
    correct = sets[("match", "correct")]
    assert correct.n_passed == sum(k % 2 for k in range(n))
    assert correct.value == doc["results"]["scores"][0]["metrics"]["accuracy"]["value"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("C", 1.0),
        ("I", 0.0),
        ("P", 0.5),
        ("N", 0.0),
        (True, 1.0),
        (0.25, 0.25),
        ("0.7", 0.7),
        ("yes", 1.0),
        ("maybe", None),
        ([1], None),
    ],
)
def test_score_values(value: object, expected: float | None) -> None:
    assert score_value(value) == expected


def test_truncated_eval_zip(shared_data: Path, tmp_path: Path) -> None:
    data = next((shared_data / GEN).glob("*.eval")).read_bytes()
    path = tmp_path / "cut.eval"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cut.eval: truncated or corrupt zip"):
        read_input(path)


def test_corrupt_zstd_member_is_named(shared_data: Path, tmp_path: Path) -> None:
    src = next((shared_data / GEN).glob("*.eval"))
    data = bytearray(src.read_bytes())
    info = zipfile.ZipFile(src).getinfo("samples/2_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 40
    data[start : start + 16] = b"\xff" * 16
    path = tmp_path / "bad.eval"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"member samples/2_epoch_1\.json"):
        read_input(path)


def test_the_grader_model_of_model_roles_is_read(shared_data: Path, tmp_path: Path) -> None:
    """inspect-ai's ``eval.model_roles`` names the model that graded the samples (issue 37):
    kept as the set's ``judge_model`` setting, which the analysis compares with the candidate's
    model."""
    doc = json.loads((shared_data / GEN / ARITH_JSON).read_text())
    doc["eval"]["model_roles"] = {"grader": {"model": "openai/gpt-4o-2024-08-06", "config": {}}}
    path = tmp_path / "graded.json"
    path.write_text(json.dumps(doc))
    for s in read_input(path).score_sets:
        assert s.identity.settings["judge_model"] == "openai/gpt-4o-2024-08-06"
    for s in read_input(shared_data / GEN / ARITH_JSON).score_sets:
        assert "judge_model" not in s.identity.settings
