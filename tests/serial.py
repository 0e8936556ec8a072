"""Tests marked ``serial`` run alone, also when pytest-xdist runs the suite in parallel (``-n 2``).

A test that measures (the benchmark guard: ratios of our CPU time to a floor's) would be
disturbed by another worker's test on the other core. Under xdist every test holds a shared lock
on a file for its whole run (setup, call, teardown) and a ``serial`` test an exclusive one, so a
serial test waits for the other workers' current tests to end and they start no new test until it
is done. A second file is the gate that gives the waiting serial test priority: a worker passes
through it (shared) before each test, and the serial test holds it (exclusive) while it waits.
Without xdist this plugin does nothing.

The controller makes the folder of the two lock files and hands it to each worker
(``workerinput``); it removes the folder at the end of the run.
"""

from __future__ import annotations

import fcntl
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_KEY = "evidencepack_serial_locks"


def pytest_configure(config: pytest.Config) -> None:
    workers = getattr(config.option, "numprocesses", None)
    if not hasattr(config, "workerinput") and workers:
        setattr(config, _KEY, tempfile.mkdtemp(prefix="evidencepack-serial-"))


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, _KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: tell each worker where the lock files are."""
    node.workerinput[_KEY] = getattr(node.config, _KEY)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    folder = getattr(item.config, "workerinput", {}).get(_KEY)
    if folder is None:
        return (yield)
    serial = item.get_closest_marker("serial") is not None
    with open(Path(folder) / "gate", "a") as gate, open(Path(folder) / "run", "a") as run:
        if serial:
            fcntl.flock(gate, fcntl.LOCK_EX)  # no worker starts another test from now on
            fcntl.flock(run, fcntl.LOCK_EX)  # the tests running now have ended
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)
            fcntl.flock(run, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            return (yield)
        finally:
            fcntl.flock(run, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)
