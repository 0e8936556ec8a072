"""Progress on stderr: stages and counts on a terminal; nothing under --json or off a terminal."""

from __future__ import annotations

import datetime as dt
import io
import sys

import pytest

from evidencepack._cli import main
from evidencepack.api import CheckOptions, check
from evidencepack.core import progress
from evidencepack.render.pdf import render_pdf

from .conftest import SAMPLE_SPEC


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lines(text: str) -> list[str]:
    """What a terminal finally shows: each carriage return overwrites its line."""
    return [line.rsplit("\r", 1)[-1] for line in text.split("\n") if line]


def test_check_on_a_terminal_shows_stages_and_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main(["check", str(SAMPLE_SPEC)]) == 0
    shown = _lines(err.getvalue())
    assert shown[0] == f"evidencepack: reading and hashing the inputs of {SAMPLE_SPEC}"
    assert "evidencepack: reading the evidence of mi325x-vllm" in shown
    # Per candidate: five measured runs (five files each), one score file and one MLPerf
    # result of six files (detail, summary, system, measurements, user.conf, accuracy), each
    # read once into its private copy: 32 files hashed.
    assert shown.count("  results imported: 7, inputs hashed: 32") == 3, shown
    assert shown[-1] == "evidencepack: analysing: checks, capacity, cost, quality, decision"


def test_a_library_caller_hands_in_its_own_reporter(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No terminal, nothing global: the reporter the caller hands in gets the stages and
    counts, then ``finish`` once, and the stages are logged on the evidencepack logger."""

    class Collecting:
        def __init__(self) -> None:
            self.stages: list[str] = []
            self.counts: dict[str, int] = {}
            self.finished = 0

        def stage(self, text: str) -> None:
            self.stages.append(text)

        def count(self, label: str, n: int) -> None:
            self.counts[label] = self.counts.get(label, 0) + n

        def finish(self) -> None:
            self.finished += 1

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    mine = Collecting()
    caplog.set_level("INFO", logger="evidencepack")
    check(SAMPLE_SPEC, CheckOptions(reporter=mine))
    assert mine.stages[0] == f"reading and hashing the inputs of {SAMPLE_SPEC}"
    assert "reading the evidence of b200-trtllm" in mine.stages
    assert mine.counts["results imported"] == 21
    assert mine.finished == 1
    assert err.getvalue() == ""
    assert any(
        r.name == "evidencepack.core.progress" and "b200-trtllm" in r.message
        for r in caplog.records
    )


@pytest.mark.parametrize(
    ("stream", "args"),
    [(Terminal, ["check", "--json"]), (io.StringIO, ["check"])],
    ids=["json-on-a-terminal", "not-a-terminal"],
)
def test_nothing_extra_under_json_or_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, stream: type[io.StringIO], args: list[str]
) -> None:
    err = stream()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main([*args, str(SAMPLE_SPEC)]) == 0
    assert err.getvalue() == ""


def test_pages_rendered_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    counted = progress.Progress(progress.TerminalReporter(sys.stderr))
    html = "<html><body>" + "".join(f"<p style='break-after: page'>{i}</p>" for i in range(3))
    render_pdf(
        html + "</body></html>",
        attachments=[],
        created=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        progress=counted,
    )
    counted.finish()
    assert _lines(err.getvalue()) == ["  pages rendered: 3"]
