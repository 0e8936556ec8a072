"""A hosted model API as a candidate (``candidates[].api``): who serves which model, where,
at what price per 1M tokens, within which rate limits.

A candidate is either hardware (``hardware``, ``stack``, ``price``) or an API (``api``), never
both. An API candidate's account stands where a replica stands for hardware: the analysis sizes
it by the team's own ``measure`` runs against the endpoint and by the rate limits (how many
accounts, or which tier, the peak needs), and costs it from the traffic's token mix.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field, Strict, model_validator

from ..core._models import NonEmptyStr
from .cost import FocusExport
from .types import Currency, SpecModel

PerMillion = Annotated[float, Strict(), Field(ge=0, le=1e6, allow_inf_nan=False)]
"""A price per 1M tokens: zero or more, finite."""
PerMinute = Annotated[float, Strict(), Field(gt=0, le=1e12, allow_inf_nan=False)]
"""A rate limit per minute: over zero, finite."""

API_HARDWARE = "hosted API: "
"""How an API candidate's filled-in accelerator name begins (``hosted API: <provider> <model>``)."""
HARDWARE_FIELDS = ("hardware", "stack", "price", "rent", "own", "power")
"""What only a hardware candidate states."""


class FocusTokenPrice(FocusExport):
    """Per-token prices read from the token-usage rows of a FinOps FOCUS export (FOCUS 1.3, the
    1.5 draft's AI usage): for each of input, cached input and output, sum(EffectiveCost) per 1M
    tokens of the rows the filter keeps, with the PricingCategory and commitment they carry."""


