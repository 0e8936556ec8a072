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


def test_installed_wheel_runs(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
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
            "import evidencepack.resources as r; print(r.schemas_dir()); print(r.templates_dir())",
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
