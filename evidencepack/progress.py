"""Progress of long work, reported to whoever the caller hands in: the stage and running counts.

Stages call ``stage`` and ``count``; what happens then is the caller's choice. A caller installs
a ``Reporter`` for the work it runs with ``reporting(reporter)`` (a context, so two threads or
two embedding applications never share one); without one, nothing is printed. Every stage is
also logged at INFO on the ``evidencepack`` logger tree (``logging.getLogger(__name__)``), so a
library caller sees it in its own logs. The CLI's reporter is ``TerminalReporter``: one updating
line on stderr, for a person at a terminal (``wanted`` says when: a terminal, no ``--json``).
"""

from __future__ import annotations

import sys
from contextvars import ContextVar, Token
from typing import Protocol, TextIO


class Reporter(Protocol):
    """What progress is reported to."""

    def stage(self, text: str) -> None:
        """A new stage begins; its counts start at zero."""

    def count(self, label: str, n: int) -> None:
        """``n`` more of ``label`` (``inputs hashed``)."""

    def finish(self) -> None:
        """The work ended: close what is open."""


class TerminalReporter:
    """The CLI's status line on a stream (stderr): each stage on a line, its counts updating."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.counts: dict[str, int] = {}
        self.open = False

    def stage(self, text: str) -> None:
        """Close the previous stage's count line and announce this one."""
        self.finish()
        self._write(f"evidencepack: {text}\n")

    def count(self, label: str, n: int) -> None:
        """Update the running counts of the stage, on one line."""
        self.counts[label] = self.counts.get(label, 0) + n
        self.open = True
        self._write("\r  " + ", ".join(f"{name}: {value}" for name, value in self.counts.items()))

    def finish(self) -> None:
        """End the count line, if one is open."""
        if self.open:
            self._write("\n")
        self.open = False
        self.counts.clear()

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # progress is a courtesy: a closed stderr never fails the work


_current: ContextVar[Reporter | None] = ContextVar("evidencepack_progress", default=None)


class reporting:  # noqa: N801 - used as ``with progress.reporting(reporter):``
    """Report the progress of the work run inside the ``with`` block to ``reporter`` (a class,
    not ``contextlib.contextmanager``, so importing this module stays cheap for ``--help``)."""

    def __init__(self, reporter: Reporter | None) -> None:
        self.reporter = reporter
        self._token: Token[Reporter | None] | None = None

    def __enter__(self) -> None:
        self._token = _current.set(self.reporter)

    def __exit__(self, *exc: object) -> None:
        if self.reporter is not None:
            self.reporter.finish()
        if self._token is not None:
            _current.reset(self._token)


def current() -> Reporter | None:
    """The reporter progress goes to in this context (None: nowhere)."""
    return _current.get()


def wanted(stream: TextIO, *, as_json: bool) -> bool:
    """Progress is for a person: a terminal on stderr, and no machine-read output."""
    try:
        return stream.isatty() and not as_json
    except (AttributeError, ValueError):
        return False


def enable(on: bool) -> None:
    """Report to the terminal's stderr (on) or nowhere (off), for the rest of this context (the
    CLI's switch; library callers use ``reporting``)."""
    previous = _current.get()
    if previous is not None:
        previous.finish()
    _current.set(TerminalReporter(sys.stderr) if on else None)


def stage(text: str) -> None:
    """Announce a stage (``reading the evidence of h200-vllm``): logged, and reported."""
    import logging  # here, not at import: --help and every command start without it

    logging.getLogger(__name__).info("%s", text)
    reporter = _current.get()
    if reporter is not None:
        reporter.stage(text)


def count(label: str, n: int = 1) -> None:
    """Add ``n`` to the count ``label`` (``inputs hashed: 12, results imported: 3``)."""
    reporter = _current.get()
    if reporter is not None:
        reporter.count(label, n)
