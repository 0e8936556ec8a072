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
