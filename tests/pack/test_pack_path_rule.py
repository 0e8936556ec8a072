"""The pack-path rule in one pattern (``PACK_PATH``, what ``verify`` checks per pack file) says
exactly what ``pack_path_problem``'s rules say, name for name, over every short name built from
the characters that matter (separators, dots, drive letters, controls, non-ASCII)."""

from __future__ import annotations

import itertools
import random

from evidencepack.pack.layout import PACK_PATH, pack_path_problem

_ALPHABET = ("a", ".", "..", "/", "\\", "\n", "\x7f", "\x1f", "C", ":", "é", " ", "\x85")


def _rules(name: str) -> bool:
    """The rules as the module states them one by one (True: a safe pack path)."""
    if not name or any(c in name for c in "\\") or any(ord(c) < 0x20 or c == "\x7f" for c in name):
        return False
    if name.startswith("/") or (
        len(name) > 1 and name[0].isascii() and name[0].isalpha() and name[1] == ":"
    ):
        return False
    return not any(part in ("", ".", "..") for part in name.split("/"))


def _names() -> list[str]:
    names = ["".join(t) for n in range(5) for t in itertools.product(_ALPHABET, repeat=n)]
    rng = random.Random(45)
    names += ["".join(rng.choices(_ALPHABET, k=rng.randint(5, 12))) for _ in range(20_000)]
    return names


def test_the_one_pattern_is_the_rules() -> None:
    for name in _names():
        expected = _rules(name)
        assert (PACK_PATH.fullmatch(name) is not None) == expected, repr(name)
        assert (pack_path_problem(name) is None) == expected, repr(name)


def test_the_messages_are_unchanged() -> None:
    assert pack_path_problem("inputs/runs/a b.json") is None
    assert pack_path_problem("...") is None  # three dots are a name
    assert str(pack_path_problem("a/../b")).startswith("path is not normalised")
    assert str(pack_path_problem("C:x")).startswith("absolute path")
    assert str(pack_path_problem("x/C:y")) == "None"  # a drive only at the start
    assert str(pack_path_problem("a\tb")).startswith("control character")
