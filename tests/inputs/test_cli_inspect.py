"""``evidencepack inspect``: summaries, --json, and exit 1 for a file it cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main

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
