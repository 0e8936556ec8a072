"""The effective hourly rate in a FinOps FOCUS cost-and-usage export (CSV or Parquet, 1.0+).

DuckDB's bulk readers scan the file (``read_csv`` / ``read_parquet`` with the path bound as a
parameter); every filter value travels as a parameter too. The SQL text is this module's own:
column names in it come from FOCUS's fixed names, or from the file's ``x_`` columns once they
are checked to be plain identifiers. Rows are never looped over in Python (but for naming the
line of a CSV file DuckDB refused, in ``focus_checks.csv_damage``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from ..core.provenance import FileRecord, file_record
from ..errors import InputError
from ..spec.cost import FocusFilter, utc
from ..store.connection import Connection, literal_path
from .focus_checks import check_kept, csv_damage, row_warnings, unit_price_range
from .focus_rules import ACCOUNT_COLUMNS, Blend, blended, exclude_rows, unused_commitment
from .models import FilterCount, FocusRate

REQUIRED = (
    "BilledCost",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "EffectiveCost",
)
"""Columns every FOCUS cost-and-usage dataset has since 1.0: without them it is not FOCUS."""

RATE_COLUMNS = ("ConsumedQuantity", "ConsumedUnit")
"""The columns an hourly rate is computed from (conditional in FOCUS, needed here)."""

PRICE_COLUMNS = ("ListUnitPrice", "ContractedUnitPrice", "PricingUnit")
"""Read when present, to state the list and contracted unit prices beside the rate."""

VERSION_MARKERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("1.3", frozenset({"ServiceProviderName", "HostProviderName"})),
    (
        "1.2",
        frozenset(
            {
                "BillingAccountType",
                "SubAccountType",
                "InvoiceId",
                "PricingCurrency",
                "PricingCurrencyContractedUnitPrice",
                "PricingCurrencyEffectiveCost",
                "PricingCurrencyListUnitPrice",
            }
        ),
    ),
    (
        "1.1",
        frozenset(
            {
                "SkuPriceDetails",
                "SkuMeter",
                "ServiceSubcategory",
                "CapacityReservationId",
                "CapacityReservationStatus",
                "CommitmentDiscountQuantity",
                "CommitmentDiscountUnit",
            }
        ),
    ),
)
"""The columns each FOCUS version added, latest first; a file with none of them is 1.0."""

_PROVIDER_COLUMNS = ("ServiceProviderName", "ProviderName")
_REGION_COLUMNS = ("RegionId", "RegionName")
_X_COLUMN = re.compile(r"x_[A-Za-z0-9_]{1,64}")

_CSV = (
    "read_csv(?, header = true, all_varchar = true, delim = ',', quote = '\"', escape = '\"', "
    "nullstr = ['NULL', 'null', ''])"
)
"""FOCUS CSV is RFC 4180: the dialect is pinned, never sniffed (a damaged file is an error).
An empty cell, ``NULL`` and ``null`` (as the FOCUS specification's own examples write it) are
null."""
_PARQUET = "read_parquet(?)"


class _FocusDb(Connection):
    """A private in-memory DuckDB for one FOCUS export; a failure names the file."""

    def __init__(self, path: Path, read_from: Path) -> None:
        self.path = path
        self.read_from = read_from
        self.pattern = literal_path(read_from)
        """The file as a parameter of ``read_csv``/``read_parquet``: itself, never a glob."""
        super().__init__()
        self.execute("SET TimeZone = 'UTC'")

    def _error(self, exc: duckdb.Error, doing: str) -> InputError:
        # DuckDB names the file it read (the private copy, in a folder of the building machine):
        # each quoted mention of it is left out; the message names the file as the caller does.
        quoted = re.compile(r'\s*(?:in |of )?(?:file )?"' + re.escape(str(self.read_from)) + '"')
        text = quoted.sub("", str(exc).split("\n")[0])
        if "CSV" in str(exc) or "sniffing" in text:
            damage = csv_damage(self.read_from)
            if damage:
                return InputError(f"{self.path}: not a readable CSV: {damage}")
        return InputError(f"{self.path}: cannot read it as a FOCUS export (CSV or Parquet): {text}")


@dataclass(frozen=True)
class _Condition:
    """One filter as SQL of this module's own and the values bound to it."""

    label: str
    sql: str
    params: tuple[Any, ...]


def read_focus(
    path: Path,
    filters: FocusFilter,
    *,
    record: FileRecord | None = None,
    read_from: Path | None = None,
) -> FocusRate:
    """The effective hourly rate of the rows of the FOCUS export at ``path`` that ``filters`` keep.

    ``record`` is the file's provenance when the caller already has it (its sha256 and size
    are then not computed again). Raises ``InputError`` naming the file and the column or data
    row (1 = the first row after the header) for: a file that is not FOCUS, a column the filter
    or the rate needs and the file lacks, no row kept (with the rows each filter left), a kept
    row not in hours, zero hours, or kept rows in several currencies.

    ``read_from`` (default ``path``) is the file whose bytes are read, such as a build's private
    snapshot of ``path``; messages and the record still name ``path``.
    """
    source_file = read_from or path
    source = _table(path, source_file)  # a file that is no export is refused before hashing
    if record is None:
        record = file_record(source_file).model_copy(update={"path": str(path)})
    db = _FocusDb(path, source_file)
    with db:
        columns = _columns(db, path, source, filters)
        present = set(columns)
        instance_columns = _instance_columns(columns) if filters.instance_type else ()
        wanted = [
            name
            for name in (*REQUIRED, *RATE_COLUMNS, *PRICE_COLUMNS, *_PROVIDER_COLUMNS)
            + (*_REGION_COLUMNS, "SkuId", "PricingCategory", *ACCOUNT_COLUMNS, *instance_columns)
            if name in present
        ]
        select = ", ".join(f"CAST({_quote(name)} AS VARCHAR) AS {_quote(name)}" for name in wanted)
        # Streamed, never stored whole: only the kept rows become a table. row_number() over
        # the file's rows in order (insertion order is preserved) is the data row.
        rows_sql = (
            "(SELECT *, TRY_CAST(ChargePeriodStart AS TIMESTAMPTZ) AS period_start, "
            "TRY_CAST(ChargePeriodEnd AS TIMESTAMPTZ) AS period_end FROM "
            f"(SELECT row_number() OVER () AS data_row, {select} FROM {source}))"
        )
        conditions = _conditions(filters, present, instance_columns)
        if filters.period_start is not None or filters.period_end is not None:
            _check_period_parses(db, rows_sql)
        kept = _count(db, rows_sql, conditions)
        if kept[-1].rows == 0:
            steps = "; ".join(f"{step.filter}: {step.rows}" for step in kept)
            raise InputError(f"{path}: no row matches the filter (rows left: {steps})")
        where = " AND ".join(c.sql for c in conditions)
        params = [db.pattern, *(p for c in conditions for p in c.params)]
        db.execute(f"CREATE TABLE kept AS SELECT * FROM {rows_sql} WHERE {where}", params)
        unused = unused_commitment(db, present, filters.hour_units[0])
        currency = check_kept(db, path, filters.hour_units)
        # Credits, refunds and covered rows leave by rule, each counted; what cannot be told
        # apart by rule (two accounts, two pricing categories) is a problem of the rate.
        excluded, notes = exclude_rows(db, path, filters, present, currency)
        blend = blended(db, present, filters)
        return _rate(
            db,
            path,
            currency,
            record,
            filters,
            present,
            instance_columns,
            (*kept, *excluded),
            (unused, *notes) if unused else notes,
            blend,
        )


def _rate(
    db: Connection,
    path: Path,
    currency: str,
    record: FileRecord,
    filters: FocusFilter,
    present: set[str],
    instance_columns: tuple[str, ...],
    kept: tuple[FilterCount, ...],
    notes: tuple[str, ...],
    blend: Blend,
) -> FocusRate:
    """The rate of the checked ``kept`` table: its sums, period and stated unit prices."""
    total = db.execute(
        "SELECT count(*), sum(CAST(EffectiveCost AS DOUBLE)), "
        "sum(CAST(ConsumedQuantity AS DOUBLE)), min(period_start), max(period_end) FROM kept"
    ).fetchone()
    rows, cost, hours, first, last = total
    for column, total_value in (("EffectiveCost", cost), ("ConsumedQuantity", hours)):
        if not math.isfinite(total_value):
            raise InputError(
                f"{path}: {column}: the {rows} kept row(s) sum to {total_value:g}, past any "
                "finite figure: no rate can be derived from them"
            )
    if hours <= 0:
        raise InputError(
            f"{path}: ConsumedQuantity: the {rows} kept row(s) sum to {hours:g} hours; "
            "a rate needs hours"
        )
    if cost <= 0:
        why = (
            "every one costs nothing (covered by a commitment bought elsewhere, or a credit)"
            if cost == 0
            else "a negative cost (credits kept by the filter?)"
        )
        raise InputError(
            f"{path}: EffectiveCost: the {rows} kept row(s) sum to {cost:g} {currency}: "
            f"{why}; no rate can be derived from them"
        )
    return FocusRate(
        file=record,
        focus_version=focus_version(present),
        filter=filters,
        rate_per_hour=cost / hours,
        currency=currency,
        rows=rows,
        hours=hours,
        effective_cost=cost,
        period_start=utc(first),
        period_end=utc(last),
        list_unit_price=unit_price_range(db, present, "ListUnitPrice", filters.hour_units),
        contracted_unit_price=unit_price_range(
            db, present, "ContractedUnitPrice", filters.hour_units
        ),
        instance_type_columns=instance_columns,
        kept=kept,
        warnings=(*notes, *row_warnings(db, rows)),
        pricing_category=blend.pricing_category,
        commitment=blend.commitment,
        billing_account=blend.billing_account,
        problems=blend.problems,
    )


def focus_version(columns: set[str]) -> str:
    """The FOCUS version the columns show: the latest whose added columns appear, else 1.0."""
    for version, markers in VERSION_MARKERS:
        if markers & columns:
            return version
    return "1.0"


SNIFF_BYTES = 64 << 10
"""How much of a file is looked at before DuckDB scans it: a text export holds no NUL byte."""


def _table(path: Path, source_file: Path) -> str:
    """The table expression that reads ``source_file``: Parquet if it starts with ``PAR1``,
    else CSV, refused at once if its first bytes hold a NUL (a sparse or binary file is no CSV:
    hashing or scanning gigabytes of it would only end in an error, so this comes first).
    Errors name ``path``, never the private copy."""
    try:
        with source_file.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if head.startswith(b"PAR1"):
        return _PARQUET
    nul = head.find(b"\x00")
    if nul >= 0:
        raise InputError(
            f"{path}: byte {nul + 1} is a NUL: not a FOCUS export (CSV is "
            "text; Parquet starts with PAR1)"
        )
    return _CSV


def _quote(name: str) -> str:
    """A column name as a SQL identifier (names are FOCUS's own or checked ``x_`` names)."""
    return '"' + name.replace('"', '""') + '"'


def _columns(db: _FocusDb, path: Path, source: str, filters: FocusFilter) -> tuple[str, ...]:
    """The columns of the export read by ``source`` (``_table``'s), after checking it holds
    every column ``filters`` and a rate need (InputError naming ``path``)."""
    described = db.execute(f"DESCRIBE SELECT * FROM {source}", [db.pattern]).fetchall()
    columns = tuple(str(row[0]) for row in described)
    _require(path, set(columns), filters)
    return columns


def _require(path: Path, present: set[str], filters: FocusFilter) -> None:
    """Refuse a file that is not FOCUS, or lacks a column the rate or the filter needs."""
    missing = [name for name in REQUIRED if name not in present]
    if missing:
        raise InputError(
            f"{path}: not a FOCUS cost-and-usage export: the required column(s) "
            f"{', '.join(missing)} are missing (it has {len(present)} column(s): "
            f"{', '.join(sorted(present)[:8])}{', ...' if len(present) > 8 else ''})"
        )
    needs: list[str] = [f"{name} (for the rate)" for name in RATE_COLUMNS if name not in present]
    alternatives = {
        "provider": (filters.provider, _PROVIDER_COLUMNS),
        "region": (filters.region, _REGION_COLUMNS),
        "sku": (filters.sku, ("SkuId",)),
        "pricing_category": (filters.pricing_category, ("PricingCategory",)),
        "billing_account": (filters.billing_account, ("BillingAccountId",)),
        "sub_account": (filters.sub_account, ("SubAccountId",)),
        "commitment": (
            None if filters.commitment in (None, "none") else filters.commitment,
            ("CommitmentDiscountId",),
        ),
    }
    for field, (value, names) in alternatives.items():
        if value is not None and not present & set(names):
            needs.append(f"{' or '.join(names)} (for {field})")
    if filters.instance_type is not None and not _instance_columns(tuple(sorted(present))):
        needs.append("SkuPriceDetails, an x_ column or ChargeDescription (for instance_type)")
    if needs:
        raise InputError(f"{path}: missing column(s) the filter needs: {'; '.join(needs)}")


def _instance_columns(columns: tuple[str, ...]) -> tuple[str, ...]:
    """The columns an instance type may be named in, in the file's order."""
    return tuple(
        name
        for name in columns
        if name in ("SkuPriceDetails", "ChargeDescription") or _X_COLUMN.fullmatch(name)
    )


def _conditions(
    filters: FocusFilter, present: set[str], instance_columns: tuple[str, ...]
) -> list[_Condition]:
    """The filters that are set, in the order they are applied and counted."""
    out = [
        _Condition(
            f"ChargeCategory = {filters.charge_category}",
            "lower(trim(ChargeCategory)) = lower(?)",
            (filters.charge_category,),
        )
    ]

    def any_of(names: tuple[str, ...], value: str) -> tuple[str, tuple[Any, ...]]:
        used = [name for name in names if name in present]
        sql = " OR ".join(f"lower(trim({_quote(name)})) = lower(?)" for name in used)
        return f"({sql})", (value,) * len(used)

    for label, value, names in (
        ("provider", filters.provider, _PROVIDER_COLUMNS),
        ("pricing_category", filters.pricing_category, ("PricingCategory",)),
        ("sku", filters.sku, ("SkuId",)),
        ("region", filters.region, _REGION_COLUMNS),
    ):
        if value is not None:
            sql, params = any_of(names, value)
            out.append(_Condition(f"{label} = {value}", sql, params))
    for label, value, column in (
        ("billing_account", filters.billing_account, "BillingAccountId"),
        ("sub_account", filters.sub_account, "SubAccountId"),
    ):
        if value is not None:
            out.append(_Condition(f"{label} = {value}", f"trim({column}) = ?", (value,)))
    if filters.commitment == "none":
        if "CommitmentDiscountId" in present:
            out.append(
                _Condition(
                    "commitment = none (no CommitmentDiscountId)",
                    "coalesce(trim(CommitmentDiscountId), '') = ''",
                    (),
                )
            )
    elif filters.commitment is not None:
        out.append(
            _Condition(
                f"commitment = {filters.commitment}",
                "trim(CommitmentDiscountId) = ?",
                (filters.commitment,),
            )
        )
    if filters.instance_type is not None:
        text = ", ".join(_quote(name) for name in instance_columns)
        word = re.escape(filters.instance_type.lower())
        out.append(
            _Condition(
                f"instance_type = {filters.instance_type}",
                f"regexp_matches(lower(concat_ws(' | ', {text})), ?)",
                (f"(^|[^a-z0-9.\\-]){word}($|[^a-z0-9.\\-])",),
            )
        )
    for bound, operator in ((filters.period_start, ">="), (filters.period_end, "<")):
        if bound is not None:
            moment = utc(bound)
            out.append(
                _Condition(
                    f"ChargePeriodStart {operator} {moment.isoformat()}",
                    f"period_start {operator} ?",
                    (moment,),
                )
            )
    return out


def _check_period_parses(db: _FocusDb, rows: str) -> None:
    """Every row's ChargePeriodStart must be a timestamp before a period filter drops rows."""
    bad = db.execute(
        f"SELECT data_row, ChargePeriodStart FROM {rows} WHERE period_start IS NULL "
        "ORDER BY data_row LIMIT 1",
        [db.pattern],
    ).fetchone()
    if bad is not None:
        raise InputError(
            f"{db.path}: data row {bad[0]}: ChargePeriodStart {bad[1]!r} is not a timestamp"
        )


def _count(db: _FocusDb, rows: str, conditions: list[_Condition]) -> tuple[FilterCount, ...]:
    """The rows left after each filter, cumulatively, in one scan of ``rows``."""
    parts = ["count(*)"]
    params: list[Any] = []
    for index in range(len(conditions)):
        upto = conditions[: index + 1]
        parts.append(f"count(*) FILTER (WHERE {' AND '.join(c.sql for c in upto)})")
        params.extend(p for c in upto for p in c.params)
    # The FILTER clauses come before FROM in the text, so their values before the path.
    counts = db.execute(f"SELECT {', '.join(parts)} FROM {rows}", [*params, db.pattern]).fetchone()
    labels = ["all rows", *(c.label for c in conditions)]
    return tuple(
        FilterCount(filter=label, rows=int(n)) for label, n in zip(labels, counts, strict=True)
    )
