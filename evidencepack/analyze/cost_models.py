"""The cost and energy parts of ``decision.json``: each candidate's cost on every stated basis,
the rankings under each, its energy with the method the watts come from, and measured energy
cited as evidence (re-exported by ``judgements``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import StrictModel
from ..readers.models import EnergyMethod


class EnergyUse(StrictModel):
    """A candidate's energy at its operating point, and where the watts come from."""

    candidate: str = Field(description="the candidate id")
    watts_per_accelerator: float = Field(description="the power drawn per accelerator")
    provenance: Literal["inherited", "rated"] = Field(
        description="inherited: an MLPerf Power measurement of another system at its load; "
        "rated: a design or nameplate figure"
    )
    method: EnergyMethod | None = Field(
        default=None,
        description="how the watts were obtained: wall (the whole system at the wall, MLPerf "
        "Power), accelerator (the accelerators' own counters), rated (a design or nameplate "
        "figure, e.g. power.watts_per_server) or estimate; figures of different methods are "
        "never compared or summed without saying so. Always set by this version; None only in "
        "a decision.json written before methods were recorded",
    )
    source: str = Field(description="the result key or the figure's source")
    scope: str = Field(description="what the watts cover (whole system, accelerator only)")
    kwh_per_million_output_tokens: float | None = Field(
        default=None,
        description="at the operating point: watts x accelerators per replica / "
        "output tok/s per replica x 1e6 / 3.6e6",
    )
    kwh_per_year: float | None = Field(
        default=None, description="the servers needed at full draw all year (8,760 h)"
    )


class EnergyFigure(StrictModel):
    """A measured energy figure cited as evidence for a candidate (e.g. an ML.ENERGY leaderboard
    configuration), with its method, and whether it is of the candidate's hardware and model.

    Shown beside the cost's own energy, never summed with it or compared with a figure of
    another method without saying so; it does not enter the cost."""

    candidate: str = Field(description="the candidate it is cited for")
    subject: str = Field(
        description="the cited file as the spec names it, and #index for one of its points"
    )
    source: str = Field(description="who measured it (the publisher or tool) and its label")
    method: EnergyMethod = Field(
        description="wall, accelerator (counters), rated or estimate: how it was measured"
    )
    scope: str = Field(description="what the energy covers, in words")
    fits: bool = Field(
        description="of the candidate's accelerator (readers/accelerators.py), the envelope "
        "model's size and precision and the candidate's accelerators per replica"
    )
    reasons: tuple[str, ...] = Field(
        default=(), description="why it does not fit (empty when it fits)"
    )
    accelerator: str | None = Field(default=None, description="the accelerator it ran on")
    accelerators: int | None = Field(default=None, description="accelerators it used")
    model: str | None = Field(default=None, description="the model it served")
    concurrency: int | None = Field(default=None, description="requests in flight (max batch)")
    joules_per_output_token: float | None = Field(
        default=None, description="energy per output token at its own load, in joules"
    )
    kwh_per_million_output_tokens: float | None = Field(
        default=None, description="joules_per_output_token x 1e6 / 3.6e6, at its own load"
    )
    watts_per_accelerator: float | None = Field(
        default=None, description="its average power over the accelerators it used"
    )
    warnings: tuple[str, ...] = Field(
        default=(),
        description="what a reader of the figure should know, from its file (a telemetry window "
        "unlike the run's, a token counter read over part of it)",
    )


class BasisCost(StrictModel):
    """One candidate's cost on one basis: renting on a term, or owning."""

    candidate: str = Field(description="the candidate id")
    basis: Literal["price", "on_demand", "reserved", "spot", "own"] = Field(
        description=(
            "the basis: the spec's quoted price, renting on demand, reserved or "
            "spot, or owning the servers"
        )
    )
    label: str = Field(description="the basis in words, e.g. 'own over 5 years'")
    currency: str = Field(description="ISO 4217 code of every money figure of this basis")
    per_month: float | None = Field(
        description=(
            "the cost per month of the needed capacity on this basis (730 h); None "
            "when it cannot be computed (see reason)"
        )
    )
    per_year: float | None = Field(description="per_month x 12; None when per_month is None")
    whole_term: float | None = Field(description="over the reserved term or the owned life")
    term_months: float | None = Field(
        default=None,
        description=(
            "the reserved term or the owned life, in months; None for the quoted "
            "price, on demand and spot"
        ),
    )
    per_million_output_tokens: float | None = Field(
        description="per month over the output tokens served in a month at the utilisation"
    )
    capital: float | None = Field(default=None, description="owning: the purchase, all servers")
    breakdown: dict[str, float] = Field(
        default_factory=dict,
        description="per month: rental, capital, colocation, licences, operations, energy",
    )
    arithmetic: str = Field(
        description="the arithmetic written out for the report, or 'no figure: <reason>'"
    )
    source: str | None = Field(
        default=None,
        description=(
            "where the basis's figures come from, as the spec states it; None when unstated"
        ),
    )
    as_of: str | None = Field(
        default=None, description="the date the figures were quoted (ISO date); None when unstated"
    )
    valid_until: str | None = Field(
        default=None, description="the last date the quote holds (ISO date); None when unstated"
    )
    reason: str | None = Field(default=None, description="why no figure, where there is none")
    energy_method: EnergyMethod | None = Field(
        default=None,
        description="owning: how the energy in the cost was obtained (EnergyUse.method); None "
        "when the basis holds no energy",
    )


class CostBases(StrictModel):
    """Every stated basis of every candidate, the ranking under each, and owning's break-even."""

    basis: str = Field(description="the basis the recommendation ranks on (spec.cost_basis)")
    costs: tuple[BasisCost, ...] = Field(
        description="every candidate's cost on every basis it states, the quoted price included"
    )
    energy: tuple[EnergyUse, ...] = Field(
        description=(
            "each candidate's energy use at its operating point, where a power figure is known"
        )
    )
    rankings: dict[str, tuple[str, ...]] = Field(
        description="per basis, the eligible candidates that state it, cheapest per month first"
    )
    measured_energy: tuple[EnergyFigure, ...] = Field(
        default=(),
        description="measured energy figures cited as evidence (evidence.references of a "
        "format that reports energy, e.g. ML.ENERGY), each with its method and whether it fits",
    )
    break_even: dict[str, float] = Field(
        default_factory=dict,
        description="per candidate: owning's monthly cost over renting on demand's; renting is "
        "cheaper when the capacity is used less than this share of the time",
    )
