"""Where two JSON documents differ: the first differing field, by JSON path, with both values.

``verify`` names a contradiction or a failed rebuild by the field, not by the file's digest:
``decision.json: recommendation is h200-vllm; recomputed: mi325x-vllm``. The headline fields
of a decision (its id, recommendation, chosen candidate, verdict) are named first when they
differ; after them, the first difference in document order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

HEADLINE_FIELDS = ("decision_id", "recommendation", "chosen", "verdict")
"""Top-level fields named before any other difference: what a reader acts on."""

MAX_SHOWN = 120
"""Characters of a value shown in a message; the JSON documents hold every value in full."""


class _Absent:
    """A field one document has and the other lacks."""

    def __repr__(self) -> str:
        return "absent"


ABSENT = _Absent()


@dataclass(frozen=True)
class Difference:
    """One leaf that differs: its JSON path (``candidates[1].cost_per_month``) and both values
    (``ABSENT`` where a document lacks the field)."""

    path: str
    left: object
    right: object


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk(left: object, right: object, path: str) -> Iterator[Difference]:
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        for key in [*left, *(k for k in right if k not in left)]:
            yield from _walk(left.get(key, ABSENT), right.get(key, ABSENT), _child(path, str(key)))
        return
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        for index in range(max(len(left), len(right))):
            a = left[index] if index < len(left) else ABSENT
            b = right[index] if index < len(right) else ABSENT
            yield from _walk(a, b, f"{path}[{index}]")
        return
    # bool is an int in Python; true and 1 differ in JSON.
    if left != right or type(left) is not type(right):
        yield Difference(path or "(the whole document)", left, right)


def differences(left: object, right: object) -> Iterator[Difference]:
    """Every leaf that differs, the headline fields first, then in ``left``'s document order."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        for key in HEADLINE_FIELDS:
            if key in left or key in right:
                yield from _walk(left.get(key, ABSENT), right.get(key, ABSENT), key)
        left = {k: v for k, v in left.items() if k not in HEADLINE_FIELDS}
        right = {k: v for k, v in right.items() if k not in HEADLINE_FIELDS}
    yield from _walk(left, right, "")


def first_difference(left: object, right: object) -> Difference | None:
    """The first differing leaf (see ``differences``), or None when the two are equal."""
    if _same(left, right):  # the common case (verify compares whole documents), in C
        return None
    return next(differences(left, right), None)


def _same(left: object, right: object) -> bool:
    """True when the two are the same JSON value, type for type (``==`` alone holds ``true``
    equal to ``1`` and ``1`` to ``1.0``; their JSON texts do not). False when unsure (a NaN,
    which ``==`` may hold equal to itself, or a value JSON cannot write): ``differences`` then
    decides."""
    try:
        return left == right and json.dumps(left, sort_keys=True, allow_nan=False) == json.dumps(
            right, sort_keys=True, allow_nan=False
        )
    except (TypeError, ValueError):
        return False


def show(value: object) -> str:
    """A value for a one-line message: strings as they are, others as compact JSON, cut short."""
    if value is ABSENT:
        return "absent"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def parse_object(raw: bytes) -> dict[str, object] | None:
    """``raw`` as a JSON object, or None when it is not one (bad UTF-8, bad JSON, too deep)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
