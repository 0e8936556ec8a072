"""The analysis' judgements beside its figures: which evidence fits a candidate, the public
results read beside it, and what would flip the recommendation (parts of ``decision.json``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .._models import Sha256Hex, StrictModel


class EvidenceFit(StrictModel):
    """Whether one run or score set describes this candidate and this question.

    Evidence that does not fit is shown with its reasons and never sizes or judges anything.
    """

    subject: str = Field(description="run id or score-set id")
    kind: Literal["run", "scores"]
    candidate: str
    fits: bool = Field(description="true when the evidence may size capacity or judge quality")
    reasons: tuple[str, ...] = Field(
        default=(), description="why it does not fit (empty when it fits)"
    )
    notes: tuple[str, ...] = Field(
        default=(), description="what nobody states, or only the spec declares"
    )
    replicas: int | None = Field(
        default=None, description="replicas a run served side by side; its rates are divided by it"
    )
    basis: Literal["observed", "declared", "mixed", "unknown"] = Field(
        description="where its model and stack identity comes from: the file (observed), the "
        "spec's declared values, both, or nowhere"
    )


class PublicReference(StrictModel):
    """A public result or a simulator's estimate cited beside a candidate: never sizes it."""

    candidate: str
    subject: str = Field(description="the spec's path, #index for one of several points")
    source_tool: str = Field(description="inferencex, llm-d-benchmark, inference-endpoint, ...")
    provenance: Literal["measured_elsewhere", "simulated"]
    publisher: str | None = None
    date: str | None = None
    accelerator: str | None = None
    accelerator_count: int | None = None
    model: str | None = None
    precision: str | None = None
    stack: str | None = Field(default=None, description="runtime and version (image tag)")
    load: str = Field(description="the load it was measured or modelled under, in words")
    output_tokens_per_s_per_accelerator: float | None = None
    ttft_p99_ms: float | None = None
    tpot_p99_ms: float | None = None
    measured_ratio: float | None = Field(
        default=None,
        description="the candidate's own measured output tok/s per accelerator at X* over this "
        "point's figure (measured / predicted for a simulated point)",
    )
    reading: tuple[str, ...] = Field(
        default=(), description="the reading checklist: how it differs from the question"
    )
    warnings: tuple[str, ...] = ()
    file_sha256: Sha256Hex
    pack_path: str


class Flip(StrictModel):
    """The smallest change of one disputable input that changes the recommendation."""

    input: str = Field(description='what is changed, e.g. "mi325x-vllm\'s price"')
    change: str = Field(
        description="the smallest change that flips the call ('rises 6%', 'billed per "
        "server'), or 'none' / 'none within +-50%'"
    )
    becomes: str | None = Field(
        description="the recommendation after the change (None: unchanged, or no candidate)"
    )
    relative: float | None = Field(
        description="the change as a signed fraction (0.06 for +6%); None for a basis switch"
    )


class Robustness(StrictModel):
    """How close the call is: the margin to the runner-up and what would flip it."""

    recommendation: str | None
    runner_up: str | None = Field(description="the next eligible candidate by the objective")
    margin: float | None = Field(
        description="the runner-up's cost per month over the recommendation's, minus 1"
    )
    billing: dict[str, str] = Field(
        description="each candidate's billing basis (server or accelerator)"
    )
    common_basis: dict[str, tuple[str, ...]] = Field(
        description="the ranking (best first) if every candidate were billed on one basis"
    )
    flips: tuple[Flip, ...]
    sentence: str = Field(description="the margin and the nearest flips in one sentence")

    @property
    def mixed_billing(self) -> bool:
        """Whether the candidates are billed on different bases."""
        return len(set(self.billing.values())) > 1


class TrainingReference(StrictModel):
    """An MLPerf Training result cited as a situational reference (time to train, where the same
    hardware will also fine-tune or pre-train), read with the checklist: never serving capacity."""

    candidate: str
    key: str = Field(description="training/<round>/<division>/<submitter>/<system>/<benchmark>")
    benchmark: str
    model: str | None = None
    dataset: str | None = None
    quality_target: str | None = Field(default=None, description="the metric and its target")
    time_to_train_min: float | None = Field(
        description="the round's score: the olympic mean of the converged runs x the scaling"
    )
    runs_used: int = Field(description="runs the score averages")
    runs_total: int
    scaling_factor: float
    system: str
    accelerator: str | None = None
    accelerators_total: int | None = None
    stack: str | None = None
    reading: tuple[str, ...] = Field(
        default=(), description="how it differs from the candidate (model, hardware)"
    )


class EnergyUse(StrictModel):
    """A candidate's energy at its operating point, and where the watts come from."""

    candidate: str
    watts_per_accelerator: float = Field(description="the power drawn per accelerator")
    provenance: Literal["inherited", "rated"] = Field(
        description="inherited: an MLPerf Power measurement of another system at its load; "
        "rated: a design or nameplate figure"
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


class BasisCost(StrictModel):
    """One candidate's cost on one basis: renting on a term, or owning."""

    candidate: str
    basis: Literal["price", "on_demand", "reserved", "spot", "own"]
    label: str = Field(description="the basis in words, e.g. 'own over 5 years'")
    currency: str
    per_month: float | None
    per_year: float | None
    whole_term: float | None = Field(description="over the reserved term or the owned life")
    term_months: float | None = None
    per_million_output_tokens: float | None = Field(
        description="per month over the output tokens served in a month at the utilisation"
    )
    capital: float | None = Field(default=None, description="owning: the purchase, all servers")
    breakdown: dict[str, float] = Field(
        default_factory=dict,
        description="per month: rental, capital, colocation, licences, operations, energy",
    )
    arithmetic: str
    source: str | None = None
    as_of: str | None = None
    valid_until: str | None = None
    reason: str | None = Field(default=None, description="why no figure, where there is none")


class CostBases(StrictModel):
    """Every stated basis of every candidate, the ranking under each, and owning's break-even."""

    basis: str = Field(description="the basis the recommendation ranks on (spec.cost_basis)")
    costs: tuple[BasisCost, ...]
    energy: tuple[EnergyUse, ...]
    rankings: dict[str, tuple[str, ...]] = Field(
        description="per basis, the eligible candidates that state it, cheapest per month first"
    )
    break_even: dict[str, float] = Field(
        default_factory=dict,
        description="per candidate: owning's monthly cost over renting on demand's; renting is "
        "cheaper when the capacity is used less than this share of the time",
    )
