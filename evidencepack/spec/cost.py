"""What a candidate costs besides its quoted rental price: renting on other terms, owning, and
the facility owning needs.

A candidate may state any of ``rent`` (on-demand, reserved with a term, spot; per
accelerator-hour or per server-hour), ``own`` (purchase price per server, life, residual value,
financing rate) and ``power`` (rated watts per server, for the energy bill where no measured
power is cited); the spec's ``facility`` holds what owning needs besides the servers (power
price and PUE, colocation, licences, operations). The spec's ``cost_basis`` picks the basis the
decision ranks on; every stated basis is computed and shown. Each figure carries a source and a
date, and a quote its expiry.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, Strict, ValidationInfo, field_validator, model_validator

from ..core._models import NonEmptyStr, Sha256Hex, StrictModel
from .types import Currency, PositiveInt, SpecModel

Money = Annotated[float, Strict(), Field(ge=0, le=1e12, allow_inf_nan=False)]
"""An amount of money: zero or more, finite."""
Basis = Literal["price", "on_demand", "reserved", "spot", "own"]
"""A cost basis: the quoted ``price`` (the default), a ``rent`` term, or ``own``."""


MIN_LIFE_YEARS = 0.25
"""The shortest life a bought server may be spread over: below a quarter the capital per month
is past any real figure (and 1e-300 years divides by zero)."""

DEFAULT_HOUR_UNITS: tuple[str, ...] = ("Hours", "Hour", "Hrs", "Hr")
"""The ``ConsumedUnit`` values read as hours unless a filter names others."""


class FocusFilter(StrictModel):
    """Which rows of a FOCUS export make up one rate: every stated field must match a row."""

    provider: NonEmptyStr | None = Field(
        default=None,
        description="The provider, matched case-insensitively against ProviderName (FOCUS 1.0 "
        "to 1.2) or ServiceProviderName (1.3 and later), e.g. AWS.",
    )
    sku: NonEmptyStr | None = Field(
        default=None, description="The SkuId of the priced offering, matched exactly."
    )
    instance_type: NonEmptyStr | None = Field(
        default=None,
        description="The instance type, e.g. p5.48xlarge. FOCUS has no standard column for it, so "
        "it is matched as a whole word (case-insensitively) in SkuPriceDetails (1.1 and later), "
        "in the provider's x_ columns (x_UsageType, x_SkuDetails, ...) and in ChargeDescription, "
        "whichever the file has; the columns searched are stated in the rate.",
    )
    region: NonEmptyStr | None = Field(
        default=None,
        description="The region, matched case-insensitively against RegionId or RegionName "
        "(us-east-1 or US East (N. Virginia)).",
    )
    period_start: dt.datetime | None = Field(
        default=None,
        description="Keep rows whose ChargePeriodStart is at or after this instant (UTC when no "
        "zone is given).",
    )
    period_end: dt.datetime | None = Field(
        default=None,
        description="Keep rows whose ChargePeriodStart is before this instant (exclusive; UTC "
        "when no zone is given).",
    )
    charge_category: NonEmptyStr = Field(
        default="Usage",
        description="The ChargeCategory to keep (Usage, Purchase, Tax, Credit, Adjustment), "
        "case-insensitively.",
    )
    pricing_category: NonEmptyStr | None = Field(
        default=None,
        description="The PricingCategory to keep, case-insensitively: Standard (on-demand), "
        "Committed (reserved, savings plan), Dynamic (spot) or Other.",
    )
    billing_account: NonEmptyStr | None = Field(
        default=None,
        description="The BillingAccountId to keep, matched exactly. Without it the kept rows "
        "must all belong to one billing account: rows of a second account (a sandbox, another "
        "team) are never blended into the rate (PRICE fails naming both).",
    )
    sub_account: NonEmptyStr | None = Field(
        default=None, description="The SubAccountId to keep, matched exactly."
    )
    commitment: NonEmptyStr | None = Field(
        default=None,
        description="The commitment the rate is taken under: `none` keeps the rows no "
        "commitment discount covers (empty CommitmentDiscountId), any other value is matched "
        "exactly against CommitmentDiscountId. Without it the kept rows must not mix covered "
        "and uncovered rows, or two commitments (PRICE fails naming them).",
    )
    credits: Literal["exclude", "net"] = Field(
        default="exclude",
        description="Kept rows with a negative EffectiveCost or ConsumedQuantity, or ChargeClass "
        "Correction (credits, refunds, corrections): `exclude` (default) leaves them out of the "
        "rate, counted in the decision; `net` nets them against the usage.",
    )
    zero_cost: Literal["exclude", "include"] = Field(
        default="exclude",
        description="Kept rows whose EffectiveCost is 0 (covered by a commitment bought "
        "elsewhere, a credit or a free tier): `exclude` (default) leaves their hours out of the "
        "rate, counted in the decision; `include` counts their hours at no cost.",
    )
    hour_units: tuple[NonEmptyStr, ...] = Field(
        default=DEFAULT_HOUR_UNITS,
        min_length=1,
        description="The ConsumedUnit (and PricingUnit) values that mean hours, compared "
        "case-insensitively; a kept row in any other unit is an error.",
    )

    @field_validator("period_end")
    @classmethod
    def _period_in_order(
        cls, value: dt.datetime | None, info: ValidationInfo
    ) -> dt.datetime | None:
        start = info.data.get("period_start")
        if value is not None and isinstance(start, dt.datetime) and _utc(start) >= _utc(value):
            raise ValueError(f"{value} is not after period_start {start}")
        return value


def _utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` as an aware UTC instant (a naive one is read as UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


utc = _utc


class Sourced(SpecModel):
    """Where a figure comes from and until when it holds."""

    currency: Currency = "USD"
    """ISO 4217 currency code of the figures (default USD)."""
    source: NonEmptyStr | None = None
    """Where the figures come from (a quote, a price list, a contract, a cloud bill)."""
    as_of: dt.date | None = None
    """The date the figures were quoted."""
    valid_until: dt.date | None = None
    """The last date a quote holds (a decision dated later warns)."""


class Rent(Sourced):
    """Renting on one term: a rate per accelerator-hour or per server-hour."""

    kind: Literal["on_demand", "reserved", "spot"]
    """``on_demand``, ``reserved`` (with ``term_months``) or ``spot``."""
    per_accelerator_hour: Money | None = None
    """The rate per accelerator-hour (give it or ``per_server_hour``)."""
    per_server_hour: Money | None = None
    """The rate per server-hour: whole servers are paid for (give it or
    ``per_accelerator_hour``)."""
    term_months: PositiveInt | None = None
    """The commitment of a reserved rate, in months (required for ``reserved``)."""

    @model_validator(mode="after")
    def _one_rate(self) -> Rent:
        if (self.per_accelerator_hour is None) == (self.per_server_hour is None):
            raise ValueError("give exactly one of per_accelerator_hour and per_server_hour")
        if self.kind == "reserved" and self.term_months is None:
            raise ValueError("a reserved rate needs term_months")
        return self


class Own(Sourced):
    """Buying the servers: the capital spread over their life, less what they resell for."""

    purchase_price_per_server: Annotated[float, Strict(), Field(gt=0, le=1e9)]
    """What one server costs to buy."""
    life_years: Annotated[float, Strict(), Field(ge=MIN_LIFE_YEARS, le=15, allow_inf_nan=False)]
    """Years the servers serve before they are replaced (from 0.25, three months, to 15)."""
    residual_value_per_server: Money = 0.0
    """What one server resells for at the end of its life (less than the purchase price)."""
    financing_rate: Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)] = 0.0
    """The annual cost of the capital (0.06 for 6%); 0 spreads the capital evenly."""

    @model_validator(mode="after")
    def _residual_below_price(self) -> Own:
        if self.residual_value_per_server >= self.purchase_price_per_server:
            raise ValueError(
                f"residual_value_per_server {self.residual_value_per_server:g} is not below "
                f"purchase_price_per_server {self.purchase_price_per_server:g}"
            )
        return self


class Power(SpecModel):
    """A candidate's rated power, for the energy bill where no measured power is cited."""

    watts_per_server: Annotated[float, Strict(), Field(gt=0, le=1e6, allow_inf_nan=False)]
    """A server's rated (nameplate or vendor) power in watts."""
    source: NonEmptyStr | None = None
    """Where the figure comes from (a data sheet, the vendor)."""


