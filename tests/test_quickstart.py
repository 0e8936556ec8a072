"""The README's quick start, verbatim, from a fresh copy of the checkout on a stock interpreter.

Stock Debian 12/13 and Ubuntu 24.04 have no ``python`` command and a ``python3`` whose pip
refuses to install outside a virtual environment (PEP 668, the ``EXTERNALLY-MANAGED`` marker).
This test runs both quick-start commands in such an environment: a PATH of the system folders
only, whose ``python3`` is a real Debian interpreter carrying the marker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO_ROOT
from .test_readme import quick_start_commands

STOCK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _unavailable(reason: str) -> None:
    """CI runs on the Debian image that has a stock python3: there, a missing one is a failure."""
    if os.environ.get("CI"):
        pytest.fail(f"the stock-interpreter quick start cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _stock_env(shared_data: Path) -> dict[str, str]:
    return {
        "HOME": os.environ.get("HOME", "/root"),  # pip's and npm's caches
        "PATH": STOCK_PATH,
        "LANG": "C.UTF-8",
        "EVIDENCEPACK_SHARED_DATA": str(shared_data),
        # pip leaves the dependencies it installs uncompiled (this test's setting, not the
        # README's: it saves about 10 s of CPU over the two installs); Python writes the
        # bytecode of what a run imports, as the environment does not forbid it.
        "PIP_NO_COMPILE": "1",
    }


def _fresh_copy(target: Path) -> Path:
    """What a fresh clone holds: the checkout's tracked (and new, not ignored) files."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


# slow: a fresh venv and pip install from a fresh copy, then the sample built
@pytest.mark.slow
def test_readme_quick_start_on_a_stock_interpreter(tmp_path: Path, shared_data: Path) -> None:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        _unavailable("not a git checkout")
    env = _stock_env(shared_data)
    python3 = shutil.which("python3", path=STOCK_PATH)
    if python3 is None:
        _unavailable(f"no python3 on {STOCK_PATH}")
    assert python3 is not None
    stdlib = subprocess.run(
        [python3, "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    if not (Path(stdlib) / "EXTERNALLY-MANAGED").is_file():
        _unavailable(f"{python3} is not externally managed (no {stdlib}/EXTERNALLY-MANAGED)")
    if shutil.which("python", path=STOCK_PATH) is not None:
        _unavailable(f"a `python` command exists on {STOCK_PATH}")

    # The situation the quick start must cope with: no `python`, and pip refuses.
    refused = _run("python3 -m pip install --dry-run --no-index pytest", tmp_path, env)
    assert refused.returncode != 0
    assert "externally-managed-environment" in refused.stderr + refused.stdout

    clone = _fresh_copy(tmp_path / "evidencepack")
    main_job, tests = quick_start_commands()

    first = _run(main_job, clone, env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "creating the virtual environment .venv" in first.stdout
    assert "installing evidencepack (main) and its dependencies" in first.stdout
    assert ". .venv/bin/activate" in first.stdout
    assert "OK" in first.stdout
    assert (clone / "out" / "pack" / "pack.sigstore.json").is_file()
    assert (clone / "out" / "pack.tar.gz").is_file()
    # The environment was made from the stock interpreter (pyvenv.cfg names its folder).
    cfg = (clone / ".venv" / "pyvenv.cfg").read_text(encoding="utf-8")
    assert f"home = {Path(python3).parent}" in cfg, cfg
    # The main job installs the tool, not the test rig: no dev extra, no PySpark, no psycopg.
    probe = subprocess.run(
        [
            str(clone / ".venv" / "bin" / "python"),
            "-c",
            "import importlib.util as u; "
            "print([m for m in ('pytest', 'pyspark', 'psycopg', 'xllamacpp') if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "[]", probe.stdout

    # The tests command, verbatim; the environment narrows it to three quick tests that run the
    # package from this plain venv (its CLI's help, and what importing it and `check` load, in
    # child processes of the venv's interpreter) so the suite does not run inside itself. The
    # wheel is built and installed by tests/test_wheel.py in the suite itself.
    env["PYTEST_ADDOPTS"] = (
        "-q -p no:cacheprovider tests/test_readme.py::test_help_block_matches_cli "
        "tests/test_startup.py::test_importing_evidencepack_loads_nothing_but_itself "
        "tests/test_startup.py::test_check_imports_no_renderer_and_no_sigstore"
    )
    second = _run(tests, clone, env)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    # The tests' command adds the dev extras to the same environment (the venv is kept).
    assert "installing evidencepack (dev)" in second.stdout, second.stdout[-2000:]
    assert "creating the virtual environment" not in second.stdout
    again = _run("bash .ci/setup --dev", clone, env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "evidencepack already installed in .venv" in again.stdout  # a re-run skips pip
    assert "evidencepack already installed in .venv" in _run("bash .ci/setup", clone, env).stdout
    assert "3 passed" in second.stdout, second.stdout[-2000:]
