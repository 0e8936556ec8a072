"""``init`` over a hostile evidence folder (issue 42, left from round two): a folder nested 1,200
levels deep ends without a RecursionError, and a symbolic link out of the folder is never
followed or cited."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..conftest import REPO_ROOT
from .harness import run

RUN = REPO_ROOT / "samples/evidence/h200-vllm/scores.jsonl"


def _remove_deep(top: Path) -> None:
    """Remove the chain of folders ``d/d/d/...`` under ``top``, level by level, iteratively."""
    here = os.getcwd()
    try:
        os.chdir(top)
        levels = 0
        while os.path.isdir("d"):
            os.chdir("d")
            levels += 1
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(here)


def test_a_folder_nested_1200_levels_ends_without_a_traceback(tmp_path: Path) -> None:
    root = tmp_path / "evidence"
    deep = root / "cand"
    deep.mkdir(parents=True)
    shutil.copy(RUN, deep / "scores.jsonl")
    # 1,200 levels by relative steps (a path that long exceeds PATH_MAX only as a whole).
    here = os.getcwd()
    try:
        os.chdir(deep)
        for _ in range(1200):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)
    try:
        ran = run(["init", str(root), "-o", str(tmp_path / "pack.yaml")])
    finally:
        _remove_deep(deep)  # pytest's own cleanup (shutil.rmtree) recurses once per level
    shown = ran.out + ran.err
    assert "Traceback" not in shown
    assert "RecursionError" not in shown
    assert ran.code in (0, 1), shown


def test_a_symlinked_subfolder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(RUN, outside / "secret-scores.jsonl")
    root = tmp_path / "evidence"
    (root / "cand").mkdir(parents=True)
    shutil.copy(RUN, root / "cand" / "scores.jsonl")
    (root / "cand" / "linked").symlink_to(outside, target_is_directory=True)
    (root / "other").symlink_to(outside, target_is_directory=True)
    spec = tmp_path / "pack.yaml"
    ran = run(["init", str(root), "-o", str(spec)])
    assert ran.code == 0, ran.err
    text = spec.read_text(encoding="utf-8")
    assert "secret-scores" not in text
    assert "not followed" in ran.out + ran.err + text
