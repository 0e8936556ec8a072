"""An installed wheel (not only the checkout) finds its schemas and report templates."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import REPO_ROOT, SAMPLE_SPEC


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy so the checkout's own build artefacts never leak in.
    src = out / "src"
    shutil.copytree(
        REPO_ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git",
            "*.egg-info",
            "__pycache__",
            ".mypy_cache",
            ".ruff_cache",
            ".pytest_cache",
            "build",
            "dist",
            "*.duckdb",
            ".cache",  # benchmarks/.cache holds generated inputs of hundreds of MB
            "out",  # the main job's output folder
            # .ci/setup's virtual environment (over 1 GB, 2 GB with its symlinks followed: CI's
            # checkout has one) and the interop test's npm packages
            ".venv",
            "node_modules",
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(src),
        ],
        check=True,
    )
    (built,) = out.glob("evidencepack-*.whl")
    return built


def test_wheel_carries_schemas_and_templates(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in (REPO_ROOT / "schemas").glob("*.schema.json"):
        assert f"evidencepack/_data/schemas/{schema.name}" in names
    for template in (REPO_ROOT / "report_templates").iterdir():
        assert f"evidencepack/_data/report_templates/{template.name}" in names
    assert "evidencepack/py.typed" in names


def _site_dirs() -> list[str]:
    """The site-packages folders this interpreter imports from: a virtual environment's own and,
    if it sees them, the base interpreter's (where the dependencies may be installed)."""
    return [
        entry
        for entry in sys.path
        if entry.rstrip("/").endswith(("site-packages", "dist-packages")) and Path(entry).is_dir()
    ]


def fresh_env_seeing_this_one(env_dir: Path) -> Path:
    """A virtual environment whose own site-packages comes first and which then sees the
    packages the running interpreter sees, whether it is a venv or a system interpreter.

    ``system_site_packages=True`` would not do: from inside a venv it exposes the *base*
    interpreter's packages, not the active venv's. The folders are listed in a ``.pth`` file,
    which appends them to ``sys.path`` without running the ``.pth`` files inside them, so an
    editable install of the checkout there cannot shadow the wheel."""
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "_outer_environment.pth").write_text(
        "".join(f"{entry}\n" for entry in _site_dirs()), encoding="utf-8"
    )
    return python


def test_installed_wheel_runs(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    python = fresh_env_seeing_this_one(env_dir)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
    )
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import evidencepack.core.resources as r, pydantic, weasyprint, sigstore, duckdb; "
            "print(r.schemas_dir()); print(r.templates_dir())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    schemas, templates = where.stdout.split()
    assert str(env_dir) in schemas
    assert schemas.endswith("_data/schemas")
    assert str(env_dir) in templates
    spec_dir = tmp_path / "spec"
    spec_dir.mkdir()
    shutil.copy(SAMPLE_SPEC, spec_dir / "pack.yaml")
    shutil.copytree(SAMPLE_SPEC.parent / "evidence", spec_dir / "evidence")
    exe = env_dir / "bin" / "evidencepack"
    for args in (["schemas", "--check"], ["validate", str(spec_dir / "pack.yaml")]):
        done = subprocess.run(
            [str(exe), *args], capture_output=True, text=True, cwd=tmp_path, check=False
        )
        assert done.returncode == 0, done.stderr
    # The auditor's side (issue 38): the installed wheel alone builds a signed archive of the
    # sample, verifies it and rebuilds it from its own inputs.
    steps = (
        ["keygen", "--no-passphrase", "--private-key", "k.pem", "--public-key", "k.pub"],
        ["build", str(spec_dir / "pack.yaml"), "-o", "pack", "--key", "k.pem", "--archive"],
        ["verify", "pack.tar.gz", "--key", "k.pub"],
        ["verify", "pack.tar.gz", "--key", "k.pub", "--rebuild"],
    )
    for args in steps:
        done = subprocess.run(
            [str(exe), *args], capture_output=True, text=True, cwd=tmp_path, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK: archive pack.tar.gz")
