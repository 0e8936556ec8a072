"""The order in which pytest-xdist hands out the test files (``-n 2``, the README's command).

xdist (``--dist loadfile --no-loadscope-reorder``) hands out whole files in the order the tests
were collected. Under xdist this plugin sorts them:

- files holding a ``slow`` test come first, so that a test of a minute or more (the quick
  start's fresh install) runs beside the many short ones rather than alone at the end;
- files holding a test that reads a watch (``watches`` marker, or the ``broken_watch``
  fixture) come last: the watches start in the background at the session's first test
  (tests/watches.py) and have long finished by then, so no worker waits on their clock;
- the others keep their place. Within a file, the order stays as written.

Without xdist the order is as collected (the watches still start at the first test).
"""

from __future__ import annotations

import pytest

from .watches import watches_read_by


def _rank(items: list[pytest.Item]) -> int:
    """0 for a file holding a slow test, 2 for one reading a watch, 1 for the others."""
    if any(watches_read_by(item) for item in items):
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
