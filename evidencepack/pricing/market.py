"""A market reference for prices: a dated price index or public price list (CSV or JSON).

One row per observed price: ``provider``, ``accelerator`` (as the provider names it),
``region``, ``price`` (per accelerator-hour), ``currency`` (ISO 4217) and ``date`` (ISO date).
CSV has a header row naming those columns; JSON is a list of such objects, or ``{"rows": [...]}``.
Every problem is reported at once, located by row (``file:row N: field: message``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.limits import MAX_SPEC_BYTES, read_limited
from ..errors import InputError

COLUMNS = ("provider", "accelerator", "region", "price", "currency", "date")
"""The columns (or keys) every row states."""


@dataclass(frozen=True)
class MarketPrice:
    """One observed price per accelerator-hour."""

    provider: str
    accelerator: str
    region: str
    price: float
    currency: str
    date: dt.date


def _rows(path: Path, data: bytes) -> list[tuple[str, dict[str, Any]]]:
    text = data.decode("utf-8-sig")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise InputError(f"{path}: the header names no {', '.join(missing)} column")
        return [(f"row {i}", dict(row)) for i, row in enumerate(reader, start=2)]
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not JSON: {exc}") from exc
        rows = doc.get("rows") if isinstance(doc, dict) else doc
        if not isinstance(rows, list):
            raise InputError(f"{path}: expected a list of rows, or an object with 'rows'")
        return [(f"rows[{i}]", row) for i, row in enumerate(rows)]
    raise InputError(f"{path}: a price index is a .csv or .json file, not {path.suffix or 'this'}")


def read_market(path: Path, *, read_from: Path | None = None) -> list[MarketPrice]:
    """The rows of the price index ``path`` (bytes read from ``read_from``, default ``path``);
    InputError listing every bad row."""
    data = read_limited(read_from or path, MAX_SPEC_BYTES)
    out: list[MarketPrice] = []
    problems: list[str] = []
    for where, row in _rows(path, data):
        if not isinstance(row, dict):
            problems.append(f"{path}:{where}: expected an object")
            continue
        texts = {k: str(row.get(k) or "").strip() for k in COLUMNS}
        empty = [k for k in COLUMNS if not texts[k]]
        if empty:
            problems.append(f"{path}:{where}: {', '.join(empty)}: missing")
            continue
        try:
            price = float(texts["price"])
        except ValueError:
            problems.append(f"{path}:{where}: price: {texts['price']!r} is not a number")
            continue
        if not math.isfinite(price) or price <= 0:
            problems.append(f"{path}:{where}: price: {texts['price']} is not a positive price")
            continue
        try:
            date = dt.date.fromisoformat(texts["date"])
        except ValueError:
            problems.append(f"{path}:{where}: date: {texts['date']!r} is not an ISO date")
            continue
        currency = texts["currency"].upper()
        if len(currency) != 3 or not currency.isalpha():
            problems.append(f"{path}:{where}: currency: {texts['currency']!r} is not ISO 4217")
            continue
        out.append(
            MarketPrice(
                texts["provider"], texts["accelerator"], texts["region"], price, currency, date
            )
        )
    if problems:
        raise InputError(f"{path}: {len(problems)} bad row(s)", problems=problems)
    if not out:
        raise InputError(f"{path}: the price index holds no row")
    return out


@dataclass(frozen=True)
class MarketReference:
    """A price index as cited: the spec's name for it, how far outside is far, its rows."""

    name: str
    far_outside: float
    prices: tuple[MarketPrice, ...]
    pack_path: str | None = None
