"""The README is tested: its --help block matches the CLI and its main-job command runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
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


def quick_start_commands() -> tuple[str, str]:
    """The README's two quick-start commands: the main job and the tests."""
    lines = [
        line
        for line in _block_after("## Quick start").splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) == 2, lines
    return lines[0], lines[1]


def test_quick_start_has_two_commands_and_the_main_job_runs(tmp_path: Path) -> None:
    main_job, tests = quick_start_commands()
    setup = "bash .ci/setup && . .venv/bin/activate && "
    assert main_job.startswith(setup), main_job
    # The tests need the dev extras and services; the main job installs only the tool.
    dev_setup = "bash .ci/setup --dev && . .venv/bin/activate && "
    assert tests == dev_setup + "python -m pytest -n 2", tests
    # CI installs and runs the same, quietly.
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nbash .ci/setup --dev\n" in ci
    assert "\npython -m pytest -q -n 2  #" in ci
    # The setup and activation are what tests/test_quickstart.py runs on a stock interpreter;
    # here, run the job itself in this environment, writing into a temporary OUTDIR.
    job = main_job.rsplit("&&", 1)[1].strip()
    out = tmp_path / "out"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [*shlex.split(job), str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout, done.stdout
    assert (out / "pack" / "pack.sigstore.json").is_file()
    assert sorted(p.name for p in out.iterdir()) == [
        "evidencepack.key.pem",
        "evidencepack.pub.pem",
        "pack",
        "pack.tar.gz",
    ]
