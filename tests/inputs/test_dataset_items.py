"""The spec's dataset file read for its item ids (issue 37, point 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.intake import dataset_items
from evidencepack.intake.dataset_items import read_dataset_items
from evidencepack.intake.records import InputFile

from ..conftest import REPO_ROOT

SAMPLE_DATASET = REPO_ROOT / "samples" / "evidence" / "dataset" / "contracts-eval.jsonl"


def _file(name: str) -> InputFile:
    return InputFile(
        pack_path=f"inputs/{name}",
        spec_path=name,
        role="dataset",
        candidate=None,
        sha256="0" * 64,
        size_bytes=0,
    )


def _read(path: Path):  # type: ignore[no-untyped-def]
    return read_dataset_items(path, _file(path.name), path.name)


def test_the_sample_dataset_names_its_400_items() -> None:
    items = _read(SAMPLE_DATASET)
    assert items.problem is None
    assert items.key == "id"
    assert items.count == 400
    assert items.ids is not None
    assert {"ce-0001", "ce-0400"} <= items.ids


def test_a_json_array_and_a_csv_name_their_ids(tmp_path: Path) -> None:
    array = tmp_path / "d.json"
    array.write_text(json.dumps([{"doc_id": 0}, {"doc_id": 1}]))
    assert _read(array).ids == frozenset({"0", "1"})
    wrapped = tmp_path / "w.json"
    wrapped.write_text(json.dumps({"data": [{"item_id": "a"}, {"item_id": "b"}]}))
    assert _read(wrapped).ids == frozenset({"a", "b"})
    table = tmp_path / "d.csv"
    table.write_text("sample_id,prompt\nq1,x\nq2,y\n")
    assert _read(table).ids == frozenset({"q1", "q2"})


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("d.jsonl", '{"prompt": "x"}\n', "the items name no id"),
        ("d.jsonl", '{"id": "a"}\n{"id": "a"}\n', "line 2: id 'a' repeats"),
        ("d.jsonl", '{"id": "a"}\n{"id": null}\n', "line 2: id is not an id"),
        ("d.jsonl", '{"id": "a"}\nnot json\n', "cannot read its item ids"),
        ("d.parquet", "PAR1", "a .parquet file's item ids are not read"),
    ],
)
def test_a_file_without_usable_ids_is_matched_by_size(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    items = _read(path)
    assert items.ids is None
    assert items.problem is not None
    assert problem in items.problem
    assert name in items.problem


def test_a_huge_json_array_is_not_loaded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dataset_items, "MAX_JSON_DATASET_BYTES", 10)
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"id": "a"}, {"id": "b"}]))
    items = _read(path)
    assert items.ids is None
    assert "give the items as JSON lines" in (items.problem or "")
