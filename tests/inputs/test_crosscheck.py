"""A summary file checked against the per-request file of the same run, once both are stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidencepack.intake.load import load_input
from evidencepack.intake.stored import load_runs
from evidencepack.readers.registry import read_input
from evidencepack.store import Store

from .builders import llmperf_responses, llmperf_summary, requests, write_json

AIPERF = "formats/aiperf/generated"


def _load(store: Store, *paths: Path, candidate: str = "c") -> None:
    for path in paths:
        load_input(store, read_input(path), role="runs", candidate=candidate)


def test_aiperf_summary_json_and_csv_agree_with_the_per_request_file(shared_data: Path) -> None:
    store = Store()
    folder = shared_data / AIPERF
    _load(
        store,
        folder / "profile_export.jsonl",
        folder / "profile_export_aiperf.json",
        folder / "profile_export_aiperf.csv",
    )
    runs = {r.format_id: r for r in load_runs(store)}
    detail = runs["aiperf-requests"]
    for fmt in ("aiperf-summary", "aiperf-csv"):
        summary = runs[fmt]
        assert summary.checks, fmt
        assert all(c.ok for c in summary.checks), [c for c in summary.checks if not c.ok]
        assert {c.metric for c in summary.checks} == {"ttft", "tpot", "itl", "e2e"}
        assert f"checked against the per-request rows of {detail.run_id}" in summary.warnings
    rows = store.rows(
        "SELECT DISTINCT against_run_id AS a FROM run_checks WHERE against_run_id IS NOT NULL "
        "ORDER BY a"
    )
    assert rows == [{"a": detail.run_id}]


def test_a_summary_that_disagrees_is_reported(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / AIPERF / "profile_export_aiperf.json").read_text())
    doc["time_to_first_token"]["p99"] *= 2
    store = Store()
    _load(
        store,
        write_json(tmp_path / "summary.json", doc),
        shared_data / AIPERF / "profile_export.jsonl",
    )
    summary = next(r for r in load_runs(store) if r.format_id == "aiperf-summary")
    bad = [(c.metric, c.statistic) for c in summary.checks if not c.ok]
    assert bad == [("ttft", "p99")]
    assert any(w.startswith("ttft p99: the tool reports") for w in summary.warnings)


def test_llmperf_pair_without_times_and_other_candidates(tmp_path: Path) -> None:
    r = requests(n=30, seed=61)
    summary = write_json(tmp_path / "s_summary.json", llmperf_summary(r))
    responses = write_json(tmp_path / "s_individual_responses.json", llmperf_responses(r))
    store = Store()
    _load(store, summary, candidate="a")
    _load(store, responses, candidate="b")  # another candidate: not companions
    assert all(not run.checks for run in load_runs(store))
    store = Store()
    _load(store, summary, responses)
    linked = next(run for run in load_runs(store) if run.format_id == "llmperf-summary")
    assert linked.checks
    assert all(c.ok for c in linked.checks)
    assert {c.metric for c in linked.checks} == {"ttft", "itl", "e2e"}


def _statements_to_load(store: Store, path: Path) -> int:
    """How many statements the store runs to load ``path`` (read first, outside the count)."""
    parsed = read_input(path)
    sent = [0]
    execute = store.execute

    def counted(*args: Any, **kwargs: Any) -> Any:
        sent[0] += 1
        return execute(*args, **kwargs)

    store.execute = counted  # type: ignore[method-assign]
    try:
        load_input(store, parsed, role="runs", candidate="c")
    finally:
        del store.execute
    return sent[0]


def test_a_summary_finds_its_companions_by_key_not_by_reading_every_stored_run(
    tmp_path: Path,
) -> None:
    """Issue 29: pairing a new summary asked the store once per stored run of its tool (and
    validated each), so loading many run files was quadratic. Now the count is in the lookup:
    loading a summary costs the same whether 2 or 12 per-request runs are stored."""
    costs = []
    for stored in (2, 12):
        store = Store()
        for seed in range(stored):
            r = requests(n=30, seed=100 + seed)
            _load(
                store,
                write_json(tmp_path / f"{seed}_individual_responses.json", llmperf_responses(r)),
            )
        r = requests(n=30, seed=99)
        summary = write_json(tmp_path / f"s{stored}_summary.json", llmperf_summary(r))
        costs.append(_statements_to_load(store, summary))
    assert costs[0] == costs[1]
