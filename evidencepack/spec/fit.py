"""What the spec says about how evidence must fit the question.

``DeclaredConditions``: what a team states that a file does not record (shown as *declared*);
``FitPolicy``: how close a run or score set must be to the candidate and the question to count
(token lengths, age, sample sizes, observed identity); ``ExchangeRate``: the dated rate that
turns a price in another currency into the decision's.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field, Strict, model_validator

from ..core._models import Fraction, NonEmptyStr, PositiveFloat, Sha256Hex
from .types import Currency, PositiveInt, SpecModel


class DeclaredConditions(SpecModel):
    """What the team states about a run's conditions where its file does not record them.

    The comparability matrix shows these as *declared*, never as observed; a value the file
    itself records always wins over a declared one.
    """

    model_name: NonEmptyStr | None = None
    """The model the run or eval used, where its file does not say."""
    model_digest: Sha256Hex | None = None
    """sha256 of the model weights, where the file does not say."""
    precision: NonEmptyStr | None = None
    """The precision, where the file does not say."""
    runtime: NonEmptyStr | None = None
    """The runtime, where the file does not say."""
    runtime_version: NonEmptyStr | None = None
    """The runtime's version, where the file does not say."""
    concurrency: PositiveInt | None = None
    """The concurrency the run held, where the file does not say."""
    hardware: NonEmptyStr | None = None
    """The accelerator the run used, where the file does not say."""
    replicas: PositiveInt = Field(
        default=1, description="replicas the run measured; rates are divided by it"
    )
    accelerators: PositiveInt | None = None
    """Accelerators the run used in all (replicas x accelerators per replica), where the file does
    not say."""
    tensor_parallel: PositiveInt | None = None
    """Tensor-parallel size of one replica, where the file does not say."""
    pipeline_parallel: PositiveInt | None = None
    """Pipeline-parallel size of one replica, where the file does not say."""
    expert_parallel: PositiveInt | None = None
    """Expert-parallel size (MoE), where the file does not say; it spreads experts over the
    replica's accelerators and adds none."""
    data_parallel: PositiveInt | None = None
    """Data-parallel size: replicas served side by side in the run (rates are divided by it),
    where the file does not say."""


class FitPolicy(SpecModel):
    """How closely a run or score set must describe the candidate and the question to count.

    Evidence that does not fit is listed with the reason and never sizes or judges anything.
    """

    token_tolerance: Fraction = 0.25
    """How far a run's mean input and output token lengths may lie from the traffic's (a fraction
    of the traffic's mean; default 0.25, i.e. +-25%)."""
    tail_tolerance: Fraction = 0.4
    """How far a run's p90 and p99 prompt and output lengths (from its per-request rows) may lie
    from the traffic's stated p90 and p99 (a fraction of the traffic's; default 0.4, i.e. +-40%):
    prompts that all lie near the mean never size a traffic with a long tail."""
    min_duration_s: PositiveFloat = 60.0
    """The shortest run (seconds, first request sent to last completed) that can show steady-state
    capacity (default 60): a short burst measures a queue filling, not a rate it can hold."""
    min_requests: PositiveInt = 100
    """The fewest requests a run must send to size capacity (default 100)."""
    max_age_days: PositiveInt = 365
    """How old (days before ``decision.date``) a run, score set or price may be; nothing dated after
    the decision counts (default 365)."""
    min_requests_for_p99: PositiveInt = 100
    """Below this many requests a run's p99 is not an estimate: the largest observed latency (the
    conservative order statistic) is used instead, and said (default 100)."""
    min_score_items: PositiveInt = 30
    """The fewest items a score set may have to judge the quality bar (default 30)."""
    require_observed_identity: bool = False
    """When true, the chosen candidate's model and stack must be recorded by its files: a check that
    passes on declared values alone fails for it."""
    max_over_reference: float = Field(default=1.5, ge=1.0, le=100.0, allow_inf_nan=False)
    """How many times the per-accelerator output throughput of the same system's cited MLPerf
    result (same accelerator, same model size) a run may reach: a run beyond it fails C4, naming
    both figures, unless a waiver says why (default 1.5)."""


class ExchangeRate(SpecModel):
    """A dated exchange rate: one unit of ``currency`` in the decision's currency."""

    currency: Currency
    """The currency converted from (ISO 4217)."""
    rate: Annotated[float, Strict()] = Field(gt=0, le=1e9, allow_inf_nan=False)
    """What one unit of ``currency`` is worth in the decision's currency."""
    as_of: dt.date
    """The date of the rate."""
    source: NonEmptyStr
    """Where the rate comes from (a central bank's reference rate, a treasury desk)."""
    to: Currency | None = None
    """The currency the rate is stated in: ``currency: EUR, rate: 1.08, to: USD`` reads 1 EUR =
    1.08 USD. Default: the decision's currency. A rate whose ``to`` is the price's currency and
    whose ``currency`` is the decision's is typed the wrong way round: PRICE fails."""

    @model_validator(mode="after")
    def _two_currencies(self) -> ExchangeRate:
        if self.to == self.currency:
            raise ValueError(
                f"a rate converts between two currencies, not {self.currency} to itself"
            )
        return self


_FIT_SHOWN = {
    "token_tolerance": "mean prompt and output lengths within this share of the traffic's",
    "tail_tolerance": "p90/p99 lengths (from per-request rows) within this share",
    "min_duration_s": "shorter runs never size: no steady state",
    "min_requests": "runs that sent fewer requests never size",
    "max_over_reference": "at most this many times the per-accelerator tokens/s of the same "
    "system's cited MLPerf result",
}


def fit_lines() -> list[str]:
    """The fit settings a team should see, as ``init`` writes them: at their defaults, each with
    what it does."""
    policy = FitPolicy()
    head = "# How closely evidence must describe the candidate and the traffic to count (defaults)."
    shown = [f"  {name}: {getattr(policy, name):g}  # {why}" for name, why in _FIT_SHOWN.items()]
    return ["", head, "fit:", *shown]
