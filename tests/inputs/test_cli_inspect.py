"""``evidencepack inspect``: summaries, --json, and exit 1 for a file it cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main

from .builders import requests, vllm_result, write_json

AIPERF = "formats/aiperf/generated/profile_export_aiperf.json"
PROMPTFOO = "formats/promptfoo/generated/results.json"


def test_text_summary(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(shared_data / AIPERF), str(shared_data / PROMPTFOO)]) == 0
    out = capsys.readouterr().out
    assert "aiperf-summary (aiperf 0.13.0)" in out
    assert "TPOT mean 3.39" in out
    assert "[tpot_excl_first, per request, tool_aggregate]" in out
    assert "promptfoo-results (promptfoo 0.121.20)" in out
    assert "binary" in out


def test_json_and_unreadable_file(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("nothing to see\n")
    assert main(["inspect", "--json", str(shared_data / AIPERF), str(bad)]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [r["ok"] for r in reports] == [True, False]
    assert reports[0]["format"] == "aiperf-summary"
    assert reports[0]["runs"][0]["ttft"]["definition"] == "ttft"
    assert "unknown format" in reports[1]["error"]


def test_no_files_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect"]) == 2


INSPECT_FIX = "formats/inspect-ai/repo_fixtures"


def test_unfinished_and_empty_files_are_treated_alike(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing measured is refused (exit 1) for a serving file and an eval log alike; a
    cancelled eval that scored some samples is read, the partial run said plainly."""
    cancelled = shared_data / INSPECT_FIX / "2025-05-12T20-28-13-04-00_popularity.json"
    assert main(["inspect", str(cancelled)]) == 0
    out = capsys.readouterr().out
    assert "warning: the eval did not finish (status 'cancelled')" in out
    unscored = next((shared_data / INSPECT_FIX).glob("*.eval"))
    assert main(["inspect", str(unscored)]) == 1
    assert "nothing was measured" in capsys.readouterr().out
    empty = vllm_result(requests(n=5, seed=1), detailed=False)
    empty["completed"] = 0
    assert main(["inspect", str(write_json(tmp_path / "empty.json", empty))]) == 1
    assert "nothing was measured" in capsys.readouterr().out


def test_each_warning_of_a_detailed_vllm_file_is_printed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = vllm_result(requests(n=30, seed=4))  # detailed: per-request arrays
    result["p99_ttft_ms"] *= 1.5  # a figure its own rows contradict: one warning
    assert main(["inspect", str(write_json(tmp_path / "v.json", result))]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "warning:" in line]
    assert lines
    assert len(lines) == len(set(lines)), lines
    assert sum("ttft p99: the tool reports" in line for line in lines) == 1


def test_references_are_printed_with_their_provenance(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    infx = next((shared_data / "formats/inferencex/public").glob("agg_kimik2.5_1k1k_*.json"))
    estimate = shared_data / "formats/aiconfigurator/generated/agg/best_config_topn.csv"
    assert main(["inspect", str(infx), str(estimate)]) == 0
    out = capsys.readouterr().out
    doc = json.loads(infx.read_text())
    assert "inferencex-agg (inferencex)" in out
    assert f"(measured elsewhere, inferencex): 8x {doc['hw']}; model {doc['model']}" in out
    assert "(SIMULATED, aiconfigurator): 2x h200_sxm; model Qwen/Qwen3-32B" in out
    assert "--ignore-eos" in out
    assert main(["inspect", "--json", str(infx)]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    (point,) = report["references"]
    assert point["provenance"] == "measured_elsewhere"
    assert point["figures"]["throughput_per_accelerator"] == doc["tput_per_gpu"]
