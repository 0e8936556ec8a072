"""Markdown for a pull-request comment or a job summary (``check --markdown``, ``diff --markdown``,
``watch.md``) never autolinks a bare URL, e-mail address or mention that came from the spec or
a pack (issue 42, left from round two): each is set in a code span, which GitHub neither links
nor turns into a notification. A guard: the case no longer reproduces on main."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.commands.check_outputs import markdown
from evidencepack.diff.summary import md

from ..conftest import REPO_ROOT

HOSTILE = (
    "see https://evil.example/approve?a=1 or HTTPS://Evil.example/x, www.evil.example/login, "
    "mail ops@evil.example, ping @octocat and @acme/release-team, ftp://evil.example/f"
)


def _bare(text: str) -> list[str]:
    """Every URL, e-mail address or mention outside a code span."""
    plain = re.sub(r"`[^`\n]*`", "", text)
    found = re.findall(r"[A-Za-z][A-Za-z0-9+.-]*://\S+|www\.\S+", plain, flags=re.IGNORECASE)
    found += re.findall(r"[\w.+-]+@[\w-]+\.\w+|(?<![\w`])@[A-Za-z0-9][\w.-]*", plain)
    return found


def test_md_sets_every_link_and_mention_in_a_code_span() -> None:
    out = md(HOSTILE)
    assert _bare(out) == [], out
    for token in ("`https://evil.example/approve?a=1`", "`www.evil.example/login`",
                  "`ops@evil.example`", "`@octocat`", "`ftp://evil.example/f`"):  # fmt: skip
        assert token in out, out


def test_check_markdown_of_a_decision_quoting_the_spec_links_nothing() -> None:
    base = json.loads((REPO_ROOT / "tests" / "golden" / "sample-decision.json").read_text())
    base["summary"] = HOSTILE
    base["checks"][0]["reason"] = HOSTILE
    base["checks"][0]["status"] = "FAIL"
    base["waivers_rejected"] = [HOSTILE]
    text = markdown(DecisionDocument.model_validate(base))
    assert text.count("`https://evil.example/approve?a=1`") == 3, text
    assert _bare(text) == [], _bare(text)


def test_check_markdown_of_an_invalid_spec_links_nothing(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    with spec.open("a", encoding="utf-8") as handle:
        handle.write(f'"{HOSTILE}": 1\n')
    assert main(["check", str(spec), "--markdown"]) != 0
    out = capsys.readouterr().out
    assert "`https://evil.example/approve?a=1`" in out, out
    assert _bare(out) == [], out
