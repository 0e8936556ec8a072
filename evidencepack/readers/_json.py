"""Read JSON values with their JSON path, so every complaint names the file and where in it.

``Node`` wraps a parsed value and its location (``$.benchmarks[2].metrics``, or
``line 7: $.ttft`` in JSONL); typed getters reject wrong types, NaN, infinities and negatives.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..staging.json_lines import NESTING as NESTING
from ..staging.json_lines import fail as fail
from ..staging.json_lines import iter_json_lines as iter_json_lines


def load_json_document(path: Path, name: str | None = None) -> Any:
    """Parse a whole JSON document; a syntax error names the line and column (of ``name``,
    what messages call the file; default: ``path``)."""
    shown = str(path) if name is None else name
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except RecursionError as exc:
        raise fail(shown, "$", NESTING) from exc
    except MemoryError as exc:
        raise fail(shown, "$", "too large to parse in memory") from exc
    except json.JSONDecodeError as exc:
        what = "truncated JSON" if exc.pos >= _size(path) - 1 else "malformed JSON"
        raise fail(shown, f"line {exc.lineno} column {exc.colno}", f"{what}: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise fail(shown, f"byte {exc.start}", "not UTF-8 text") from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", file=shown) from exc


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class Node:
    """A JSON value, the file it came from and its JSON path."""

    __slots__ = ("file", "prefix", "value", "where")

    def __init__(self, value: Any, file: Path | str, where: str = "$", prefix: str = "") -> None:
        self.value = value
        self.file = file
        self.where = where
        self.prefix = prefix

    @property
    def location(self) -> str:
        """Where this node is, as an error names it (``prefix`` + JSON path)."""
        return f"{self.prefix}{self.where}"

    def error(self, message: str) -> InputError:
        """An ``InputError`` naming the file and this node's location."""
        return fail(self.file, self.location, message)

    # -- navigation -------------------------------------------------------------------------

    def child(self, key: str | int) -> Node:
        """The member ``key`` (or element ``key``); a node holding None when absent."""
        where = f"{self.where}[{key}]" if isinstance(key, int) else f"{self.where}.{key}"
        value = self.value[key] if self._has(key) else None
        return Node(value, self.file, where, self.prefix)

    def _has(self, key: str | int) -> bool:
        if isinstance(key, int):
            return isinstance(self.value, list) and 0 <= key < len(self.value)
        return isinstance(self.value, dict) and key in self.value

    def has(self, key: str) -> bool:
        """Whether the member ``key`` is present and not null."""
        return self._has(key) and self.value[key] is not None

    def path(self, *keys: str | int) -> Node:
        """The node reached by following ``keys`` in turn (absent steps give None)."""
        node = self
        for key in keys:
            node = node.child(key)
        return node

    def obj(self, key: str | None = None, *, required: bool = False) -> Node | None:
        """An object member (or this node): None when absent unless ``required``; a
        non-object value is an error."""
        node = self.child(key) if key is not None else self
        if node.value is None:
            if required:
                raise node.error("required object is missing")
            return None
        if not isinstance(node.value, dict):
            raise node.error(f"expected an object, found {_kind(node.value)}")
        return node

    def need(self, key: str) -> Node:
        """A required object member."""
        node = self.obj(key, required=True)
        assert node is not None  # obj(required=True) raises instead of returning None
        return node

    def need_int(self, key: str) -> int:
        """A required whole number."""
        value = self.int_(key, required=True)
        assert value is not None  # int_(required=True) raises instead of returning None
        return value

    def items(self, key: str | None = None) -> list[Node]:
        """The elements of a list (an absent or null value is an empty list)."""
        node = self.child(key) if key is not None else self
        if node.value is None:
            return []
        if not isinstance(node.value, list):
            raise node.error(f"expected a list, found {_kind(node.value)}")
        return [node.child(i) for i in range(len(node.value))]

    # -- typed values -----------------------------------------------------------------------

    def num(
        self, key: str | None = None, *, required: bool = False, negative_ok: bool = False
    ) -> float | None:
        """A finite number; NaN, infinities, booleans, strings and (by default) negatives fail."""
        if type(key) is str and type(self.value) is dict:
            # the common case without a child node (a reader asks for every field of every
            # run): a present finite number, or an absent optional one; the rest below
            value = self.value.get(key)
            if isinstance(value, float | int) and type(value) is not bool:
                number = float(value)
                if math.isfinite(number) and (number >= 0 or negative_ok):
                    return number
            elif value is None and not required:
                return None
        node = self.child(key) if key is not None else self
        value = node.value
        if value is None:
            if required:
                raise node.error("required number is missing")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise node.error(f"expected a number, found {_kind(value)}")
        number = float(value)
        if math.isnan(number):
            raise node.error("NaN is not a measurement")
        if math.isinf(number):
            raise node.error("an infinite value is not a measurement")
        if number < 0 and not negative_ok:
            raise node.error(f"negative value {value} is not a valid measurement")
        return number

    def int_(self, key: str | None = None, *, required: bool = False) -> int | None:
        """A whole number, checked as ``num`` is; a fraction is an error."""
        number = self.num(key, required=required)
        if number is None:
            return None
        if number != int(number):
            node = self.child(key) if key is not None else self
            raise node.error(f"expected a whole number, found {number}")
        return int(number)

    def str_(self, key: str | None = None, *, required: bool = False) -> str | None:
        """A text value; None when absent unless ``required``; any other type is an error."""
        node = self.child(key) if key is not None else self
        value = node.value
        if value is None:
            if required:
                raise node.error("required text is missing")
            return None
        if not isinstance(value, str):
            raise node.error(f"expected text, found {_kind(value)}")
        return value

    def bool_(self, key: str | None = None) -> bool | None:
        """``true`` or ``false``; None when absent; any other value is an error."""
        node = self.child(key) if key is not None else self
        if node.value is None:
            return None
        if not isinstance(node.value, bool):
            raise node.error(f"expected true or false, found {_kind(node.value)}")
        return node.value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, list):
        return "a list"
    return "an object"


def scalar_settings(node: Node | None, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The keys of an object (the named ones, else all) whose values are plain finite scalars,
    for ``Identity.settings``."""
    if node is None or not isinstance(node.value, dict):
        return {}
    out: dict[str, Any] = {}
    for key in node.value if keys is None else keys:
        value = node.value.get(key)
        finite = not (isinstance(value, float) and not math.isfinite(value))
        if isinstance(value, str | int | float | bool) and finite:
            out[key] = value
    return out


def text_or_none(value: Any) -> str | None:
    """A non-empty string value as is; anything else (absent, empty, not text) is None."""
    return value if isinstance(value, str) and value else None
