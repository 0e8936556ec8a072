"""The hostile-input harness: the real CLI in a subprocess under an address-space limit and a
timeout, so a hang or an unbounded allocation fails the test instead of the machine."""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import pdf_cache
from ..conftest import REPO_ROOT

MEMORY = 3 << 30
"""Address-space limit for each run. Address space is not resident memory: a build of the
samples peaks near 250 MB resident but reserves 1.1-1.6 GiB of address space (DuckDB's worker
threads and their allocator arenas, which vary run to run), so a 1.5 GiB limit failed a sound
build now and then. 3 GiB still stops an unbounded allocation long before the machine does."""
SECONDS = 120
"""Wall-clock bound per run (generous: the machine is shared; a hang is forever)."""


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str
    seconds: float


def run(
    args: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    file_size: int | None = None,
    memory: int = MEMORY,
    module: str = "evidencepack",
) -> Ran:
    """``python -m MODULE ARGS`` (default: evidencepack) under an address-space (and optional
    file-size) limit. ``evidencepack`` runs as ``tests.pdf_cache_cli``: the same CLI, rendering
    report PDFs as the test's mark says (``tests/pdf_cache.py``)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    child_env: dict[str, str] = {}
    if module == "evidencepack":  # the real CLI, its report PDFs from the session's cache
        module, child_env = "tests.pdf_cache_cli", pdf_cache.child_env()
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        preexec_fn=limit,
        cwd=REPO_ROOT,
        env={**os.environ, **child_env, **(env or {})},
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr, time.monotonic() - start)


def assert_refused(ran: Ran, code: int, *names: str) -> None:
    """The documented exit code, a clear error naming each of ``names``, no traceback."""
    shown = ran.err + ran.out
    assert ran.code == code, shown
    assert "Traceback" not in shown, shown
    assert "MemoryError" not in shown, shown
    assert "RecursionError" not in shown, shown
    for name in names:
        assert name in shown, shown
    assert ran.seconds < SECONDS


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its sha256: to prove nothing was lost or changed."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
