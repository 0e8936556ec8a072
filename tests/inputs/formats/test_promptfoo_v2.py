"""promptfoo's older export (``results.version`` 2, a ``results.table``, no ``evalId``) is read
from its table with the same figures as version 3; a layout with neither is refused, located,
naming what the file holds and what the reader reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import write_json

V3 = "formats/promptfoo/generated/results.json"


def _v2(doc: dict[str, Any]) -> dict[str, Any]:
    """The same eval as promptfoo 0.2x-0.4x wrote it: EvaluateSummaryV2 (results, table,
    stats) under ``results``, beside ``config`` and ``shareableUrl``; no evalId, no metadata."""
    v3 = doc["results"]
    prompts = [
        {k: p[k] for k in ("raw", "label", "provider", "metrics") if k in p}
        | {"display": p["label"]}
        for p in v3["prompts"]
    ]
    body: dict[int, list[dict[str, Any]]] = {}
    for r in sorted(v3["results"], key=lambda r: (r["testIdx"], r["promptIdx"])):
        body.setdefault(r["testIdx"], []).append(
            {"pass": r["success"], "score": r["score"], "text": r["response"]["output"],
             "latencyMs": r["latencyMs"], "gradingResult": r["gradingResult"]}
        )  # fmt: skip
    old_results = [
        {k: r[k] for k in ("provider", "prompt", "vars", "response", "success", "score")}
        for r in v3["results"]
    ]
    return {
        "results": {
            "version": 2,
            "timestamp": v3["timestamp"],
            "results": old_results,
            "table": {
                "head": {"prompts": prompts, "vars": ["a", "answer", "b"]},
                "body": [{"outputs": outs, "vars": []} for _, outs in sorted(body.items())],
            },
            "stats": v3["stats"],
        },
        "config": doc["config"],
        "shareableUrl": None,
    }


def test_version_2_reads_as_version_3_does(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / V3).read_text())
    new = read_input(shared_data / V3)
    old = read_input(write_json(tmp_path / "output.json", _v2(doc)))
    assert old.format_id == "promptfoo-results"
    pairs = list(zip(new.score_sets, old.score_sets, strict=True))
    for a, b in pairs:
        assert (b.task, b.metric, b.identity.model_name) == (
            a.task,
            a.metric,
            a.identity.model_name,
        )
        assert (b.n_items, b.n_passed, b.mean_item_score) == (
            a.n_items,
            a.n_passed,
            a.mean_item_score,
        )
        assert b.value == a.value
    assert any("older export (results version 2" in w for w in old.warnings)


def test_a_layout_without_table_or_eval_id_is_refused_naming_both(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = _v2(json.loads((shared_data / V3).read_text()))
    del doc["results"]["table"]
    path = write_json(tmp_path / "output.json", doc)
    with pytest.raises(
        InputError, match=r"output\.json: \$\.results: promptfoo results version 2"
    ) as e:
        read_input(path)
    assert "reads results version 3" in str(e.value)
    assert "or 2 (results.table)" in str(e.value)