class Facility(Sourced):
    """What owning needs besides the servers; shared by every candidate."""

    power_price_per_kwh: Money | None = None
    """What a kWh costs at the facility."""
    pue: Annotated[float, Strict(), Field(ge=1, le=5, allow_inf_nan=False)] = 1.0
    """Power usage effectiveness: facility power over IT power (at least 1)."""
    colocation_per_server_month: Money = 0.0
    """Rack space, per server and month."""
    licences_per_accelerator_year: Money = 0.0
    """Software licences, per accelerator and year."""
    operations_per_server_year: Money = 0.0
    """Operations (staff, support contracts), per server and year."""


class FocusExport(FocusFilter):
    """A FinOps FOCUS export the spec cites, and the filter of its rows."""

    path: NonEmptyStr = Field(
        description="the export (CSV or Parquet), relative to the spec: packed and hashed like "
        "evidence"
    )
    sha256: Sha256Hex | None = Field(
        default=None,
        description="the export's sha256: the build fails (PROV-FILES) if the bytes differ",
    )


class FocusPrice(FocusExport):
    """A price read from a FinOps FOCUS cost-and-usage export: the effective hourly rate of the
    rows the filter keeps (sum of EffectiveCost over sum of consumed hours)."""

    accelerators_per_instance: PositiveInt = Field(
        default=1,
        description="accelerators one billed instance holds: the hourly rate is divided by it",
    )


class QuotePrice(SpecModel):
    """A price read from a supplier's quote file (YAML or CSV): one named line of it."""

    path: NonEmptyStr
    """The quote, relative to the spec: packed and hashed like evidence."""
    sha256: Sha256Hex | None = None
    """The quote's sha256: the build fails (PROV-FILES) if the bytes differ."""
    item: NonEmptyStr
    """The quote line that prices the candidate (per accelerator- or server-hour or -month)."""
