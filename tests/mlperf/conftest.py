"""MLPerf test helpers: copy real results and runs into tmp_path to modify them there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack.mlperf.loadgen_log import DETAIL_NAME, SUMMARY_NAME

AMD_INTERACTIVE = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"


@pytest.fixture
def loadgen(shared_data: Path) -> Path:
    """The real LoadGen 6.0.17 output folders."""
    return shared_data / "loadgen"


def copy_run(src: Path, dst: Path) -> Path:
    """Copy a LoadGen run's detail and summary logs into a new folder."""
    dst.mkdir(parents=True)
    for name in (DETAIL_NAME, SUMMARY_NAME):
        shutil.copy(src / name, dst / name)
    return dst


@pytest.fixture
def v51(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "v5.1"


@pytest.fixture
def copy_result(v51: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Copy one v5.1 result (its results, measurements and compliance folders and its system
    JSON) to ``tmp_path/v5.1`` and return the copy's results folder."""

    def copy(location: str = AMD_INTERACTIVE) -> Path:
        division, submitter, _, system, benchmark, scenario = location.split("/")
        source = v51 / division / submitter
        target = tmp_path / "v5.1" / division / submitter
        for part in ("results", "measurements", "compliance"):
            folder = source / part / system / benchmark / scenario
            if folder.is_dir():
                shutil.copytree(folder, target / part / system / benchmark / scenario)
        (target / "systems").mkdir(parents=True, exist_ok=True)
        shutil.copy(source / "systems" / f"{system}.json", target / "systems")
        return target / "results" / system / benchmark / scenario

    return copy


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace text that must be there (a test that edits nothing would prove nothing)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")
