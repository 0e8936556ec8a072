"""The rules that keep a FOCUS rate a usage rate: credits, refunds and covered rows leave the
kept rows by rule (each counted), and rows of two billing accounts, pricing categories or
commitments are never blended silently.

Both run on the ``kept`` table ``pricing.focus`` builds, after ``focus_checks.check_kept``
has checked that every number is finite.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..core._numbers import plain
from ..errors import InputError
from ..spec.cost import FocusFilter
from .models import FilterCount

ACCOUNT_COLUMNS = (
    "BillingAccountId",
    "SubAccountId",
    "CommitmentDiscountId",
    "CommitmentDiscountStatus",
    "ChargeClass",
)
"""Read when present: the account, the commitment covering a row (and whether the row is its
used or unused part, FOCUS 1.1+), and whether a row corrects another."""


class _Db(Protocol):
    """What these rules need of the FOCUS connection."""

    def execute(self, sql: str, params: Any = None) -> Any:
        """Run one parameterised statement."""


@dataclass(frozen=True)
class Blend:
    """What the kept rows are priced under, and what they blend that no rule can separate."""

    pricing_category: str | None
    """The one PricingCategory of the kept rows (None when the file has no such column)."""
    commitment: str | None
    """``none`` (no row covered by a commitment), the one CommitmentDiscountId, or None when
    the file has no such column."""
    billing_account: str | None
    """The one BillingAccountId of the kept rows, or None when the file has no such column."""
    problems: tuple[str, ...]
    """Each blend the filter leaves, naming the values and their rows: the rate fails PRICE."""


def unused_commitment(db: _Db, present: set[str], hour_unit: str) -> str:
    """Count the unused part of a commitment at no hours: a kept row whose
    CommitmentDiscountStatus is Unused and whose ConsumedQuantity is empty (FOCUS 1.1+) is the
    cost of committed hours nobody used, which a committed rate carries (the rate is then the
    commitment's whole cost over the hours used). Returns a note, or '' when there is none."""
    if "CommitmentDiscountStatus" not in present:
        return ""
    where = (
        "lower(trim(CommitmentDiscountStatus)) = 'unused' AND ConsumedQuantity IS NULL "
        "AND TRY_CAST(EffectiveCost AS DOUBLE) IS NOT NULL"
    )
    n, cost, first = db.execute(
        f"SELECT count(*), sum(CAST(EffectiveCost AS DOUBLE)), min(data_row) FROM kept "
        f"WHERE {where}"
    ).fetchone()
    if not n:
        return ""
    db.execute(
        f"UPDATE kept SET ConsumedQuantity = '0', ConsumedUnit = ? WHERE {where}", [hour_unit]
    )
    return (
        f"{n} kept row(s) (first at data row {first}) are the unused part of a commitment "
        f"(CommitmentDiscountStatus Unused, no ConsumedQuantity): their EffectiveCost "
        f"{plain(cost or 0.0)} counts at no hours, so the rate is the "
        "commitment's whole cost over the hours used"
    )


def exclude_rows(
    db: _Db, path: Path, filters: FocusFilter, present: set[str], currency: str
) -> tuple[tuple[FilterCount, ...], tuple[str, ...]]:
    """Delete the credits and zero-cost rows the filter's rules exclude from ``kept``; the rows
    left after each rule, and a note per rule that excluded any."""
    counts: list[FilterCount] = []
    notes: list[str] = []
    rules: list[tuple[str, str, str]] = []
    if filters.credits == "exclude":
        correction = (
            " OR lower(trim(ChargeClass)) = 'correction'" if "ChargeClass" in present else ""
        )
        rules.append(
            (
                "credits, refunds and corrections excluded",
                "CAST(EffectiveCost AS DOUBLE) < 0 OR CAST(ConsumedQuantity AS DOUBLE) < 0"
                + correction,
                "a negative EffectiveCost or ConsumedQuantity, or ChargeClass Correction "
                "(credits, refunds, corrections), excluded from the rate (credits: net counts "
                "them)",
            )
        )
    if filters.zero_cost == "exclude":
        rules.append(
            (
                "zero-cost rows excluded",
                "CAST(EffectiveCost AS DOUBLE) = 0",
                "EffectiveCost 0 (covered by a commitment, a credit or a free tier), excluded "
                "so their hours do not lower the rate (zero_cost: include counts them)",
            )
        )
    for label, where, why in rules:
        n, cost, hours, first = db.execute(
            "SELECT count(*), sum(CAST(EffectiveCost AS DOUBLE)), "
            f"sum(CAST(ConsumedQuantity AS DOUBLE)), min(data_row) FROM kept WHERE {where}"
        ).fetchone()
        if n:
            db.execute(f"DELETE FROM kept WHERE {where}")
            notes.append(
                f"{n} kept row(s) (first at data row {first}; {plain(cost or 0.0)} {currency}, "
                f"{plain(hours or 0.0)} hours) with {why}"
            )
        left = int(db.execute("SELECT count(*) FROM kept").fetchone()[0])
        counts.append(FilterCount(filter=label, rows=left))
    if counts and counts[-1].rows == 0:
        raise InputError(
            f"{path}: no usage row is left once the rules exclude credits and zero-cost rows "
            f"({'; '.join(notes)}): no rate can be derived"
        )
    return tuple(counts), tuple(notes)


def blended(db: _Db, present: set[str], filters: FocusFilter) -> Blend:
    """The pricing category, commitment and account of the kept rows; a problem for each that
    holds two or more values (the spec's filter chooses one)."""
    problems: list[str] = []

    def one(column: str, field: str, label: str) -> str | None:
        if column not in present:
            return None
        values = db.execute(
            f"SELECT coalesce(trim({column}), '') AS v, count(*), min(data_row) FROM kept "
            "GROUP BY v ORDER BY v"
        ).fetchall()
        if len(values) > 1:
            listing = ", ".join(
                f"{value or '(empty)'} ({n} rows, first at data row {row})"
                for value, n, row in values
            )
            problems.append(
                f"{column}: the kept rows blend {len(values)} {label}: {listing}; a rate is "
                f"taken from one: set the filter's {field}"
            )
            return None
        return str(values[0][0]) if values else None

    category = one("PricingCategory", "pricing_category", "pricing categories")
    account = one("BillingAccountId", "billing_account", "billing accounts")
    commitment = one("CommitmentDiscountId", "commitment", "commitments (empty: none)")
    if commitment == "":
        commitment = "none"
    if "CommitmentDiscountId" not in present:
        commitment = filters.commitment
    return Blend(
        pricing_category=category or None,
        commitment=commitment,
        billing_account=account or None,
        problems=tuple(problems),
    )
