"""Text shown to a person (a terminal, a Markdown summary) says what it holds, visibly.

Values in ``verify`` and ``diff`` output come from packs: a file name, a reason, a signer's
identity. A control character can move the cursor or recolour the terminal, a bidi override
(U+202E) can show "MI325X" for "X523IM", a zero-width or line-separator character can hide or
split text. ``visible`` writes each such character as a ``\\uXXXX`` escape, so none reaches
the reader raw (see ``_text.py`` for the spec's stricter rule: such text is refused there).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import EvidencePackError
from ._text import is_misleading


def _hidden(char: str) -> bool:
    """Misleading (control, bidi, zero-width format) or unprintable (line and paragraph
    separators, odd spaces, tab, newline); the plain space is printable."""
    return is_misleading(char) or (char != " " and not char.isprintable())


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` on one line, every hidden character as a visible ``\\uXXXX`` escape."""
    return "".join(_escape(char) if _hidden(char) else char for char in text)


def visible_lines(text: str) -> str:
    """``text`` line by line through ``visible``: its own newlines kept, nothing else hidden."""
    return "\n".join(visible(line) for line in text.split("\n"))


@contextmanager
def visible_errors() -> Iterator[None]:
    """Show an error's message and problems visibly (``visible_lines``/``visible``): a command
    whose errors quote a pack's or the command line's text (``diff``, ``verify``) prints no
    hidden character on stderr either."""
    try:
        yield
    except EvidencePackError as exc:
        exc.transform_text(visible_lines)
        problems = getattr(exc, "problems", None)
        if isinstance(problems, tuple):
            exc.problems = tuple(visible_lines(p) for p in problems)  # type: ignore[attr-defined]
        raise
