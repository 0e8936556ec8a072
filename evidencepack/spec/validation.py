"""Turn pydantic validation errors into ``file:line:col: field.path: message`` lines.

Generic over any StrictModel loaded from a LocatedDocument; adds "did you mean" to unknown keys.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar, Union

import pydantic
from pydantic import BaseModel

from ..core.problems import Problem, located
from ..errors import InputError
from .located import Loc, LocatedDocument, Position, dotted

M = TypeVar("M", bound=BaseModel)


TODO = "TODO"
"""The placeholder ``evidencepack init`` leaves for what only the team can state."""


def validate_located(model: type[M], doc: LocatedDocument, path: Path) -> M:
    """Validate ``doc.data`` against ``model``; raise InputError with every problem located.

    A value still ``TODO`` is one problem, named with the hint its line's comment gives, and
    never also reported as a wrong type."""
    todos = list(_todo_locs(doc.data, ()))
    lines = _lines(path) if todos else []
    found = {_todo_problem(doc, path, lines, loc) for loc in todos}
    result: M | None = None
    cause: pydantic.ValidationError | None = None
    try:
        result = model.model_validate(doc.data)
    except pydantic.ValidationError as exc:
        cause = exc
        for error in exc.errors(include_url=False):
            _, matched = doc.position(tuple(error["loc"]))
            if matched not in todos:
                found.add(_format(model, doc, path, error))
    if found or result is None:
        problems = [p for _, p in sorted(found, key=lambda item: (item[0], item[1].text))]
        raise InputError(f"{path}: {len(problems)} problem(s) in the spec", problems) from cause
    return result


def _todo_locs(data: Any, loc: Loc) -> Iterator[Loc]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _todo_locs(value, (*loc, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _todo_locs(value, (*loc, index))
    elif isinstance(data, str) and data.strip() == TODO:
        yield loc


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _todo_problem(
    doc: LocatedDocument, path: Path, lines: list[str], loc: Loc
) -> tuple[tuple[int, int], Problem]:
    """``still TODO``, with the hint the line's comment gives (``# p99 ... in ms``)."""
    position, matched = doc.position(loc)
    hint = None
    line = lines[position.line - 1] if 0 < position.line <= len(lines) else ""
    comment = re.search(r"\bTODO\b[\s}\]]*,?[^#]*#\s*(.+)$", line[position.column - 1 :])
    if comment:
        hint = comment.group(1).strip()
    text = _at(
        path, position, dotted(matched), "todo", "still TODO: fill in this value", hint, paren=True
    )
    return (position.line, position.column), text


def _at(
    path: Path,
    position: Position,
    field: str,
    code: str,
    message: str,
    hint: str | None = None,
    *,
    paren: bool = False,
) -> Problem:
    """The problem at ``position``: ``; hint`` after the message, or `` (hint)`` with ``paren``."""
    return located(
        str(path), position.line, position.column, field, code, message, hint, paren=paren
    )


def located_problem(
    doc: LocatedDocument, path: Path, loc: Loc, message: str, hint: str | None = None
) -> Problem:
    """One problem for a check made after validation (semantic rules, file paths)."""
    position, matched = doc.position(loc)
    return _at(path, position, dotted(loc if loc else matched), "spec_rule", message, hint)


def _format(
    model: type[BaseModel], doc: LocatedDocument, path: Path, error: Any
) -> tuple[tuple[int, int], Problem]:
    loc: Loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        position, matched = doc.position(loc, prefer_key=True)
        hint = None
        allowed = _allowed_keys(model, loc[:-1])
        if allowed and isinstance(loc[-1], str):
            close = difflib.get_close_matches(loc[-1], allowed, n=1, cutoff=0.6)
            if close:
                hint = f"did you mean {close[0]!r}?"
            else:
                hint = f"expected one of: {', '.join(sorted(allowed))}"
        text = _at(path, position, dotted(matched), kind, "unknown key", hint)
        return (position.line, position.column), text
    position, matched = doc.position(loc)
    if kind == "missing":
        # The key is absent, so point at the mapping that should hold it.
        field = dotted((*matched, loc[-1]))
        return (position.line, position.column), _at(
            path, position, field, kind, "required field is missing"
        )
    message = error["msg"]
    if kind == "string_type" and isinstance(error.get("input"), int | float):
        text = _at(
            path,
            position,
            dotted(matched),
            kind,
            message,
            'quote the value in YAML, e.g. "0.9"',
            paren=True,
        )
        return (position.line, position.column), text
    hint = _form_hint(kind, error.get("input")) or None
    text = _at(path, position, dotted(matched), kind, message, hint)
    return (position.line, position.column), text


def _allowed_keys(model: type[BaseModel], loc: Loc) -> list[str]:
    """The keys the model accepts at ``loc`` (aliases where defined), or [] if unknown."""
    current: Any = model
    for element in loc:
        current = _step(current, element)
        if current is None:
            return []
    current = _unwrap(current, None)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or name for name, f in current.model_fields.items()]
    return []


def _step(annotation: Any, element: str | int) -> Any:
    annotation = _unwrap(annotation, element)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(element, str):
            return None
        for name, info in annotation.model_fields.items():
            if element in (name, info.alias):
                return info.annotation
        return None
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, tuple, set, frozenset) and isinstance(element, int) and args:
        return args[0]
    if origin is dict and args:
        return args[1]
    return None


def _unwrap(annotation: Any, element: str | int | None) -> Any:
    """Strip Annotated/Optional and pick the union member that can hold ``element``."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        if origin in (Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
            annotation = models[0] if models else members[0]
            continue
        return annotation


_DATE_KINDS = frozenset({"date_type", "date_parsing", "date_from_datetime_parsing"})
_NUMBER_KINDS = frozenset({"float_parsing", "int_parsing", "float_type", "int_type"})


def _form_hint(kind: str, value: Any) -> str:
    """The expected form of a value a user wrote another way (``15%``, ``31/10/2026``)."""
    if kind in _NUMBER_KINDS and isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            try:
                number = float(text[:-1])
            except ValueError:
                return "write a plain number"
            return f"write a fraction without %: {text} is {number / 100:g}"
        if re.fullmatch(r"[0-9][0-9,_ ]*(\.[0-9]+)?", text) and re.search(r"[,_ ]", text):
            return f"write the number without separators: {re.sub(r'[,_ ]', '', text)}"
        return "write a plain number, e.g. 0.6 or 2000"
    if kind in _DATE_KINDS:
        return "write the date as YYYY-MM-DD" + _date_guess(value)
    return ""


def _date_guess(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    match = re.fullmatch(r"\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*", value)
    if not match:
        return ""
    first, second, year = (int(g) for g in match.groups())
    guesses = []
    for day, month in ((first, second), (second, first)):
        try:
            guesses.append(dt.date(year, month, day).isoformat())
        except ValueError:
            continue
    guesses = sorted(set(guesses))
    if not guesses:
        return ""
    return f" ({' or '.join(guesses)}?)" if len(guesses) > 1 else f" ({guesses[0]})"
