"""Progress of long work on stderr, for a person at a terminal: the stage and running counts.

Off unless the CLI turns it on (stderr is a terminal and the output is not ``--json``), so
library callers, pipes, CI logs and JSON consumers never see it. Stages call ``stage`` and
``count``; nothing else here is needed by them.
"""

from __future__ import annotations

import sys
from typing import TextIO

_state: dict[str, bool] = {"on": False, "open": False}
_counts: dict[str, int] = {}
"""The running counts of the current stage, shown together on one updating line."""


def enable(on: bool) -> None:
    """Turn progress lines on or off (the CLI decides; see ``wanted``)."""
    _finish()
    _state["on"] = on


def wanted(stream: TextIO, *, as_json: bool) -> bool:
    """Progress is for a person: a terminal on stderr, and no machine-read output."""
    try:
        return stream.isatty() and not as_json
    except (AttributeError, ValueError):
        return False


def stage(text: str) -> None:
    """Announce a stage (``evidencepack: rendering the report``); its counts start at zero."""
    if not _state["on"]:
        return
    _finish()
    _write(f"evidencepack: {text}\n")


def count(label: str, n: int = 1) -> None:
    """Add ``n`` to the count ``label`` (``inputs hashed: 12, results imported: 3``)."""
    if not _state["on"]:
        return
    _counts[label] = _counts.get(label, 0) + n
    _state["open"] = True
    _write("\r  " + ", ".join(f"{name}: {value}" for name, value in _counts.items()))


def _finish() -> None:
    if _state["open"]:
        _write("\n")
    _state["open"] = False
    _counts.clear()


def _write(text: str) -> None:
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        _state["on"] = False
