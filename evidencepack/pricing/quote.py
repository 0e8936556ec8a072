"""A supplier's quote cited as evidence: a small YAML or CSV file, read strictly with its digest.

YAML holds the quote as one mapping (``supplier``, ``reference``, ``currency``, ``issued``,
``valid_until``, ``lines``); CSV holds one priced line a row, each row repeating the quote's
own columns. Either way every problem is reported at once as ``file:line:col: field: message``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path
from typing import Any

from ..core._text import misleading_characters
from ..core.limits import MAX_SPEC_BYTES, read_limited
from ..core.problems import Problem, by_position, located
from ..core.provenance import FileRecord, file_record
from ..errors import InputError
from ..spec.located import LocatedDocument, Position, load_located
from ..spec.validation import validate_located
from .models import HOURS_PER_MONTH, Quote, QuoteFile, QuoteLine

QUOTE_COLUMNS = ("supplier", "reference", "currency", "issued", "valid_until")
"""The quote's own columns in a CSV quote: the same value on every row."""

LINE_COLUMNS = ("item", "unit", "price", "quantity", "accelerators_per_server")
"""One priced line's columns in a CSV quote (``quantity`` and ``accelerators_per_server`` may
be left out or empty)."""

_OPTIONAL = frozenset({"quantity", "accelerators_per_server"})
_NUMBERS = {"price": float, "quantity": int, "accelerators_per_server": int}


def read_quote(
    path: Path, *, record: FileRecord | None = None, read_from: Path | None = None
) -> Quote:
    """The quote in ``path`` (``.yaml``/``.yml`` or ``.csv``) with the file's provenance.

    ``record`` is the file's provenance when the caller already has it; ``read_from`` (default
    ``path``) is the file whose bytes are read, such as a build's private snapshot of ``path``
    (messages and the record still name ``path``). Raises ``InputError`` listing every problem
    as ``file:line:col: field: message``.
    """
    source_file = read_from or path
    suffix = path.suffix.lower()
    problems: list[Problem] = []
    if suffix in (".yaml", ".yml"):
        doc = load_located(path, read_from=source_file)
    elif suffix == ".csv":
        doc = _csv_document(path, source_file, problems)
    else:
        raise InputError(f"{path}: a quote is a .yaml, .yml or .csv file, not {suffix or 'this'}")
    content: QuoteFile | None = None
    cause: InputError | None = None
    try:
        content = validate_located(QuoteFile, doc, path)
    except InputError as exc:
        cause = exc
        problems.extend(exc.found)
    if problems or content is None:
        ordered = sorted(set(problems), key=by_position)
        raise InputError(f"{path}: {len(ordered)} problem(s) in the quote", ordered) from cause
    if record is None:
        record = file_record(source_file).model_copy(update={"path": str(path)})
    return Quote(**dict(content), file=record)


def _at(path: Path, line: int, column: int, field: str | None, message: str) -> Problem:
    """A problem of a CSV quote at ``line:column``."""
    return located(str(path), line, column, field, "input", message)


def _csv_document(path: Path, source_file: Path, problems: list[Problem]) -> LocatedDocument:
    """A CSV quote as the mapping a YAML quote would hold, each cell's line and column kept.

    Problems only CSV can have (cells differing between rows, unknown columns) are added to
    ``problems``; validation adds the rest, so every problem is reported at once."""
    raw = read_limited(source_file, MAX_SPEC_BYTES, what="quote", label=str(path))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise InputError(f"{path}:1:1: the file is empty") from None
    except csv.Error as exc:
        raise InputError(f"{path}:1:1: not CSV: {exc}") from exc
    problems.extend(_header_problems(path, header))
    doc = LocatedDocument(data={}, value_positions={(): Position(1, 1)})
    lines: list[dict[str, Any]] = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            number = reader.line_num
            if len(row) != len(header):
                problems.append(
                    _at(
                        path,
                        number,
                        1,
                        None,
                        f"{len(row)} cell(s) where the header has {len(header)}",
                    )
                )
                continue
            line = _csv_row(path, number, header, row, doc, len(lines), problems)
            lines.append(line)
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}:1: not CSV: {exc}") from exc
    if not lines:
        problems.append(
            _at(path, 2, 1, "lines", "no row after the header: the quote prices nothing")
        )
        ordered = sorted(problems, key=by_position)
        raise InputError(f"{path}: {len(ordered)} problem(s) in the quote", ordered)
    doc.data["lines"] = lines
    doc.value_positions[("lines",)] = doc.value_positions[("lines", 0)]
    return doc


