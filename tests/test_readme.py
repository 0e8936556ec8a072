"""The documentation is tested: the README's quick start is the two commands CI runs, and its main
job runs; the commands page's --help block matches the CLI; every ``evidencepack`` command in a
shell block of README.md or a docs/ page is one the CLI accepts."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from evidencepack._cli import build_parser
from evidencepack.errors import UsageError

from .conftest import REPO_ROOT
from .docs_pages import doc_page, documented_pages

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS_PAGE = doc_page("reference/commands.md")


def _block_after(text: str, marker: str) -> str:
    start = text.index(marker)
    match = re.search(r"```(?:text|sh)\n(.*?)```", text[start:], re.S)
    assert match, f"no code block after {marker!r}"
    return match.group(1)


def test_help_block_matches_cli(update_goldens: bool) -> None:
    help_text = build_parser().format_help()
    page = COMMANDS_PAGE.read_text(encoding="utf-8")
    block = _block_after(page, "# Commands")
    if update_goldens and block.strip() != help_text.strip():
        COMMANDS_PAGE.write_text(page.replace(block, help_text.strip() + "\n"), encoding="utf-8")
        return
    assert block.strip() == help_text.strip(), (
        "run pytest --update-goldens to refresh docs/reference/commands.md"
    )


def _quick_start(text: str) -> tuple[str, str]:
    lines = [
        line
        for line in _block_after(text, "## Quick start").splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) == 2, lines
    return lines[0], lines[1]


def quick_start_commands() -> tuple[str, str]:
    """The README's two quick-start commands: the main job and the tests."""
    return _quick_start(README)


def test_the_getting_started_page_gives_the_readmes_quick_start() -> None:
    page = doc_page("getting-started.md").read_text(encoding="utf-8")
    assert _quick_start(page) == quick_start_commands()


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


# Where a documented command line ends: a pipe, a redirection, the next command.
_ENDS = {"|", "||", "&&", ";", "&", ">", ">>", "2>", "2>&1", "<"}


def documented_commands() -> list[tuple[str, str]]:
    """Each ``evidencepack ...`` command of a ``sh`` block (or a ``$ `` line of a ``text`` block)
    in README.md and the docs' pages, continuation lines joined: (where, command)."""
    found = []
    for path in documented_pages():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(REPO_ROOT).as_posix()
        for kind, block in re.findall(r"```(sh|text)\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip()
                if kind == "text":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                # `VAR=value evidencepack ...`, `... && evidencepack ...`: the evidencepack part
                at = re.search(r"(?:^|[\s;&|])(evidencepack\s.*)", line)
                if at and not line.startswith("#"):
                    found.append((name, at.group(1)))
    return found


def _argv(command: str) -> list[str]:
    """The command's arguments; ``[--option VALUE]`` (usage notation for an optional part) is
    taken as written, so its option must exist too."""
    argv = []
    for word in shlex.split(command.replace("[", "").replace("]", ""), comments=True)[1:]:
        if word in _ENDS or word.startswith((">", "2>")):
            break
        argv.append(word)
    return argv


def test_the_docs_give_commands_from_every_page_that_shows_them() -> None:
    commands = documented_commands()
    pages = {where for where, _ in commands}
    assert len(commands) > 60, commands
    assert {
        "README.md",
        "docs/guides/procurement.md",
        "docs/guides/auditor.md",
        "docs/guides/pipeline.md",
    } <= pages


@pytest.mark.parametrize(
    ("where", "command"),
    documented_commands(),
    ids=[f"{where}:{i}" for i, (where, _) in enumerate(documented_commands())],
)
def test_every_documented_command_is_one_the_cli_accepts(where: str, command: str) -> None:
    """The command parses: the subcommand, its options and their values are the CLI's (a
    renamed option or a removed command fails here, naming the page)."""
    argv = _argv(command)
    if {"-h", "--help", "--version"} & set(argv):
        return  # argparse prints and exits: nothing to check but that the command exists
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except UsageError as error:
            pytest.fail(f"{where}: {command}\n{error}", pytrace=False)


def test_a_command_the_cli_does_not_accept_is_caught() -> None:
    with pytest.raises(UsageError):
        build_parser().parse_args(_argv("evidencepack check pack.yaml [--no-such-option] | head"))
    assert _argv("evidencepack check pack.yaml --json > out.json  # a comment") == [
        "check",
        "pack.yaml",
        "--json",
    ]