class TokenPrices(SpecModel):
    """What the provider charges per 1M tokens, where that figure comes from and how long it
    holds: the figures, or a FOCUS export they are read from (``focus``)."""

    input_per_million: PerMillion | None = None
    """The price of 1M input (prompt) tokens not served from the provider's prompt cache
    (required unless ``focus`` is given)."""
    cached_input_per_million: PerMillion | None = None
    """The price of 1M input tokens served from the prompt cache (default: the input price);
    the traffic's ``cache_hit_ratio`` says which share of input tokens are."""
    output_per_million: PerMillion | None = None
    """The price of 1M output (completion) tokens (required unless ``focus`` is given)."""
    focus: FocusTokenPrice | None = None
    """A FOCUS export whose token rows give the three prices, their currency and dates (its
    rows are evidence); state it instead of the figures."""
    currency: Currency = "USD"
    """ISO 4217 currency code (default USD)."""
    source: NonEmptyStr | None = None
    """Where the prices come from (the provider's price page, a contract), as the report names
    it."""
    as_of: dt.date | None = None
    """The date the prices were read or quoted."""
    valid_until: dt.date | None = None
    """The last date the prices hold (a contract's end; a decision dated later fails PRICE)."""

    @model_validator(mode="after")
    def _one_way(self) -> TokenPrices:
        figures = [
            name
            for name in ("input_per_million", "cached_input_per_million", "output_per_million")
            if name in self.model_fields_set and getattr(self, name) is not None
        ]
        if self.focus is not None and figures:
            raise ValueError(
                "give the prices one way: the figures or focus (a FOCUS export); found focus "
                f"and {', '.join(figures)}"
            )
        if self.focus is None:
            missing = [
                name
                for name in ("input_per_million", "output_per_million")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(
                    f"give {' and '.join(missing)}, or focus (a FOCUS export the prices are "
                    "read from)"
                )
        return self

    def known(self) -> bool:
        """Whether the input and output prices are known: stated, or read from ``focus``."""
        return self.input_per_million is not None and self.output_per_million is not None

    def figures(self) -> tuple[float, float, float]:
        """(input, cached input, output) per 1M tokens; the cached price defaults to the
        input's (ValueError when the prices are still to be read from ``focus``)."""
        if self.input_per_million is None or self.output_per_million is None:
            raise ValueError("the prices are to be read from the FOCUS export: not read yet")
        cached = self.cached_input_per_million
        return (
            self.input_per_million,
            self.input_per_million if cached is None else cached,
            self.output_per_million,
        )


class RateLimits(SpecModel):
    """Rate limits of one account, as the provider states them: each limit stated binds."""

    requests_per_minute: PerMinute | None = None
    """Requests per minute one account may send."""
    tokens_per_minute: PerMinute | None = None
    """Input plus output tokens per minute (providers that state one total limit)."""
    input_tokens_per_minute: PerMinute | None = None
    """Input tokens per minute (providers that limit input and output apart)."""
    output_tokens_per_minute: PerMinute | None = None
    """Output tokens per minute (providers that limit input and output apart)."""

    @model_validator(mode="after")
    def _some_limit(self) -> RateLimits:
        if not any(getattr(self, name) is not None for name in type(self).model_fields):
            raise ValueError(
                "state at least one limit: requests_per_minute, tokens_per_minute, "
                "input_tokens_per_minute or output_tokens_per_minute"
            )
        return self


class RateTier(RateLimits):
    """One usage tier of the provider: its name and the limits of one account in it."""

    name: NonEmptyStr
    """The tier's name, as the provider calls it (e.g. ``tier-3``)."""


class HostedApi(SpecModel):
    """A hosted model API: provider, model and version, endpoint, token prices, rate limits."""

    provider: NonEmptyStr
    """Who serves the model (the company or service)."""
    model: NonEmptyStr
    """The model's name as requests name it and responses report it; the runs and score sets
    must be of it."""
    version: NonEmptyStr
    """The model's version or snapshot date as the provider names it; a run or score set
    declaring another version does not fit."""
    endpoint: NonEmptyStr
    """The OpenAI-compatible endpoint the team's ``measure`` runs were sent to (scheme, host,
    port and path prefix; never a key)."""
    prices: TokenPrices
    """The price per 1M input, cached-input and output tokens."""
    rate_limits: RateLimits
    """The limits of one account (per account on the tier the team has)."""
    tiers: list[RateTier] = Field(default_factory=list)
    """Higher usage tiers the provider offers, lowest first: sizing names the lowest tier on
    which one account carries the peak, else the accounts needed at ``rate_limits``."""


def hardware_or_api(data: Any, make_price: Callable[..., Any]) -> Any:
    """A candidate states hardware or an API, never both. An API candidate's hardware and
    stack are filled in as one account of the API (so each stage reads one shape), and its
    price is dated and sourced as ``api.prices`` with no hourly rate: ``make_price`` builds it
    without the hardware price's one-source rule (``Price`` lets a price made so, with
    ``per_accelerator_hour`` set to None, state no rate)."""
    if not isinstance(data, dict) or data.get("api") is None:
        if isinstance(data, dict) and "hardware" not in data:
            raise ValueError("a candidate states `hardware` (with `stack` and `price`) or `api`")
        price = data.get("price") if isinstance(data, dict) else None
        sources = ("per_accelerator_hour", "focus", "quote")
        if (
            isinstance(price, dict)
            and "per_accelerator_hour" in price
            and all(price.get(k) is None for k in sources)
        ):
            raise ValueError("price: per_accelerator_hour is null: give a price")
        return data
    hardware = data.get("hardware")
    # A candidate read back from a document this tool wrote carries its filled-in fields.
    echoed = isinstance(hardware, dict) and str(hardware.get("accelerator")).startswith(
        API_HARDWARE
    )
    stated = [
        name
        for name in HARDWARE_FIELDS
        if data.get(name) not in (None, [], {})
        and not (echoed and name in ("hardware", "stack", "price"))
    ]
    if stated:
        raise ValueError(
            f"a candidate is either hardware or an API: `api` is stated, so drop "
            f"{', '.join(f'`{name}`' for name in stated)}"
        )
    api = data["api"]
    if not isinstance(api, dict):
        return data  # the field's own validation names what is wrong
    try:
        prices: TokenPrices | None = TokenPrices.model_validate(api.get("prices"))
    except ValueError:
        prices = None  # the field's own validation names what is wrong
    provider, model, version = (str(api.get(k, "?")) for k in ("provider", "model", "version"))
    filled = {
        **data,
        "hardware": {
            "accelerator": f"{API_HARDWARE}{provider} {model}",
            "accelerators_per_node": 1,
            "accelerators_per_replica": 1,
        },
        "stack": {"runtime": provider, "version": version, "precision": "as served"},
    }
    price = {
        "per_accelerator_hour": None,
        "focus": None,
        "quote": None,
        "valid_until": prices and prices.valid_until,
        "currency": prices.currency if prices else "USD",
        "source": prices and prices.source,
        "as_of": prices and prices.as_of,
        "billed_per": "accelerator",
    }
    return {**filled, "price": make_price(**price)}


def schema_without_hardware(schema: dict[str, Any]) -> None:
    """The candidate's JSON Schema: hardware, stack and price are required unless ``api`` is
    stated. (That an API candidate states no hardware is the validator's rule: a decision's
    copy of the spec carries an API candidate's filled-in hardware.)"""
    required = [r for r in schema.get("required", []) if r not in ("hardware", "stack", "price")]
    schema["required"] = required
    schema["anyOf"] = [
        {"required": ["hardware", "stack", "price"], "properties": {"api": {"type": "null"}}},
        {"required": ["api"], "properties": {"api": {"type": "object"}}},
    ]
