"""Loading into the store: all or nothing, idempotent, bulk rows, and the queries back."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.errors import InputError, StoreError
from evidencepack.intake.load import load_input
from evidencepack.intake.stored import load_runs, load_score_sets, score_item_rows
from evidencepack.readers.registry import read_input
from evidencepack.store import Store

from .builders import requests, vllm_result, write_json

GEN = "formats/lm-eval/generated"


def test_runs_round_trip_with_rows_and_checks(tmp_path: Path) -> None:
    parsed = read_input(write_json(tmp_path / "v.json", vllm_result(requests(n=25, seed=51))))
    with Store(tmp_path / "e.duckdb") as store:
        load_input(store, parsed, role="runs", candidate="h200-vllm")
        load_input(store, parsed, role="runs", candidate="h200-vllm")  # a no-op
        (run,) = load_runs(store)
        assert run == parsed.runs[0].model_copy(update={"role": "runs", "candidate": "h200-vllm"})
        assert load_runs(store, candidate="other") == []
        rows = store.rows(
            "SELECT count(*) AS n, count(*) FILTER (WHERE ok) AS ok, "
            "quantile_cont(ttft_ms, 0.99) FILTER (WHERE ok) AS p99 FROM run_requests"
        )
        assert rows == [{"n": 25, "ok": 25, "p99": pytest.approx(run.ttft.p99_ms)}]  # type: ignore[union-attr]
        latency = store.rows("SELECT metric, source FROM run_latency ORDER BY metric")
        assert latency == [
            {"metric": m, "source": "per_request"} for m in ("e2e", "itl", "tpot", "ttft")
        ]
        assert store.rows("SELECT count(*) AS n FROM run_checks WHERE ok") == [
            {"n": len(run.checks)}
        ]
        files = store.rows("SELECT tool, role FROM files ORDER BY path")
        assert files == [{"tool": "vllm-bench-serve", "role": "runs"}]


def test_the_same_file_cannot_serve_two_candidates(tmp_path: Path) -> None:
    parsed = read_input(write_json(tmp_path / "v.json", vllm_result(requests(n=5), detailed=False)))
    store = Store()
    load_input(store, parsed, role="runs", candidate="a")
    with pytest.raises(InputError, match="already loaded as runs evidence for candidate 'a'"):
        load_input(store, parsed, role="runs", candidate="b")


def test_a_failed_load_leaves_nothing(tmp_path: Path) -> None:
    parsed = read_input(write_json(tmp_path / "v.json", vllm_result(requests(n=5, seed=52))))
    assert parsed.requests is not None
    broken = dict(parsed.requests)
    broken["no_such_column"] = broken.pop("ttft_ms")
    store = Store()
    with pytest.raises(StoreError):
        load_input(
            store,
            type(parsed)(**{**parsed.__dict__, "requests": broken}),
            role="runs",
            candidate="a",
        )
    for table in ("files", "serving_runs", "run_latency", "run_requests"):
        assert store.rows(f"SELECT count(*) AS n FROM {table}") == [{"n": 0}]


def test_samples_are_linked_to_their_results_by_task_hash(shared_data: Path) -> None:
    store = Store()
    for path in sorted((shared_data / GEN).glob("*.json*")):
        load_input(store, read_input(path), role="scores", candidate="c")
    sets = load_score_sets(store)
    samples = [s for s in sets if s.format_id == "lm-eval-samples"]
    assert len(samples) == 3
    for s in samples:
        twin = next(
            r
            for r in sets
            if r.format_id == "lm-eval-results"
            and r.task_hash == s.task_hash
            and r.metric == s.metric
        )
        assert s.task == twin.task
        assert s.value == twin.value
        assert s.identity == twin.identity
        assert s.mean_item_score == pytest.approx(twin.value)
    acc = next(s for s in samples if s.metric == "acc")
    rows = score_item_rows(store, acc.set_id)
    values = [r.score for r in rows]
    assert len(values) == 10
    assert sum(values) == acc.n_passed
    assert [r.passed for r in rows] == [v == 1.0 for v in values]
