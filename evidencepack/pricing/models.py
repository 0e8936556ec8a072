"""The models of prices as evidence: the rate a FOCUS row filter yields, and a quote.

No DuckDB here. The filter itself is the spec's (``spec.cost.FocusFilter``): a spec holds it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from ..core._models import NonEmptyStr, NonNegativeFloat, PositiveFloat, StrictModel
from ..core._numbers import plain
from ..core.provenance import FileRecord
from ..spec.cost import FocusFilter

CurrencyCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
"""An ISO 4217 currency code, upper case (``USD``, ``EUR``)."""

HOURS_PER_MONTH = 730.0
"""Hours in a month for a per-month quote line: 8,760 hours a year over 12 months."""


class FilterCount(StrictModel):
    """How many rows were left after one filter (the filters apply one after another)."""

    filter: str = Field(description="The filter applied, e.g. 'region = us-east-1'.")
    rows: int = Field(ge=0, description="The rows left after it and every filter before it.")


class UnitPriceRange(StrictModel):
    """The lowest and highest unit price stated on the kept rows, per pricing unit (hour)."""

    low: NonNegativeFloat = Field(description="The lowest unit price on a kept row.")
    high: NonNegativeFloat = Field(description="The highest unit price on a kept row.")


class FocusRate(StrictModel):
    """The effective hourly rate a FOCUS export gives for the rows one filter keeps."""

    file: FileRecord = Field(description="The export read: path, size and sha256.")
    focus_version: str = Field(
        description="The FOCUS version told from the columns present: 1.0, 1.1, 1.2 or 1.3 "
        "(the earliest version that has every versioned column seen)."
    )
    filter: FocusFilter = Field(description="The filter that selected the rows.")
    rate_per_hour: PositiveFloat = Field(
        description="sum(EffectiveCost) / sum(ConsumedQuantity) over the kept rows, in currency "
        "per hour."
    )
    currency: CurrencyCode = Field(description="The BillingCurrency of every kept row.")
    rows: int = Field(ge=1, description="The rows kept and summed.")
    hours: PositiveFloat = Field(description="sum(ConsumedQuantity) over the kept rows.")
    effective_cost: PositiveFloat = Field(description="sum(EffectiveCost) over the kept rows.")
    period_start: dt.datetime = Field(description="The earliest ChargePeriodStart kept (UTC).")
    period_end: dt.datetime = Field(description="The latest ChargePeriodEnd kept (UTC).")
    list_unit_price: UnitPriceRange | None = Field(
        default=None,
        description="ListUnitPrice on the kept rows, when the file has it and every kept row is "
        "priced per hour.",
    )
    contracted_unit_price: UnitPriceRange | None = Field(
        default=None,
        description="ContractedUnitPrice on the kept rows, when the file has it and every kept "
        "row is priced per hour.",
    )
    instance_type_columns: tuple[str, ...] = Field(
        default=(), description="The columns the instance type was matched in."
    )
    kept: tuple[FilterCount, ...] = Field(
        description="The rows left after each filter, from the whole file to the kept rows."
    )
    warnings: tuple[str, ...] = Field(
        default=(),
        description="What a reader of the rate should know: the rows each rule excluded "
        "(credits, zero-cost rows), netted or zero-cost rows kept.",
    )
    pricing_category: str | None = Field(
        default=None,
        description="The one PricingCategory of the kept rows (Standard: on-demand, Committed, "
        "Dynamic: spot); None when the file has no such column or the rows blend several.",
    )
    commitment: str | None = Field(
        default=None,
        description="`none` when no kept row is covered by a commitment discount, else the one "
        "CommitmentDiscountId; None when unknown or blended.",
    )
    billing_account: str | None = Field(
        default=None,
        description="The one BillingAccountId of the kept rows; None when the file has no such "
        "column or the rows blend several.",
    )
    problems: tuple[str, ...] = Field(
        default=(),
        description="What the kept rows blend that the filter must separate (two billing "
        "accounts, pricing categories or commitments): the price fails PRICE.",
    )

    def summary(self) -> str:
        """The rate and where it comes from, in one sentence for a claim ledger."""
        start = self.period_start.strftime("%Y-%m-%d %H:%M")
        end = self.period_end.strftime("%Y-%m-%d %H:%M")
        priced = _terms(
            self.pricing_category,
            self.commitment,
            f"billing account {self.billing_account}" if self.billing_account else "",
        )
        return (
            f"{plain(self.rate_per_hour)} {self.currency} per hour{priced}: EffectiveCost "
            f"{plain(self.effective_cost)} {self.currency} over {plain(self.hours)} hours in "
            f"{self.rows} row(s) of the FOCUS {self.focus_version} export "
            f"{Path(self.file.path).name} (sha256 {self.file.sha256[:12]}), charge periods "
            f"{start} to {end} UTC"
        )


QuoteUnit = Literal[
    "accelerator-hour",
    "server-hour",
    "accelerator-month",
    "server-month",
    "accelerator",
    "server",
]
"""What one quoted price buys: an hour or a month of use, or one unit outright."""


class QuoteLine(StrictModel):
    """One priced line of a quote."""

    item: NonEmptyStr = Field(description="What is priced, e.g. '8x B200 server'.")
    unit: QuoteUnit = Field(
        description="What the price buys: an accelerator-hour, a server-hour, an "
        "accelerator-month or server-month of use, or one accelerator or server outright."
    )
    price: PositiveFloat = Field(description="The price per unit, in the quote's currency.")
    quantity: int | None = Field(
        default=None, ge=1, description="How many units the quote offers at this price."
    )
    accelerators_per_server: int | None = Field(
        default=None,
        ge=1,
        description="Accelerators in one server, to turn a server price into one per "
        "accelerator and back.",
    )


class QuoteFile(StrictModel):
    """A supplier's quote as written in its file: who offers what at which price, until when."""

    supplier: NonEmptyStr = Field(description="The supplier that issued the quote.")
    reference: NonEmptyStr = Field(description="The supplier's reference for the quote.")
    currency: CurrencyCode = Field(description="The ISO 4217 currency of every price, e.g. USD.")
    issued: dt.date = Field(description="The date the quote was issued (YYYY-MM-DD).")
    valid_until: dt.date = Field(
        description="The last date the quote holds (YYYY-MM-DD), on or after issued."
    )
    # A list: pydantic adds a spurious "at least 1 item" to a tuple whose item is invalid.
    lines: list[QuoteLine] = Field(
        min_length=1, description="The priced lines, each item named once."
    )

    @field_validator("valid_until")
    @classmethod
    def _not_before_issued(cls, value: dt.date, info: ValidationInfo) -> dt.date:
        issued = info.data.get("issued")
        if isinstance(issued, dt.date) and value < issued:
            raise ValueError(f"{value} is before the issue date {issued}")
        return value

    @field_validator("lines")
    @classmethod
    def _items_unique(cls, value: list[QuoteLine]) -> list[QuoteLine]:
        seen: set[str] = set()
        for line in value:
            if line.item in seen:
                raise ValueError(f"the item {line.item!r} is quoted twice")
            seen.add(line.item)
        return value


