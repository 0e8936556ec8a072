"""Right blame (issue 23, item 6): the tool's own temporaries failing is the tool's problem
(exit 3, nothing published), never a PROV-FILES failure blaming the evidence; and OUTDIR inside
a cited folder is refused, so the build's own files are never read as evidence."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import assert_refused, run, snapshot

RUN_FOLDER = "evidence/h200-vllm/runs/qps_2.0"


@contextlib.contextmanager
def _tiny_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (root only), unmounted afterwards."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.parametrize("size", ["256k", "2m"])
def test_a_full_tmpdir_is_exit_3_and_nothing_is_published(
    samples: Path, tmp_path: Path, size: str
) -> None:
    """256 KiB fills while the spec is copied, 2 MiB while the evidence is (the old code then
    published a pack whose PROV-FILES failure blamed the evidence for the full disk)."""
    out = tmp_path / "pack"
    with _tiny_tmpfs(tmp_path / "tmp", size) as tmp:
        ran = run(["build", str(samples / "pack.yaml"), "-o", str(out)], env={"TMPDIR": str(tmp)})
    assert_refused(ran, 3, "No space left on device", "TMPDIR")
    assert "PROV-FILES" not in ran.out + ran.err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["samples", "tmp"]  # no work folder


def test_outdir_inside_a_cited_run_folder_is_refused(samples: Path) -> None:
    before = snapshot(samples)
    out = samples / RUN_FOLDER / "pack"
    ran = run(["build", str(samples / "pack.yaml"), "-o", str(out)])
    assert_refused(ran, 2, str(out), "which the spec cites as evidence")
    assert snapshot(samples) == before
    assert sorted(p.name for p in (samples / RUN_FOLDER).iterdir()) == sorted(
        {name.split("/")[-1] for name in before if name.startswith(RUN_FOLDER)}
    )
