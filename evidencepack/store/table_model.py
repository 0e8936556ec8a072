"""A table is a pydantic row model: its DuckDB columns, DDL and row values come from the fields.

A field's DuckDB type follows its annotation: ``str`` (or a ``Literal`` of strings) VARCHAR,
``int`` BIGINT, ``float`` DOUBLE, ``bool`` BOOLEAN, ``datetime.date`` DATE, ``tuple[str, ...]``
VARCHAR[], ``JsonText`` JSON. ``X | None`` is a nullable column, any other field NOT NULL. The
Parquet the warehouse writes takes these types (DuckDB writes it), and the JSON Schema is
pydantic's of the same model, so a new column is one described field in one model.
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel


@dataclass(frozen=True)
class SqlType:
    """An explicit DuckDB type for a field, as ``Annotated`` metadata."""

    name: str


JsonText = Annotated[str, SqlType("JSON")]
"""A JSON document held as text (a DuckDB JSON column, a string in JSON Schema)."""

_SCALARS: dict[object, str] = {
    str: "VARCHAR",
    int: "BIGINT",
    float: "DOUBLE",
    bool: "BOOLEAN",
    dt.date: "DATE",
}


@dataclass(frozen=True)
class Column:
    """One column of a table: its name, DuckDB type and whether it may be NULL."""

    name: str
    sql_type: str
    nullable: bool


def _sql_type(annotation: object) -> tuple[str, bool]:
    """(DuckDB type, nullable) of a field's annotation."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"a column is one type or None, not {annotation}")
        return _sql_type(inner[0])[0], True
    if origin is Annotated:
        explicit = [m for m in args[1:] if isinstance(m, SqlType)]
        return (explicit[0].name if explicit else _sql_type(args[0])[0]), False
    if origin is Literal:
        if not all(isinstance(a, str) for a in args):
            raise TypeError(f"a Literal column holds strings, not {annotation}")
        return "VARCHAR", False
    if origin in (tuple, list) and args and args[0] is str:
        return "VARCHAR[]", False
    if annotation in _SCALARS:
        return _SCALARS[annotation], False
    raise TypeError(f"no DuckDB column type for {annotation}")


def table_columns(model: type[BaseModel]) -> tuple[Column, ...]:
    """The columns of a row model, in field order."""
    hints = typing.get_type_hints(model, include_extras=True)
    out = []
    for name in model.model_fields:
        sql_type, nullable = _sql_type(hints[name])
        out.append(Column(name, sql_type, nullable))
    return tuple(out)


def column_types(model: type[BaseModel]) -> dict[str, str]:
    """Column name -> DuckDB type of a row model, in field order."""
    return {c.name: c.sql_type for c in table_columns(model)}


@dataclass(frozen=True)
class Table:
    """A table: its name, its row model and its primary key (column names, may be empty)."""

    name: str
    model: type[BaseModel]
    key: tuple[str, ...] = ()

    def ddl(self) -> str:
        """``CREATE TABLE IF NOT EXISTS`` for the table (fixed names from the model)."""
        cols = [
            f"{c.name} {c.sql_type}" + ("" if c.nullable else " NOT NULL")
            for c in table_columns(self.model)
        ]
        if self.key:
            cols.append(f"PRIMARY KEY ({', '.join(self.key)})")
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({', '.join(cols)})"

    def insert(self) -> str:
        """``INSERT INTO <table> (<every column>) VALUES``, for ``Store.insert_rows``."""
        names = [c.name for c in table_columns(self.model)]
        return f"INSERT INTO {self.name} ({', '.join(names)}) VALUES"

    def values(self, rows: Sequence[BaseModel]) -> list[tuple[object, ...]]:
        """``rows`` (instances of the table's model) as parameter tuples in column order."""
        names = [c.name for c in table_columns(self.model)]
        out = []
        for row in rows:
            if type(row) is not self.model:
                raise TypeError(f"{self.name}: a row is a {self.model.__name__}, not {row!r}")
            out.append(tuple(_value(getattr(row, n)) for n in names))
        return out


def _value(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value
