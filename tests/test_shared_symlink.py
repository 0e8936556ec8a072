"""The tests pass when ../shared (EVIDENCEPACK_SHARED_DATA) is reached through a symlink: the
importer reports resolved paths, so a test comparing paths must resolve its own too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO_ROOT


# slow: runs a v6.0 import test in a fresh pytest process
@pytest.mark.slow
def test_the_v60_import_test_passes_through_a_symlinked_shared_folder(
    shared_data: Path, tmp_path: Path
) -> None:
    link = tmp_path / "shared-data"
    link.symlink_to(shared_data.resolve(), target_is_directory=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/mlperf/test_v60.py::test_non_llm_rows_are_skipped_with_the_reason",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "EVIDENCEPACK_SHARED_DATA": str(link)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout
