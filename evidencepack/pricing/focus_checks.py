"""Checks on the rows a FOCUS filter kept, each failure naming the file, column and data row.

They run on the ``kept`` table ``pricing.focus`` builds (every column text, ``data_row`` 1 for
the first row after the header, ``period_start``/``period_end`` parsed), in SQL over all rows.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError
from .models import UnitPriceRange


class _Db(Protocol):
    """What these checks need of the FOCUS connection."""

    def execute(self, sql: str, params: Any = None) -> Any:
        """Run one parameterised statement."""


ABSURD = {"ConsumedQuantity": 1e9, "EffectiveCost": 1e12}
"""The largest magnitude a kept row's hours or cost may have: past it the row is damaged (a
billion hours is 114,000 years; 1e12 is the spec's own limit on money)."""


def _hour_units(units: tuple[str, ...]) -> list[str]:
    return sorted({unit.strip().lower() for unit in units})


def check_kept(db: _Db, path: Path, hour_units: tuple[str, ...]) -> str:
    """The one currency of the kept rows, after checking each is summable in hours.

    Raises ``InputError`` for the first kept row (by data row) whose ConsumedUnit is not an
    hour unit, whose ConsumedQuantity or EffectiveCost is missing or not a finite number, or
    whose charge period is not a timestamp (a negative quantity, a correction or refund, is
    netted: the sums are checked by the caller); and for kept rows
    in several currencies, naming each with its row count.
    """
    units = _hour_units(hour_units)
    bad_unit = db.execute(
        "SELECT data_row, ConsumedUnit FROM kept "
        "WHERE ConsumedUnit IS NULL OR NOT list_contains(?, lower(trim(ConsumedUnit))) "
        "ORDER BY data_row LIMIT 1",
        [units],
    ).fetchone()
    if bad_unit is not None:
        seen = db.execute(
            "SELECT coalesce(ConsumedUnit, '(empty)') AS unit, count(*) FROM kept "
            "GROUP BY unit ORDER BY unit"
        ).fetchall()
        listing = ", ".join(f"{unit} ({n} rows)" for unit, n in seen)
        tokens = any("token" in str(unit).lower() for unit, _ in seen)
        raise InputError(
            f"{path}: data row {bad_unit[0]}: ConsumedUnit {bad_unit[1]!r} is not hours "
            f"(the kept rows' units: {listing}); narrow the filter, or add the unit to "
            "hour_units if it means hours"
            + (
                "; token rows are an API's price per 1M tokens (read on their own, "
                "pricing/focus_tokens.py), never blended with an hour rate"
                if tokens
                else ""
            )
        )
    for column in ("ConsumedQuantity", "EffectiveCost"):
        bad = db.execute(
            f"SELECT data_row, {column} FROM kept "
            f"WHERE isfinite(TRY_CAST({column} AS DOUBLE)) IS NOT TRUE ORDER BY data_row LIMIT 1"
        ).fetchone()
        if bad is not None:
            what = "is empty" if bad[1] is None else f"{bad[1]!r} is not a number"
            raise InputError(f"{path}: data row {bad[0]}: {column} {what}")
        limit = ABSURD[column]
        past = db.execute(
            f"SELECT data_row, {column} FROM kept WHERE abs(CAST({column} AS DOUBLE)) > ? "
            "ORDER BY data_row LIMIT 1",
            [limit],
        ).fetchone()
        if past is not None:
            raise InputError(
                f"{path}: data row {past[0]}: {column} {past[1]} is past any bill (at most "
                f"{limit:g} in magnitude): a damaged or hostile row"
            )
    bad_period = db.execute(
        "SELECT data_row, ChargePeriodStart, ChargePeriodEnd FROM kept "
        "WHERE period_start IS NULL OR period_end IS NULL ORDER BY data_row LIMIT 1"
    ).fetchone()
    if bad_period is not None:
        raise InputError(
            f"{path}: data row {bad_period[0]}: ChargePeriodStart/ChargePeriodEnd "
            f"{bad_period[1]!r}/{bad_period[2]!r} is not a timestamp"
        )
    currencies = db.execute(
        "SELECT coalesce(trim(BillingCurrency), '(empty)') AS c, count(*), min(data_row) "
        "FROM kept GROUP BY c ORDER BY c"
    ).fetchall()
    if len(currencies) > 1:
        listing = ", ".join(f"{c} ({n} rows, first at data row {row})" for c, n, row in currencies)
        raise InputError(
            f"{path}: BillingCurrency: the kept rows are billed in {len(currencies)} "
            f"currencies: {listing}; narrow the filter to one"
        )
    currency = str(currencies[0][0])
    if currency == "(empty)":
        raise InputError(f"{path}: data row {currencies[0][2]}: BillingCurrency is empty")
    return currency