class Quote(QuoteFile):
    """A quote as read, with the file it came from (its digest goes to the ledger)."""

    file: FileRecord = Field(description="The quote file: path, size and sha256.")

    def summary(self) -> str:
        """Who quoted, when, until when, and the file, in one phrase for a claim ledger."""
        return (
            f"quote {self.reference} from {self.supplier}, issued {self.issued}, valid until "
            f"{self.valid_until} ({Path(self.file.path).name}, sha256 {self.file.sha256[:12]})"
        )


def _terms(category: str | None, commitment: str | None, *more: str) -> str:
    """`` (PricingCategory X, commitment Y, ...)``: the pricing a FOCUS rate came from, or ''."""
    terms = [
        f"PricingCategory {category}" if category else "",
        {None: "", "none": "no commitment"}.get(commitment, f"commitment {commitment}"),
        *more,
    ]
    return f" ({', '.join(t for t in terms if t)})" if any(terms) else ""


TokenDirection = Literal["input", "cached_input", "output"]
"""What a token row bills: prompt tokens, prompt tokens read from the provider's cache, or
generated tokens."""


class FocusTokenRate(StrictModel):
    """The effective price per 1M tokens of one direction (input, cached input, output) of the
    token rows a FOCUS filter keeps, with the pricing it came from."""

    direction: TokenDirection = Field(
        description="input, cached_input or output: what the rows bill, told from SkuMeter, "
        "SkuPriceDetails, ChargeDescription or an x_ column."
    )
    rate_per_million_tokens: PositiveFloat = Field(
        description="sum(EffectiveCost) / tokens x 1,000,000, in currency per 1M tokens."
    )
    tokens: PositiveFloat = Field(
        description="The tokens of the rows: ConsumedQuantity times its unit (1M tokens: "
        "1,000,000)."
    )
    effective_cost: PositiveFloat = Field(description="sum(EffectiveCost) over the rows.")
    rows: int = Field(ge=1, description="The rows summed.")
    pricing_category: str | None = Field(
        default=None,
        description="The one PricingCategory of the rows (Standard, Committed, Dynamic); None "
        "when the file has no such column or the rows blend several (a problem).",
    )
    commitment: str | None = Field(
        default=None,
        description="`none` when no row is covered by a commitment discount, else the one "
        "CommitmentDiscountId; None when the file has no such column or they blend several.",
    )
    list_price_per_million_tokens: UnitPriceRange | None = Field(
        default=None,
        description="ListUnitPrice per 1M tokens on the rows, where every row states it with a "
        "token PricingUnit.",
    )
    contracted_price_per_million_tokens: UnitPriceRange | None = Field(
        default=None,
        description="ContractedUnitPrice per 1M tokens on the rows, as list_price_*.",
    )
    problems: tuple[str, ...] = Field(
        default=(),
        description="What the rows blend (several pricing categories or commitments): the "
        "price cannot be one rate.",
    )


