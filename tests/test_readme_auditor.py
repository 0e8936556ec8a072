"""The auditor's walk-through (docs/guides/auditor.md) is real output: each ``$ command`` of its
text blocks runs (in a folder holding a copy of samples/ and two key pairs) and prints what the
guide shows, digests, key fingerprints and times aside (they differ on every run). ``[...]`` in a
block stands for lines not shown: the lines around it must then appear in that order."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidencepack._cli import main

from .conftest import REPO_ROOT

# slow: runs every command of the README's walk-through, builds and rebuilds
pytestmark = pytest.mark.slow

SECTION = "## The auditor's walk-through"
_VARYING = (
    (re.compile(r"[0-9a-f]{64}"), "<sha256>"),
    (re.compile(r"[0-9a-f]{16}\.\.\."), "<sha256>..."),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "<time>"),
    (re.compile(r"registered on \d{4}-\d\d-\d\d"), "registered on <date>"),
)


def _normal(line: str) -> str:
    for pattern, token in _VARYING:
        line = pattern.sub(token, line)
    return line.rstrip()


def _steps() -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of the section's text blocks and the lines shown after it."""
    guide = (REPO_ROOT / "docs" / "guides" / "auditor.md").read_text(encoding="utf-8")
    start = guide.index(SECTION)
    end = guide.find("\n## ", start + len(SECTION))
    section = guide[start : end if end != -1 else len(guide)]
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```text\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def _run(command: str, cwd: Path) -> list[str]:
    argv = shlex.split(command)
    if argv[0] == "evidencepack":
        argv = [sys.executable, "-m", "evidencepack", *argv[1:]]
    else:
        assert argv[0] == "python3", command
        argv[0] = sys.executable
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout.splitlines()


def _matches(shown: list[str], printed: list[str]) -> bool:
    want = [_normal(line) for line in shown]
    got = [_normal(line) for line in printed]
    if "[...]" not in want:
        return want == got
    at = 0
    for line in (w for w in want if w != "[...]"):
        try:
            at = got.index(line, at) + 1
        except ValueError:
            return False
    return True


def test_the_auditor_walk_through_prints_what_the_guide_shows(tmp_path: Path) -> None:
    shutil.copytree(
        REPO_ROOT / "samples", tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
    )
    shutil.copytree(tmp_path / "samples", tmp_path / "later")
    spec = tmp_path / "later" / "pack.yaml"
    spec.write_text(spec.read_text().replace("threshold: 0.80", "threshold: 0.85", 1))
    for name in ("team", "other"):
        key, pub = tmp_path / f"{name}.key.pem", tmp_path / f"{name}.pub.pem"
        argv = ["keygen", "--no-passphrase", "--private-key", str(key), "--public-key", str(pub)]
        assert main(argv) == 0
    steps = _steps()
    assert len(steps) >= 6
    for command, shown in steps:
        printed = _run(command, tmp_path)
        assert _matches(shown, printed), f"$ {command}\n" + "\n".join(printed)
