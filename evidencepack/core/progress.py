"""Progress of long work, reported to whoever the caller hands in: the stage and running counts.

The caller owns a ``Progress`` (``Progress(reporter)``) and hands it down explicitly (the
pipeline's ``CompileOptions.progress``, the build's ``Collector``, ``render_pdf``): stages call
its ``stage`` and ``count``, and what happens then is the caller's choice. Without a reporter
(``SILENT``) nothing is printed; nothing is global, so two threads or two embedding applications
never share one. Every stage is also logged at INFO on the ``evidencepack`` logger tree
(``logging.getLogger(__name__)``), so a library caller sees it in its own logs. The CLI's
reporter is ``TerminalReporter``: one updating line on stderr, for a person at a terminal
(``wanted`` says when: a terminal, no ``--json``).
"""

from __future__ import annotations

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


class Progress:
    """The progress of one piece of work, owned by its caller: each stage logged, and reported
    with the counts to the caller's ``reporter`` (None: reported nowhere)."""

    __slots__ = ("reporter",)

    def __init__(self, reporter: Reporter | None = None) -> None:
        self.reporter = reporter

    def stage(self, text: str) -> None:
        """Announce a stage (``reading the evidence of h200-vllm``): logged, and reported."""
        import logging  # here, not at import: --help and every command start without it

        logging.getLogger(__name__).info("%s", text)
        if self.reporter is not None:
            self.reporter.stage(text)

    def count(self, label: str, n: int = 1) -> None:
        """Add ``n`` to the count ``label`` (``inputs hashed: 12, results imported: 3``)."""
        if self.reporter is not None:
            self.reporter.count(label, n)

    def finish(self) -> None:
        """The work ended: the reporter closes what is open."""
        if self.reporter is not None:
            self.reporter.finish()


SILENT = Progress()
"""Progress reported nowhere (stages are still logged): the default of every caller."""


def wanted(stream: TextIO, *, as_json: bool) -> bool:
    """Progress is for a person: a terminal on stderr, and no machine-read output."""
    try:
        return stream.isatty() and not as_json
    except (AttributeError, ValueError):
        return False