class FocusTokenRates(StrictModel):
    """An API's per-token prices read from the token-usage rows of a FOCUS export (FOCUS 1.3
    and the 1.5 draft's AI usage): a rate per 1M tokens per direction, never blended with an
    hour rate (rows in hours are left out and counted)."""

    file: FileRecord = Field(description="The export read: path, size and sha256.")
    focus_version: str = Field(description="The FOCUS version told from the columns present.")
    filter: FocusFilter = Field(description="The filter that selected the rows.")
    currency: CurrencyCode = Field(description="The BillingCurrency of every kept token row.")
    rates: tuple[FocusTokenRate, ...] = Field(
        description="One rate per direction found, input, cached_input, output in that order."
    )
    period_start: dt.datetime = Field(description="The earliest ChargePeriodStart kept (UTC).")
    period_end: dt.datetime = Field(description="The latest ChargePeriodEnd kept (UTC).")
    kept: tuple[FilterCount, ...] = Field(
        description="The rows left after each filter, from the whole file to the token rows."
    )
    warnings: tuple[str, ...] = Field(
        default=(),
        description="What a reader should know: rows in hours or another unit left out, rows "
        "whose direction could not be told, rows at no cost.",
    )

    def rate(self, direction: TokenDirection) -> FocusTokenRate | None:
        """The rate of one direction, if the rows have it."""
        return next((r for r in self.rates if r.direction == direction), None)

    def summary(self) -> str:
        """The rates and where they come from, in one sentence for a claim ledger: each
        direction's price with the pricing category and commitment of its rows."""
        start = self.period_start.strftime("%Y-%m-%d")
        end = self.period_end.strftime("%Y-%m-%d")
        parts = []
        for rate in self.rates:
            priced = _terms(rate.pricing_category, rate.commitment)
            parts.append(
                f"{rate.direction.replace('_', ' ')} {plain(rate.rate_per_million_tokens)}"
                f"{priced} over {plain(rate.tokens)} tokens in {rate.rows} row(s)"
            )
        return (
            f"{self.currency} per 1M tokens: {'; '.join(parts)}, EffectiveCost of the token rows "
            f"of the FOCUS {self.focus_version} export {Path(self.file.path).name} (sha256 "
            f"{self.file.sha256[:12]}), charge periods {start} to {end}"
        )
