"""lm-evaluation-harness 0.4.13 results and samples (real files), read against their own fields."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.formats.lm_eval import model_args
from evidencepack.readers.registry import read_input

from ..builders import write_json

GEN = "formats/lm-eval/generated"


def _results(shared_data: Path) -> Path:
    return next((shared_data / GEN).glob("results_*.json"))


def test_results_give_one_set_per_task_metric_and_filter(shared_data: Path) -> None:
    path = _results(shared_data)
    doc = json.loads(path.read_text())
    parsed = read_input(path)
    assert parsed.format_id == "lm-eval-results"
    assert parsed.file.tool_version == doc["lm_eval_version"]
    found = {(s.task, s.metric, s.filter): s for s in parsed.score_sets}
    expected = {
        (task, key.split(",")[0], key.split(",")[1])
        for task, entry in doc["results"].items()
        for key in entry
        if "," in key and "_stderr," not in key
    }
    assert set(found) == expected
    acc = found[("demo_arith_mc", "acc", "none")]
    assert acc.value == doc["results"]["demo_arith_mc"]["acc,none"]
    assert acc.stderr == doc["results"]["demo_arith_mc"]["acc_stderr,none"]
    assert acc.task_hash == doc["task_hashes"]["demo_arith_mc"]
    assert acc.direction == "higher_is_better"
    assert acc.n_items == doc["n-samples"]["demo_arith_mc"]["effective"]
    assert acc.identity.runtime_name == doc["config"]["model"]
    assert acc.identity.batch_size == doc["config"]["batch_size"]


def test_stderr_na_and_model_args_string(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads(_results(shared_data).read_text())
    doc["results"]["demo_arith_mc"]["acc_stderr,none"] = "N/A"
    doc["config"]["model"] = "vllm"
    doc["config"]["model_args"] = "pretrained=acme/summariser-70b,dtype=bfloat16,revision=abc123"
    parsed = read_input(write_json(tmp_path / "results.json", doc))
    acc = next(s for s in parsed.score_sets if s.metric == "acc")
    assert acc.stderr is None
    assert any("N/A" in w for w in acc.warnings)
    who = acc.identity
    assert (who.model_name, who.precision, who.model_revision) == (
        "acme/summariser-70b",
        "bfloat16",
        "abc123",
    )
    assert (who.runtime_name, who.runtime_version) == ("vllm", None)


def test_model_args_accepts_string_and_object() -> None:
    assert model_args("pretrained=a,dtype=float16") == {"pretrained": "a", "dtype": "float16"}
    assert model_args({"pretrained": "a"}) == {"pretrained": "a"}
    assert model_args(None) == {}


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_a_nan_or_infinite_metric_is_dropped_and_named(
    shared_data: Path, tmp_path: Path, bad: str
) -> None:
    original = _results(shared_data)
    text = original.read_text().replace('"acc_norm,none": 0.1', f'"acc_norm,none": {bad}')
    assert text != original.read_text()
    path = tmp_path / "results.json"
    path.write_text(text)
    parsed = read_input(path)
    keys = {(s.task, s.metric) for s in parsed.score_sets}
    assert ("demo_arith_mc", "acc_norm") not in keys
    expected = {
        (task, key.partition(",")[0])
        for task, entry in json.loads(original.read_text())["results"].items()
        for key, value in entry.items()
        if "," in key and "_stderr," not in key and isinstance(value, int | float)
    } - {("demo_arith_mc", "acc_norm")}
    assert keys == expected
    (warning,) = parsed.warnings
    assert "$.results.demo_arith_mc.acc_norm,none" in warning
    assert "'acc_norm' dropped" in warning


def test_a_results_file_with_no_usable_metric_is_an_error(tmp_path: Path) -> None:
    doc = {
        "results": {"t": {"acc,none": float("nan"), "alias": "t"}},
        "configs": {},
        "lm_eval_version": "0.4.9",
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"without one usable metric.*acc,none"):
        read_input(path)


def test_samples_give_per_item_scores_and_the_task_hash(shared_data: Path) -> None:
    path = next((shared_data / GEN).glob("samples_demo_arith_mc_*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    doc = json.loads(_results(shared_data).read_text())
    parsed = read_input(path)
    assert parsed.format_id == "lm-eval-samples"
    by_metric = {s.metric: s for s in parsed.score_sets}
    assert set(by_metric) == set(rows[0]["metrics"])
    acc = by_metric["acc"]
    assert acc.kind == "binary"
    assert acc.n_items == len(rows)
    assert acc.n_passed == sum(int(r["acc"]) for r in rows)
    assert acc.mean_item_score == pytest.approx(doc["results"]["demo_arith_mc"]["acc,none"])
    digest = hashlib.sha256(
        "".join(r["doc_hash"] + r["prompt_hash"] + r["target_hash"] for r in rows).encode()
    ).hexdigest()
    assert acc.task_hash == digest == doc["task_hashes"]["demo_arith_mc"]
    assert parsed.items is not None
    ids = [
        i
        for i, s in zip(parsed.items["item_id"], parsed.items["set_index"], strict=True)
        if s == acc.index
    ]
    assert sorted(ids, key=int) == [str(r["doc_id"]) for r in rows]


def test_a_file_whose_only_metric_is_not_numeric_is_an_error(
    shared_data: Path, tmp_path: Path
) -> None:
    path = next((shared_data / GEN).glob("samples_demo_arith_gen_*.jsonl"))
    lines = path.read_text().splitlines()
    row = json.loads(lines[4])
    row["exact_match"] = ["a", 1]
    lines[4] = json.dumps(row)
    out = tmp_path / "samples.jsonl"
    out.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"nothing to score.*'exact_match'.*line 5"):
        read_input(out)
