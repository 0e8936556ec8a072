"""Turn pydantic validation errors into ``file:line:col: field.path: message`` lines.

Generic over any StrictModel loaded from a LocatedDocument; adds "did you mean" to unknown keys.
"""

from __future__ import annotations

import difflib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar, Union

import pydantic
from pydantic import BaseModel

from ._yaml import Loc, LocatedDocument, dotted
from .errors import InputError

M = TypeVar("M", bound=BaseModel)


def validate_located(model: type[M], doc: LocatedDocument, path: Path) -> M:
    """Validate ``doc.data`` against ``model``; raise InputError with every problem located."""
    try:
        return model.model_validate(doc.data)
    except pydantic.ValidationError as exc:
        found = {_format(model, doc, path, error) for error in exc.errors(include_url=False)}
        problems = [text for _, text in sorted(found, key=lambda item: (item[0], item[1]))]
        raise InputError(f"{path}: {len(problems)} problem(s) in the spec", problems) from exc


def located_problem(doc: LocatedDocument, path: Path, loc: Loc, message: str) -> str:
    """One problem line for a check made after validation (semantic rules, file paths)."""
    position, matched = doc.position(loc)
    return f"{path}:{position}: {dotted(loc if loc else matched)}: {message}"


def _format(
    model: type[BaseModel], doc: LocatedDocument, path: Path, error: Any
) -> tuple[tuple[int, int], str]:
    loc: Loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        position, matched = doc.position(loc, prefer_key=True)
        message = "unknown key"
        allowed = _allowed_keys(model, loc[:-1])
        if allowed and isinstance(loc[-1], str):
            close = difflib.get_close_matches(loc[-1], allowed, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]!r}?"
            else:
                message += f"; expected one of: {', '.join(sorted(allowed))}"
        return (position.line, position.column), f"{path}:{position}: {dotted(matched)}: {message}"
    position, matched = doc.position(loc)
    message = error["msg"]
    if kind == "missing":
        # The key is absent, so point at the mapping that should hold it.
        text = f"{path}:{position}: {dotted((*matched, loc[-1]))}: required field is missing"
        return (position.line, position.column), text
    if kind == "string_type" and isinstance(error.get("input"), int | float):
        message += ' (quote the value in YAML, e.g. "0.9")'
    return (position.line, position.column), f"{path}:{position}: {dotted(matched)}: {message}"


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
