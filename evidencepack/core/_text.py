"""Characters that make text read differently from what it holds: controls and bidi overrides.

``AMD \\u202eX523IM`` displays as "AMD MI325X". The spec refuses such characters; text from
evidence files is shown with each one escaped visibly (``\\u202e``) and a warning.
"""

from __future__ import annotations

import unicodedata

_ALLOWED_CONTROLS = frozenset("\t\n\r")


def is_misleading(char: str) -> bool:
    """A control (Cc) other than tab and newline, or a format character (Cf: bidi, zero-width)."""
    if char in _ALLOWED_CONTROLS:
        return False
    return unicodedata.category(char) in ("Cc", "Cf")


def misleading_characters(text: str) -> list[str]:
    """The misleading characters of ``text`` as ``U+XXXX`` codes, in order, once each."""
    if text.isprintable():  # no control or format character at all: the common case, in C
        return []
    seen: dict[str, None] = {}
    for char in text:
        if is_misleading(char):
            seen.setdefault(f"U+{ord(char):04X}", None)
    return list(seen)


def escape_misleading(text: str) -> str:
    """``text`` with each misleading character written as a visible ``\\uXXXX`` escape.

    Every value of a report goes through here: each distinct character is looked at once (a
    report's text holds a few hundred), not each of its many thousands."""
    if text.isprintable():  # no control or format character at all: the common case, in C
        return text
    for char in {char for char in set(text) if is_misleading(char)}:
        text = text.replace(char, f"\\u{ord(char):04x}")  # an escape is printable ASCII
    return text


def unprintable_characters(text: str) -> list[str]:
    """For one-line names (a signer's identity): the misleading characters and anything else
    unprintable (tab, newline, line separators, odd spaces), as ``U+XXXX`` codes, once each."""
    seen: dict[str, None] = {}
    for char in text:
        if is_misleading(char) or not char.isprintable():
            seen.setdefault(f"U+{ord(char):04X}", None)
    return list(seen)
