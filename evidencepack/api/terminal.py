"""What a program showing evidencepack's results to a person needs: progress on stderr, and
text with every hidden or misleading character shown as an escape."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

    from ..core.progress import Reporter
    from .options import PathLike


def progress_wanted(stream: TextIO, *, as_json: bool) -> bool:
    """Whether progress is for a person here: a terminal, and no machine-read output."""
    from ..core.progress import wanted

    return wanted(stream, as_json=as_json)


def terminal_reporter(stream: TextIO) -> Reporter:
    """A reporter of stages and counts on ``stream`` (a terminal): give it as an options
    object's ``reporter``; its ``finish`` closes the line it draws."""
    from ..core.progress import TerminalReporter

    return TerminalReporter(stream)


def visible(text: str) -> str:
    """``text`` on one line, every hidden character as a visible ``\\uXXXX`` escape."""
    from ..core._display import visible as shown

    return shown(text)


@contextmanager
def visible_errors() -> Iterator[None]:
    """Errors raised inside show their message and problems with every hidden character as an
    escape (their text quotes packs and command lines)."""
    from ..core._display import visible_errors as shown

    with shown():
        yield


def escape_misleading(text: str) -> str:
    """``text`` with bidi overrides and other misleading characters escaped, as the report
    shows them."""
    from ..core._text import escape_misleading as escaped

    return escaped(text)


def write_file(path: PathLike, data: bytes) -> None:
    """Write ``path`` all or nothing (a temporary file renamed into place)."""
    from ..core._atomic import atomic_write

    atomic_write(Path(path), data)


def append_text(path: PathLike, text: str) -> None:
    """Append ``text`` and a newline to ``path`` (a job summary file collects several steps')."""
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(text + "\n")
