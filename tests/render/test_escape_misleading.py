"""``escape_misleading`` (every value of a report goes through it) escapes exactly the characters
``is_misleading`` names, each as ``\\uXXXX``, whatever else the text holds."""

from __future__ import annotations

import random

import pytest

from evidencepack.core._text import escape_misleading, is_misleading


def _one_by_one(text: str) -> str:
    """The definition: each character looked at on its own."""
    return "".join(f"\\u{ord(char):04x}" if is_misleading(char) else char for char in text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ASCII, nothing to escape",
        "tab\tnewline\ncarriage\r stay",
        "AMD \u202eX523IM",
        "zero\u200bwidth, BOM \ufeff, soft\xadhyphen, bell \x07, DEL \x7f, NUL \x00",
        "no-break\xa0space, thin\u2009space, line\u2028separator: kept (not misleading)",
        "already escaped: \\u202e stays as typed \u202e",
        "≤ 5 ms × 3 — ✓ 🚀 e\u0301",
    ],
)
def test_escapes_exactly_the_misleading_characters(text: str) -> None:
    assert escape_misleading(text) == _one_by_one(text)


def test_random_text_over_controls_formats_and_others() -> None:
    pool = [chr(c) for c in (*range(0, 0x80), 0xA0, 0xAD, 0x200B, 0x200E, 0x202A, 0x202E)]
    pool += [chr(c) for c in (0x2028, 0x2066, 0xFEFF, 0xE000, 0x1F680, 0x301, 0x3000)]
    rng = random.Random(45)
    for _ in range(500):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))
        assert escape_misleading(text) == _one_by_one(text), repr(text)
