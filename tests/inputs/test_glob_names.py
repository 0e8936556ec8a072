"""DuckDB's file readers expand glob characters: a file whose name holds ``[``, ``*`` or ``?``
must be read itself, never the files its name would match (``scores[1].jsonl`` is not
``scores1.jsonl``). Every reader passes its file through ``store.connection.literal_path``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.readers.registry import read_input


def _scores(path: Path, passed: int, items: int = 4) -> Path:
    header = {"evidencepack_scores": "v1", "metric": "pass_rate", "model": {"name": "m"}}
    lines = [json.dumps(header)]
    lines += [
        json.dumps({"item_id": f"i{i}", "score": 1 if i < passed else 0}) for i in range(items)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["scores[1].jsonl", "scores?.jsonl", "scores*.jsonl"])
def test_a_file_name_with_glob_characters_reads_only_that_file(tmp_path: Path, name: str) -> None:
    _scores(tmp_path / "scores1.jsonl", passed=0)
    _scores(tmp_path / "scoresX.jsonl", passed=1)
    mine = _scores(tmp_path / name, passed=4)
    (score_set,) = read_input(mine).score_sets
    assert score_set.n_items == 4
    assert score_set.mean_item_score == 1.0
