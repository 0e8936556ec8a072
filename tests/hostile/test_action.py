"""The action and CI outputs attacked (issue 42): an input that is an option never reaches the
command as one, and ``check --junit`` writes well-formed XML whatever an evidence file holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from ..conftest import REPO_ROOT, SAMPLE_SPEC
from .harness import run


def _run_step(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    """The action's "Run evidencepack" step, as the runner runs it, with ``evidencepack`` on the
    PATH as this checkout's CLI (the install step is not under test)."""
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if str(s.get("name", "")).startswith("Run ")]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "evidencepack"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m evidencepack "$@"\n')
    shim.chmod(0o755)
    names = dict.fromkeys(step["env"], "")
    names.update({"COMMAND": "check", "FAIL": "true"} | inputs)
    env = {
        **names,
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": str(REPO_ROOT),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "RUNNER_TEMP": str(tmp_path),
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(("name", "value"), [("SPEC", "-h"), ("SPEC", "--version")])
def test_an_input_that_is_an_option_is_refused(tmp_path: Path, name: str, value: str) -> None:
    done = _run_step(tmp_path, **{name: value})
    assert done.returncode != 0, done.stdout + done.stderr
    assert "usage:" not in done.stdout + done.stderr
    assert f"input spec is '{value}'" in done.stderr


def test_the_action_passes_paths_after_a_double_dash() -> None:
    script = (REPO_ROOT / "action.yml").read_text(encoding="utf-8")
    for command in ("check", "build", "verify", "diff"):
        lines = [line for line in script.splitlines() if f"evidencepack {command} " in line]
        assert lines, command
        assert all(" -- " in line for line in lines), lines


def test_junit_strips_characters_xml_forbids(tmp_path: Path) -> None:
    samples = Path(
        shutil.copytree(
            SAMPLE_SPEC.parent, tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
        )
    )
    scores = samples / "evidence/h200-vllm/scores.jsonl"
    # No reader knows it: the unknown-format problem (a PROV-FILES reason) quotes its keys.
    doc = {"\x01\x1b[2J\x0bkey\ufffe": "\x00value\x08", "b\x02": 1}
    scores.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    junit = tmp_path / "junit.xml"
    ran = run(["check", str(samples / "pack.yaml"), "--junit", str(junit)])
    assert "Traceback" not in ran.err
    assert junit.is_file(), ran.err
    ET.fromstring(junit.read_bytes())  # well-formed
    raw = junit.read_bytes()
    assert all(bytes([c]) not in raw for c in (0, 1, 8, 0x0B, 0x1B))
    assert os.path.getsize(junit) > 0
