"""Tests marked ``serial`` run alone, also when pytest-xdist runs the suite in parallel (``-n 2``),
and the files of ``slow`` tests start first.

A test that measures (the benchmark guard: ratios of our CPU time to a floor's) would be
disturbed by another worker's test on the other core. Under xdist every test holds a shared lock
on a file for its whole run (setup, call, teardown) and a ``serial`` test an exclusive one, so a
serial test waits for the other workers' current tests to end and they start no new test until it
is done. A second file is the gate that gives the waiting serial test priority: a worker passes
through it (shared) before each test, and the serial test holds it (exclusive) while it waits.
Without xdist this plugin does nothing.

The controller makes the folder of the two lock files and hands it to each worker
(``workerinput``); it removes the folder at the end of the run.

Order: xdist (``--dist loadfile --no-loadscope-reorder``) hands out whole files in the order the
tests were collected. Under xdist, files holding a ``slow`` test come first, so that a test of a
minute or more (the quick start's fresh install) runs beside the many short ones rather than
alone at the end, and files holding a ``serial`` test come last, where a serial test waits only
for the other worker's current test. Within a file, the order stays as written.
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


def _rank(items: list[pytest.Item]) -> int:
    """0 for a file holding a slow test, 2 for one holding a serial test, 1 for the others."""
    if any(item.get_closest_marker("serial") for item in items):
        return 2
    return 0 if any(item.get_closest_marker("slow") for item in items) else 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # not an xdist worker: the order as collected
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    rank = {name: _rank(found) for name, found in files.items()}
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])  # stable


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
