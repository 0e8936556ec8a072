"""A summary file checked against the per-request file of the same run, once both are stored."""

from __future__ import annotations

import json
from pathlib import Path

from evidencepack.inputs.load import load_input
from evidencepack.inputs.registry import read_input
from evidencepack.inputs.stored import load_runs
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
