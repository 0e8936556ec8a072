"""The CLI shell: version, help with exit codes, usage errors, python -m."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evidencepack import __version__
from evidencepack._cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"evidencepack {__version__}"


def test_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for line in ("0  ok", "1  checks or verification failed", "2  usage error", "3  could not run"):
        assert line in out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert main(["validate"]) == 2
    assert "the following arguments are required: SPEC" in capsys.readouterr().err
    assert main([]) == 2


def test_missing_spec_file_exits_1(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 1
    assert "nope.yaml: no such file" in capsys.readouterr().err


def test_python_dash_m_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evidencepack", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"evidencepack {__version__}"


def _argparse_help() -> str:
    """The top-level help as argparse formats it, every command group built."""
    from evidencepack._cli import build_parser

    return build_parser().format_help()


@pytest.mark.parametrize("columns", [*map(str, range(1, 301)), "", "0", "-4", "wide"])
def test_the_top_level_help_is_argparses_at_every_width(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evidencepack --help`` is written without argparse (issue 29: start-up): the text is
    argparse's at every terminal width (``COLUMNS``; unset, empty or invalid: the terminal, here
    none, so 80), usage wrapping, help column and wrapped help texts included."""
    from evidencepack._cli import top_help

    monkeypatch.setenv("COLUMNS", columns)
    assert top_help() == _argparse_help()


def test_help_and_no_command_print_argparses_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--help`` and ``-h``: the help on stdout, exit 0 (SystemExit, as argparse's help action);
    no command: the same help on stderr, exit 2."""
    monkeypatch.setenv("COLUMNS", "72")
    expected = _argparse_help()
    for flag in ("--help", "-h"):
        with pytest.raises(SystemExit) as info:
            main([flag])
        assert info.value.code == 0
        assert capsys.readouterr() == (expected, "")
    assert main([]) == 2
    assert capsys.readouterr() == ("", expected)
    assert main(("-v",)) == 2  # -v alone goes through argparse: the same help, the same code
    assert capsys.readouterr() == ("", expected)


def _every_help_text() -> list[str]:
    """The help of every argument and subcommand of every command (hyphens, long words)."""
    from evidencepack._cli import build_parser

    texts, parsers = [], [build_parser()]
    while parsers:
        for action in parsers.pop()._actions:
            if action.help:
                texts.append(action.help)
            texts.extend(sub.help for sub in getattr(action, "_choices_actions", ()))
            if isinstance(action.choices, dict):
                parsers.extend(action.choices.values())
    return texts


def test_help_wrapping_is_textwraps() -> None:
    """The help column's wrapping (``_help.wrap``) is argparse's ``_split_lines``, textwrap's
    result, for every help text of the CLI and texts built to break at hyphens, long words,
    dashes, tabs and non-ASCII, at every width argparse can use (11 and up)."""
    import re
    import textwrap

    from evidencepack._cli._help import wrap

    texts = _every_help_text()
    assert len(texts) > 100
    texts += [
        "re-measure an OpenAI-compatible endpoint",
        "a  b\tc -- d --e f-g h- -i x--y",
        "x" * 30 + " yy-zz " + "w" * 12,
        "co-op re-do e.g. P-256 .tar.gz --check",
        "caf\u00e9 na\u00efve\u00a0space",
        "a\x1cb c\x0bd\x0ce\rf",
        "",
    ]
    for text in texts:
        normal = re.sub(r"\s+", " ", text, flags=re.ASCII).strip()
        for width in range(11, 121):
            assert wrap(text, width) == textwrap.wrap(normal, width), (text, width)


def test_help_without_stdout_goes_to_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As argparse's ``_print_message``: no ``sys.stdout`` (pythonw), the help on stderr."""
    expected = _argparse_help()
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().err == expected
