"""``inspect`` without ``--json`` describes the runs and never dumps every run as JSON (for a
file of 50,000 appended runs that dump alone took seconds); with ``--json`` it does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.readers.base import ParsedInput

REAL = "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json"


def test_text_output_dumps_no_run(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared_data / REAL
    dumped: list[int] = []
    original = ParsedInput.summary

    def counting(self: ParsedInput) -> dict[str, object]:
        dumped.append(len(self.runs))
        return original(self)

    monkeypatch.setattr(ParsedInput, "summary", counting)
    assert main(["inspect", str(path)]) == 0
    assert "  run " in capsys.readouterr().out
    assert dumped == []
    assert main(["inspect", "--json", str(path)]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert dumped == [1]
    assert len(report["runs"]) == 1