def _header_problems(path: Path, header: list[str]) -> list[Problem]:
    """Unknown, repeated or missing columns of a CSV quote's header (line 1)."""
    known = (*QUOTE_COLUMNS, *LINE_COLUMNS)
    problems: list[Problem] = []
    for index, name in enumerate(header):
        if name not in known:
            message = f"unknown column {name!r}; expected: {', '.join(known)}"
            problems.append(_at(path, 1, index + 1, None, message))
        elif header.index(name) != index:
            problems.append(_at(path, 1, index + 1, None, f"the column {name!r} appears twice"))
    problems.extend(
        _at(path, 1, 1, None, f"the required column {name!r} is missing")
        for name in known
        if name not in header and name not in _OPTIONAL
    )
    return problems


def _csv_row(
    path: Path,
    number: int,
    header: list[str],
    row: list[str],
    doc: LocatedDocument,
    index: int,
    problems: list[Problem],
) -> dict[str, Any]:
    """One data row: its line's cells, and the quote's own cells checked against row 1's."""
    line: dict[str, Any] = {}
    doc.value_positions[("lines", index)] = Position(number, 1)
    for column, (name, cell) in enumerate(zip(header, row, strict=True), start=1):
        value = cell.strip()
        where = Position(number, column)
        bad = misleading_characters(value)
        if bad:
            message = f"control or bidi character(s) {', '.join(bad)}"
            problems.append(_at(path, where.line, where.column, name, message))
            continue
        if name in QUOTE_COLUMNS:
            if name not in doc.data:
                doc.data[name] = value
                doc.value_positions[(name,)] = where
            elif doc.data[name] != value:
                first = doc.value_positions[(name,)]
                message = (
                    f"{value!r} differs from {doc.data[name]!r} on line {first.line}; a CSV "
                    "quote repeats one value on every row"
                )
                problems.append(_at(path, where.line, where.column, name, message))
        elif name in LINE_COLUMNS and not (name in _OPTIONAL and value == ""):
            line[name] = _number(name, value)
            doc.value_positions[("lines", index, name)] = where
    return line


def _number(name: str, value: str) -> Any:
    """A numeric cell as its number; anything else stays text for validation to name."""
    kind = _NUMBERS.get(name)
    if kind is None:
        return value
    try:
        return kind(value)
    except ValueError:
        return value


def quote_is_current(quote: QuoteFile, as_of: dt.date) -> bool:
    """Whether ``as_of`` falls within the quote's validity: from ``issued`` to ``valid_until``."""
    return quote.issued <= as_of <= quote.valid_until


def quote_line(quote: Quote, item: str) -> QuoteLine:
    """The line of ``quote`` that prices ``item``; ``InputError`` naming the items it has."""
    for line in quote.lines:
        if line.item == item:
            return line
    items = ", ".join(repr(line.item) for line in quote.lines)
    raise InputError(f"{quote.file.path}: lines: no item {item!r}; the quote prices {items}")


def _per_server(quote: Quote, line: QuoteLine) -> int:
    if line.accelerators_per_server is None:
        raise InputError(
            f"{quote.file.path}: lines: {line.item!r} is priced per {line.unit}; state its "
            "accelerators_per_server to convert between servers and accelerators"
        )
    return line.accelerators_per_server


def _hourly(quote: Quote, line: QuoteLine) -> float:
    """The price of one hour of the line's unit (server or accelerator)."""
    if line.unit in ("server", "accelerator"):
        raise InputError(
            f"{quote.file.path}: lines: {line.item!r} is a purchase price per {line.unit}, not "
            "a rate per hour; use it as a purchase price"
        )
    return line.price / HOURS_PER_MONTH if line.unit.endswith("-month") else line.price


def rate_per_accelerator_hour(quote: Quote, item: str) -> float:
    """The quoted price of one accelerator-hour of ``item``, in ``quote.currency``.

    A per-server price is divided by ``accelerators_per_server``; a per-month price by
    ``HOURS_PER_MONTH`` (730). A purchase price (unit ``server`` or ``accelerator``) is refused.
    """
    line = quote_line(quote, item)
    hourly = _hourly(quote, line)
    return hourly / _per_server(quote, line) if line.unit.startswith("server") else hourly


def rate_per_server_hour(quote: Quote, item: str) -> float:
    """The quoted price of one server-hour of ``item``, in ``quote.currency``.

    A per-accelerator price is multiplied by ``accelerators_per_server``; a per-month price is
    divided by ``HOURS_PER_MONTH`` (730). A purchase price is refused.
    """
    line = quote_line(quote, item)
    hourly = _hourly(quote, line)
    return hourly * _per_server(quote, line) if line.unit.startswith("accelerator") else hourly


def purchase_price_per_server(quote: Quote, item: str) -> float:
    """The quoted purchase price of one server of ``item`` (unit ``server``, or ``accelerator``
    times ``accelerators_per_server``); a rate (per hour or month) is refused."""
    line = quote_line(quote, item)
    if line.unit == "server":
        return line.price
    if line.unit == "accelerator":
        return line.price * _per_server(quote, line)
    raise InputError(
        f"{quote.file.path}: lines: {line.item!r} is a rate per {line.unit}, not a purchase price"
    )
