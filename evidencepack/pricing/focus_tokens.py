"""An API's per-token prices in a FinOps FOCUS export: the token-usage rows (FOCUS 1.3, and the
1.5 draft's usage of AI models) read as a price per 1M input, cached-input and output tokens.

A token row is one whose ConsumedUnit (or PricingUnit) counts tokens: ``Tokens``, ``1K
Tokens``, ``1M Tokens`` (its ConsumedQuantity times that unit is the tokens). What it bills is
told from the words of SkuMeter, SkuPriceDetails, ChargeDescription and the ``x_`` columns:
cached input (``cached``, ``cache read``), input (``input``, ``prompt``) or output (``output``,
``completion``). Each direction's rate is sum(EffectiveCost) over its tokens, per 1M, with the
PricingCategory and commitment its rows carry; rows of several categories or commitments are a
problem named on the rate, never one blended figure. Rows in hours (or any other unit) are
left out and counted: an hour rate is ``focus.read_focus``'s, and the two are never blended.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..core.provenance import FileRecord, file_record
from ..errors import InputError
from ..spec.cost import FocusFilter, utc
from .focus import (
    PRICE_COLUMNS,
    RATE_COLUMNS,
    REQUIRED,
    _check_period_parses,
    _columns,
    _conditions,
    _count,
    _FocusDb,
    _instance_columns,
    _quote,
    _table,
    focus_version,
)
from .focus_rules import ACCOUNT_COLUMNS
from .models import FocusTokenRate, FocusTokenRates, TokenDirection, UnitPriceRange

_TEXT_COLUMNS = ("SkuMeter", "SkuPriceDetails", "ChargeDescription")
"""Where a token row says what it bills (with the file's ``x_`` columns)."""
TOKEN_UNIT = r"^\s*(?:(\d+(?:\.\d+)?)\s*(k|m|thousand|million)?\s+)?tokens?\s*$"
"""A token unit, its count and scale: ``Tokens``, ``1K Tokens``, ``1M tokens``,
``1000000 Tokens``."""
_SCALE_SQL = (
    "CASE WHEN regexp_matches(lower({u}), '" + TOKEN_UNIT + "') THEN "
    "coalesce(TRY_CAST(regexp_extract(lower({u}), '" + TOKEN_UNIT + "', 1) AS DOUBLE), 1) * "
    "CASE regexp_extract(lower({u}), '" + TOKEN_UNIT + "', 2) "
    "WHEN 'k' THEN 1e3 WHEN 'thousand' THEN 1e3 WHEN 'm' THEN 1e6 WHEN 'million' THEN 1e6 "
    "ELSE 1 END END"
)
"""SQL: the tokens one unit of ``{u}`` counts, NULL when it is not a token unit."""
_DIRECTIONS: tuple[tuple[TokenDirection, str], ...] = (
    ("cached_input", r"cached|cache[ _-]?(read|hit)"),
    ("input", r"input|prompt"),
    ("output", r"output|completion|generated"),
)


def read_focus_token_rates(
    path: Path,
    filters: FocusFilter,
    *,
    record: FileRecord | None = None,
    read_from: Path | None = None,
) -> FocusTokenRates:
    """The per-1M-token rates of the token rows of the FOCUS export at ``path`` that
    ``filters`` keep (InputError naming the file: not FOCUS, no token row kept, a kept token
    row whose numbers are missing, several currencies, a direction at no cost)."""
    source_file = read_from or path
    source = _table(path, source_file)  # a file that is no export is refused before hashing
    if record is None:
        record = file_record(source_file).model_copy(update={"path": str(path)})
    db = _FocusDb(path, source_file)
    with db:
        columns = _columns(db, path, source, filters)
        present = set(columns)
        text_columns = tuple(c for c in _instance_columns(columns) if c != "ChargeDescription")
        text_columns = (*[c for c in _TEXT_COLUMNS if c in present], *text_columns)
        text_columns = tuple(dict.fromkeys(text_columns))
        instance_columns = _instance_columns(columns) if filters.instance_type else ()
        wanted = [
            name
            for name in (*REQUIRED, *RATE_COLUMNS, *PRICE_COLUMNS, "ProviderName")
            + ("ServiceProviderName", "RegionId", "RegionName", "SkuId", "PricingCategory")
            + (*ACCOUNT_COLUMNS, *text_columns, *instance_columns)
            if name in present
        ]
        select = ", ".join(
            f"CAST({_quote(n)} AS VARCHAR) AS {_quote(n)}" for n in dict.fromkeys(wanted)
        )
        rows_sql = (
            "(SELECT *, TRY_CAST(ChargePeriodStart AS TIMESTAMPTZ) AS period_start, "
            "TRY_CAST(ChargePeriodEnd AS TIMESTAMPTZ) AS period_end FROM "
            f"(SELECT row_number() OVER () AS data_row, {select} FROM {source}))"
        )
        conditions = _conditions(filters, present, instance_columns)
        if filters.period_start is not None or filters.period_end is not None:
            _check_period_parses(db, rows_sql)
        kept = _count(db, rows_sql, conditions)
        where = " AND ".join(c.sql for c in conditions)
        params = [db.pattern, *(p for c in conditions for p in c.params)]
        words = (
            "lower(concat_ws(' | ', " + ", ".join(_quote(c) for c in text_columns) + "))"
            if text_columns
            else "''"
        )
        direction = "CASE " + " ".join(
            f"WHEN regexp_matches({words}, '{pattern}') THEN '{name}'"
            for name, pattern in _DIRECTIONS
        )
        db.execute(
            f"CREATE TABLE kept AS SELECT *, {_SCALE_SQL.format(u='ConsumedUnit')} AS scale, "
            f"{direction} END AS direction FROM {rows_sql} WHERE {where}",
            params,
        )
        return _rates(db, path, record, filters, present, kept)


def _rates(
    db: _FocusDb,
    path: Path,
    record: FileRecord,
    filters: FocusFilter,
    present: set[str],
    kept: tuple[Any, ...],
) -> FocusTokenRates:
    """The rates of the checked ``kept`` table, token rows only."""
    warnings: list[str] = []
    others = db.execute(
        "SELECT coalesce(ConsumedUnit, '(empty)') AS unit, count(*) FROM kept "
        "WHERE scale IS NULL GROUP BY unit ORDER BY unit"
    ).fetchall()
    if others:
        listing = ", ".join(f"{unit} ({n} rows)" for unit, n in others)
        warnings.append(
            f"rows not in tokens were left out ({listing}): an hour rate is read on its own, "
            "never blended with per-token prices"
        )
    tokens_kept = db.execute("SELECT count(*) FROM kept WHERE scale IS NOT NULL").fetchone()[0]
    if tokens_kept == 0:
        steps = "; ".join(f"{step.filter}: {step.rows}" for step in kept)
        raise InputError(
            f"{path}: no kept row counts tokens (ConsumedUnit Tokens, 1K Tokens, 1M Tokens); "
            f"rows left: {steps}"
        )
    for column in ("ConsumedQuantity", "EffectiveCost"):
        bad = db.execute(
            f"SELECT data_row, {column} FROM kept WHERE scale IS NOT NULL AND "
            f"isfinite(TRY_CAST({column} AS DOUBLE)) IS NOT TRUE ORDER BY data_row LIMIT 1"
        ).fetchone()
        if bad is not None:
            what = "is empty" if bad[1] is None else f"{bad[1]!r} is not a number"
            raise InputError(f"{path}: data row {bad[0]}: {column} {what}")
    currencies = db.execute(
        "SELECT BillingCurrency, count(*) FROM kept WHERE scale IS NOT NULL "
        "GROUP BY BillingCurrency ORDER BY BillingCurrency"
    ).fetchall()
    if len(currencies) != 1 or currencies[0][0] is None:
        listing = ", ".join(f"{c} ({n} rows)" for c, n in currencies)
        raise InputError(f"{path}: BillingCurrency: the token rows are in {listing}, not one")
    unknown = db.execute(
        "SELECT count(*), min(data_row) FROM kept WHERE scale IS NOT NULL AND direction IS NULL"
    ).fetchone()
    if unknown[0]:
        warnings.append(
            f"{unknown[0]} token row(s) (the first: data row {unknown[1]}) say neither input nor "
            "output in SkuMeter, SkuPriceDetails, ChargeDescription or an x_ column: left out"
        )
    rates = [
        rate
        for name, _ in sorted(
            _DIRECTIONS, key=lambda d: ("input", "cached_input", "output").index(d[0])
        )
        if (rate := _direction(db, path, present, name)) is not None
    ]
    if not rates:
        raise InputError(f"{path}: no token row says whether it bills input or output tokens")
    first, last = db.execute(
        "SELECT min(period_start), max(period_end) FROM kept "
        "WHERE scale IS NOT NULL AND direction IS NOT NULL"
    ).fetchone()
    if first is None or last is None:
        raise InputError(f"{path}: ChargePeriodStart/End of the token rows are not timestamps")
    return FocusTokenRates(
        file=record.model_copy(update={"path": str(path)}),
        focus_version=focus_version(present),
        filter=filters,
        currency=str(currencies[0][0]).strip().upper(),
        rates=tuple(rates),
        period_start=utc(first),
        period_end=utc(last),
        kept=kept,
        warnings=tuple(warnings),
    )


def _one(db: _FocusDb, present: set[str], column: str, name: str) -> tuple[str | None, str]:
    """The one value of ``column`` on a direction's rows, or None and the problem."""
    if column not in present:
        return None, ""
    seen = db.execute(
        f"SELECT coalesce(trim({column}), '') AS v, count(*) FROM kept "
        "WHERE scale IS NOT NULL AND direction = ? GROUP BY v ORDER BY v",
        [name],
    ).fetchall()
    if len(seen) == 1:
        return str(seen[0][0]), ""
    listing = ", ".join(f"{v or '(empty)'} ({n} rows)" for v, n in seen)
    return None, f"{name} token rows of several {column}s ({listing}): never one blended rate"


def _direction(
    db: _FocusDb, path: Path, present: set[str], name: TokenDirection
) -> FocusTokenRate | None:
    """One direction's rate, or None when no row bills it."""
    rows, cost, tokens = db.execute(
        "SELECT count(*), sum(CAST(EffectiveCost AS DOUBLE)), "
        "sum(CAST(ConsumedQuantity AS DOUBLE) * scale) FROM kept "
        "WHERE scale IS NOT NULL AND direction = ?",
        [name],
    ).fetchone()
    if not rows:
        return None
    if not (math.isfinite(tokens) and tokens > 0):
        raise InputError(f"{path}: the {rows} {name} token row(s) sum to {tokens:g} tokens")
    if not (math.isfinite(cost) and cost > 0):
        raise InputError(
            f"{path}: EffectiveCost: the {rows} {name} token row(s) sum to {cost:g}: no price "
            "per token can be derived from them (covered by a commitment, or credits?)"
        )
    category, category_problem = _one(db, present, "PricingCategory", name)
    commitment, commitment_problem = _one(db, present, "CommitmentDiscountId", name)
    if "CommitmentDiscountId" in present and commitment == "":
        commitment = "none"
    return FocusTokenRate(
        direction=name,
        rate_per_million_tokens=cost / tokens * 1e6,
        tokens=tokens,
        effective_cost=cost,
        rows=rows,
        pricing_category=category or None,
        commitment=commitment,
        list_price_per_million_tokens=_unit_price(db, present, "ListUnitPrice", name),
        contracted_price_per_million_tokens=_unit_price(db, present, "ContractedUnitPrice", name),
        problems=tuple(p for p in (category_problem, commitment_problem) if p),
    )


def _unit_price(db: _FocusDb, present: set[str], column: str, name: str) -> UnitPriceRange | None:
    """``column`` per 1M tokens on a direction's rows, where each states it per a token unit."""
    if column not in present or "PricingUnit" not in present:
        return None
    per_million = (
        f"TRY_CAST({_quote(column)} AS DOUBLE) / ({_SCALE_SQL.format(u='PricingUnit')}) * 1e6"
    )
    low, high, missing = db.execute(
        f"SELECT min({per_million}), max({per_million}), "
        f"count(*) FILTER (WHERE ({per_million}) IS NULL) FROM kept "
        "WHERE scale IS NOT NULL AND direction = ?",
        [name],
    ).fetchone()
    if missing or low is None or high is None or low < 0:
        return None
    return UnitPriceRange(low=float(low), high=float(high))
