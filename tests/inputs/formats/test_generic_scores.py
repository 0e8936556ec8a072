"""evidencepack's own per-item scores format: JSONL with an optional header, and CSV."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from evidencepack.core.resources import schemas_dir
from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

DIGEST = "9b2d4e6f8a0c1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f"
HEADER = {
    "evidencepack_scores": "v1",
    "metric": "pass_rate",
    "direction": "higher_is_better",
    "model": {"name": "acme/summariser-70b", "digest": DIGEST},
    "precision": "fp8",
    "runtime": {"name": "vllm", "version": "0.9.2"},
    "dataset": {"name": "contracts-eval", "version": "2026.11"},
    "settings": {"temperature": 0},
}
ITEMS = [
    {"item_id": "c-1", "score": True, "label": "dates"},
    {"item_id": "c-2", "score": 0, "metadata": {"len": 812}},
    {"item_id": "c-3", "score": 1},
]


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_header_and_binary_items(tmp_path: Path) -> None:
    parsed = read_input(_write(tmp_path / "scores.jsonl", [HEADER, *ITEMS]))
    assert parsed.format_id == "evidencepack-scores"
    (s,) = parsed.score_sets
    assert (s.metric, s.kind, s.n_items, s.n_passed) == ("pass_rate", "binary", 3, 2)
    assert s.identity.model_digest == DIGEST
    assert s.identity.precision == "fp8"
    assert (s.identity.runtime_name, s.identity.runtime_version) == ("vllm", "0.9.2")
    assert s.dataset is not None
    assert s.dataset.name == "contracts-eval"
    assert parsed.items is not None
    assert parsed.items["label"].tolist() == ["dates", None, None]
    assert parsed.items["passed"].tolist() == [True, False, True]


def test_documents_validate_against_the_published_schemas() -> None:
    header = json.loads((schemas_dir() / "evidencepack-scores-header.v1.schema.json").read_text())
    item = json.loads((schemas_dir() / "evidencepack-scores-item.v1.schema.json").read_text())
    jsonschema.validate(HEADER, header)
    for line in ITEMS:
        jsonschema.validate(line, item)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"item_id": "x", "score": "high"}, item)


def test_items_without_header_are_continuous_and_anonymous(tmp_path: Path) -> None:
    parsed = read_input(
        _write(
            tmp_path / "s.jsonl", [{"item_id": "a", "score": 0.5}, {"item_id": "b", "score": 0.9}]
        )
    )
    (s,) = parsed.score_sets
    assert s.kind == "continuous"
    assert s.mean_item_score == pytest.approx(0.7)
    assert s.identity.model_name is None
    assert s.n_passed is None
    assert any("no header line" in w for w in s.warnings)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"item_id": "x", "score": "high"}, "line 3: score must be a number"),
        ({"item_id": 7, "score": 1}, "line 3: item_id must be text"),
        ({"item_id": "x", "score": 1, "colour": "red"}, "line 3: unknown key colour"),
        ({"item_id": "c-1", "score": 1}, "item_id 'c-1' appears 2 times"),
        ({"item_id": "x", "score": 1, "metadata": [1]}, "line 3: metadata must be an object"),
    ],
)
def test_bad_item_lines(tmp_path: Path, bad: dict[str, object], message: str) -> None:
    path = _write(tmp_path / "s.jsonl", [HEADER, ITEMS[0], bad])
    with pytest.raises(InputError, match=message):
        read_input(path)


def test_bad_header_is_located(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [{**HEADER, "direction": "up"}, *ITEMS])
    with pytest.raises(InputError, match=r"line 1: \$\.direction"):
        read_input(path)


def test_header_in_the_middle_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [ITEMS[0], HEADER])
    with pytest.raises(InputError, match="line 2: unknown key evidencepack_scores"):
        read_input(path)


def test_nan_score_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"item_id": "a", "score": 1}\n{"item_id": "b", "score": NaN}\n')
    with pytest.raises(InputError, match="line 2: item 'b' has score nan"):
        read_input(path)


def test_csv(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item_id,score,label\na,1,x\nb,false,y\nc,true,\n")
    parsed = read_input(path)
    assert parsed.format_id == "evidencepack-scores-csv"
    (s,) = parsed.score_sets
    assert (s.kind, s.n_items, s.n_passed) == ("binary", 3, 2)
    assert s.identity.model_name is None


def test_csv_bad_score_is_located(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item_id,score\na,1\nb,lots\n")
    with pytest.raises(InputError, match="line 3: score 'lots' is not a number"):
        read_input(path)
