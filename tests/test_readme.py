"""The README is tested: its --help block matches the CLI and its main-job command runs."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from evidencepack._cli import build_parser

from .conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(marker: str) -> str:
    start = README.index(marker)
    match = re.search(r"```(?:text|sh)\n(.*?)```", README[start:], re.S)
    assert match, f"no code block after {marker!r}"
    return match.group(1)


def test_help_block_matches_cli(update_goldens: bool) -> None:
    help_text = build_parser().format_help()
    block = _block_after("## Commands")
    if update_goldens and block.strip() != help_text.strip():
        path = REPO_ROOT / "README.md"
        path.write_text(README.replace(block, help_text.strip() + "\n"), encoding="utf-8")
        return
    assert block.strip() == help_text.strip(), "run pytest --update-goldens to refresh README"


def test_quick_start_has_two_commands_and_the_main_job_runs(tmp_path: Path) -> None:
    lines = [
        line
        for line in _block_after("## Quick start").splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) == 2, lines
    main_job, tests = lines
    assert tests.endswith("python -m pytest")
    # The setup step is what CI itself runs first; here, run the job after it.
    job = main_job.split("&&", 1)[1].strip()
    done = subprocess.run(
        shlex.split(job), cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stderr
