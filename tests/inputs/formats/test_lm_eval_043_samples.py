"""lm-eval 0.4.0-0.4.3 per-sample files: rows without ``filter`` or ``metrics``, the metric values
on each row. The task is in lm-eval's file name (``samples_<task>_<timestamp>.jsonl``); a filter
the rows do not record is unknown (None), never "none", until the results file names it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.intake.load import load_input
from evidencepack.intake.stored import load_score_sets
from evidencepack.readers.registry import read_input
from evidencepack.store import Store

from ..builders import write_jsonl

GEN = "formats/lm-eval/generated"
RESULTS = f"{GEN}/results_2026-11-30T05-02-28.257527.json"
NAME = "samples_demo_arith_mc_2024-06-17T12-34-56.123456.jsonl"


def _old_rows(shared_data: Path) -> list[dict[str, Any]]:
    path = next((shared_data / GEN).glob("samples_demo_arith_mc_*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:  # 0.4.3 writes neither key
        row.pop("filter")
        row.pop("metrics")
    return rows


def test_task_from_the_file_name_and_an_unknown_filter(shared_data: Path, tmp_path: Path) -> None:
    rows = _old_rows(shared_data)
    parsed = read_input(write_jsonl(tmp_path / NAME, rows))
    acc = next(s for s in parsed.score_sets if s.metric == "acc")
    assert acc.task == "demo_arith_mc"
    assert acc.filter is None
    assert acc.n_items == len(rows)
    assert acc.mean_item_score == pytest.approx(sum(r["acc"] for r in rows) / len(rows))
    assert any("unknown, not 'none'" in w for w in acc.warnings)
    assert any("taken from the file name" in w for w in acc.warnings)


def test_a_file_not_named_by_lm_eval_names_no_task(shared_data: Path, tmp_path: Path) -> None:
    parsed = read_input(write_jsonl(tmp_path / "mc.jsonl", _old_rows(shared_data)))
    assert {s.task for s in parsed.score_sets} == {None}


def test_the_results_file_names_the_filter(shared_data: Path, tmp_path: Path) -> None:
    results = json.loads((shared_data / RESULTS).read_text())
    samples = write_jsonl(tmp_path / NAME, _old_rows(shared_data))
    store = Store()
    try:
        load_input(store, read_input(shared_data / RESULTS), role="scores", candidate="a")
        load_input(store, read_input(samples), role="scores", candidate="a")
        sets = load_score_sets(store, candidate="a")
    finally:
        store.close()
    acc = next(s for s in sets if s.format_id == "lm-eval-samples" and s.metric == "acc")
    assert acc.task == "demo_arith_mc"
    assert acc.filter == "none"  # the results file's only filter for the task and metric
    assert acc.value == results["results"]["demo_arith_mc"]["acc,none"]
    assert not any("unknown, not 'none'" in w for w in acc.warnings)


def test_instruction_level_metrics_count_prompts(tmp_path: Path) -> None:
    """ifeval's ``inst_level_*`` average over instructions; the items are the 541 prompts."""
    doc = {
        "results": {
            "ifeval": {
                "alias": "ifeval",
                "prompt_level_strict_acc,none": 0.55,
                "prompt_level_strict_acc_stderr,none": 0.02,
                "inst_level_strict_acc,none": 0.66,
                "inst_level_strict_acc_stderr,none": "N/A",
            }
        },
        "versions": {"ifeval": 4.0},
        "n-samples": {"ifeval": {"original": 541, "effective": 541}},
        "config": {"model": "hf", "model_args": "pretrained=acme/m"},
        "lm_eval_version": "0.4.3",
    }
    path = tmp_path / "results_2024-06-17T12-34-56.123456.json"
    path.write_text(json.dumps(doc))
    sets = {s.metric: s for s in read_input(path).score_sets}
    assert sets["inst_level_strict_acc"].n_items == 541
    assert sets["prompt_level_strict_acc"].n_items == 541
    assert any("not the instructions" in w for w in sets["inst_level_strict_acc"].warnings)
    assert not any("instruction" in w for w in sets["prompt_level_strict_acc"].warnings)