def unit_price_range(
    db: _Db, present: set[str], column: str, hour_units: tuple[str, ...]
) -> UnitPriceRange | None:
    """The low and high of ``column`` on the kept rows, or None when it is absent, empty, or
    any kept row is priced in a unit other than hours (its unit price is then not hourly)."""
    if column not in present or "PricingUnit" not in present:
        return None
    low, high, other = db.execute(
        f'SELECT min(TRY_CAST("{column}" AS DOUBLE)), max(TRY_CAST("{column}" AS DOUBLE)), '
        "count(*) FILTER (WHERE PricingUnit IS NULL "
        "OR NOT list_contains(?, lower(trim(PricingUnit)))) FROM kept",
        [_hour_units(hour_units)],
    ).fetchone()
    if other or low is None or high is None or low < 0:
        return None
    return UnitPriceRange(low=float(low), high=float(high))


def row_warnings(db: _Db, rows: int) -> tuple[str, ...]:
    """Notes on the kept rows a reader of the rate should see: rows that cost nothing (a
    commitment, credit or free tier covers them) and negative rows (corrections, refunds)."""
    zero, negative = db.execute(
        "SELECT count(*) FILTER (WHERE CAST(EffectiveCost AS DOUBLE) = 0), "
        "count(*) FILTER (WHERE CAST(ConsumedQuantity AS DOUBLE) < 0) FROM kept"
    ).fetchone()
    out = []
    if zero:
        out.append(
            f"{zero} of the {rows} kept row(s) have EffectiveCost 0 (covered by a commitment, "
            "a credit or a free tier?); they count their hours at no cost in the rate"
        )
    if negative:
        out.append(
            f"{negative} of the {rows} kept row(s) have a negative ConsumedQuantity "
            "(corrections or refunds); they are netted against the others"
        )
    return tuple(out)


def csv_damage(path: Path) -> str | None:
    """Where a CSV the bulk reader refused is damaged: ``line N: ...``, or None if not found.

    Only run once DuckDB has failed, to name the line: one streamed pass with the csv module
    (RFC 4180, as FOCUS writes it) to the first record whose cell count differs from the
    header's, or that the csv module cannot parse.
    """
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.reader(_bounded_lines(handle), strict=True)
            width = len(next(reader, []))
            for row in reader:
                if len(row) != width:
                    return (
                        f"line {reader.line_num}: {len(row)} cell(s) where the header has "
                        f"{width} (a truncated file, or a quote left open?)"
                    )
    except _LineTooLong as exc:
        return f"line {exc.line}: longer than {MAX_LINE_CHARS:,} characters: not a CSV export"
    except csv.Error as exc:
        return f"line {reader.line_num}: {exc} (a truncated file, or a quote left open?)"
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte {exc.start}: {exc.reason})"
    except OSError:
        return None
    return None


MAX_LINE_CHARS = 1 << 20
"""The longest physical line ``csv_damage`` reads: a FOCUS row is a few kilobytes."""


class _LineTooLong(Exception):
    """A physical line past ``MAX_LINE_CHARS`` (a sparse or binary file read as text)."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _bounded_lines(handle: Any) -> Any:
    """The lines of a text file, each read with a bound (never a 2 GiB line into memory)."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_CHARS:
            raise _LineTooLong(number)
        yield line
