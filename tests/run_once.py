"""Session packs made once per test run, not once per pytest-xdist worker.

A session fixture runs once in each worker that needs it, and the README's test command runs two
workers: without this, each worker builds and signs the sample, its stack-bump twin and the
warehouse's requests pack, and measures each watch (about 45 s of a live endpoint), and the
suite pays for each twice. Under xdist such a fixture makes its pack in a folder that the
controller hands to every worker (``pytest_configure_node``), under an exclusive lock named for
it: the first worker to need it makes it and marks it done; another waits for the lock (it would
have spent that time making it) and then reads the same folder. A worker that
dies halfway leaves no mark: the next one removes what it left and makes the pack again.

What is shared is what was always shared within a worker: a read-only pack each fixture checks,
at the end of the session, that no test changed (``tests/packs.py``). Without xdist the folder
is the session's own (``tmp_path_factory``), as before. The controller removes the run's folder
at the end.
"""

from __future__ import annotations

import fcntl
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

_KEY = "evidencepack_run_once"
_state: dict[str, Path | None] = {"folder": None}


def pytest_configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        folder = workerinput.get(_KEY)
        _state["folder"] = Path(folder) if folder else None
    elif getattr(config.option, "numprocesses", None):
        setattr(config, _KEY, tempfile.mkdtemp(prefix="evidencepack-run-once-"))


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, _KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: hand each worker the run's folder."""
    node.workerinput[_KEY] = getattr(node.config, _KEY, None)


def run_folder(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the run's pack ``name`` is (under xdist: the run's folder, not made yet; else a
    new folder of the session)."""
    base = _state["folder"]
    return base / name if base is not None else tmp_path_factory.mktemp(name)


@contextmanager
def made_once(name: str, target: Path) -> Iterator[bool]:
    """Whether this worker makes ``target`` now (True) or reads it as another worker made it
    (False). Under xdist the run's lock ``name`` is held until the block ends, and the pack is
    marked done only when the block ends without an error."""
    base = _state["folder"]
    if base is None:
        yield True
        return
    with (base / f"{name}.lock").open("wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = base / f"{name}.done"
        if done.exists():
            yield False
            return
        shutil.rmtree(target, ignore_errors=True)  # what a worker that died halfway left
        yield True
        done.touch()
