"""Progress on stderr: stages and counts on a terminal; nothing under --json or off a terminal."""

from __future__ import annotations

import datetime as dt
import io
import sys

import pytest

from evidencepack import progress
from evidencepack._cli import main
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
    assert not progress._state["on"]  # main turns it off again


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
    progress.enable(True)
    try:
        html = "<html><body>" + "".join(f"<p style='break-after: page'>{i}</p>" for i in range(3))
        render_pdf(
            html + "</body></html>", attachments=[], created=dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        )
    finally:
        progress.enable(False)
    assert _lines(err.getvalue()) == ["  pages rendered: 3"]
