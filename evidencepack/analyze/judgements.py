"""The analysis' judgements beside its figures: which evidence fits a candidate, the public and
MLPerf results read beside it, and what would flip the recommendation (parts of
``decision.json``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..readers.models import EnergyMethod
from .cost_models import BasisCost as BasisCost
from .cost_models import CostBases as CostBases
from .cost_models import EnergyFigure as EnergyFigure
from .cost_models import EnergyUse as EnergyUse

COST_BASIS = "the cost basis"
"""The input name of a cost-basis flip (``robustness.flips[].input``); ``diff`` reads it too."""


class RecomputedFigure(StrictModel):
    """One figure a run states beside the same figure recomputed from its own file."""

    figure: str = Field(
        description="what it is: request throughput, output token throughput, failed requests, "
        "or a steady-state figure"
    )
    stated: float | None = Field(description="the figure as the file states it; None: not stated")
    recomputed: float | None = Field(
        description="the figure recomputed from the file's own counts, duration or rows (the "
        "one that sizes and prices); None when the file does not allow it"
    )
    unit: str = Field(description="the unit of both figures (req/s, tok/s, requests, ms)")
    how: str = Field(description="how the recomputed figure was computed, with its inputs")
    agrees: bool | None = Field(
        default=None,
        description="false when the stated figure lies beyond the tolerance (a PROV-DATA "
        "failure); None when there is nothing to compare",
    )


class EvidenceFit(StrictModel):
    """Whether one run or score set describes this candidate and this question.

    Evidence that does not fit is shown with its reasons and never sizes or judges anything.
    """

    subject: str = Field(description="run id or score-set id")
    kind: Literal["run", "scores"] = Field(
        description="what the evidence is: a measured run or a quality score set"
    )
    candidate: str = Field(description="the candidate id it is cited for")
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
    figures: tuple[RecomputedFigure, ...] = Field(
        default=(),
        description="a run's stated figures beside the ones recomputed from its own file (and "
        "its steady-state window's, where per-request rows exist)",
    )


class PublicReference(StrictModel):
    """A public result or a simulator's estimate cited beside a candidate: never sizes it."""

    candidate: str = Field(description="the candidate id it is cited beside")
    subject: str = Field(description="the spec's path, #index for one of several points")
    source_tool: str = Field(description="inferencex, llm-d-benchmark, inference-endpoint, ...")
    provenance: Literal["measured_elsewhere", "simulated"] = Field(
        description=(
            "measured_elsewhere: a public measurement of another deployment; "
            "simulated: a simulator's estimate, never a measurement"
        )
    )
    publisher: str | None = Field(
        default=None,
        description="who published the result, where the file states it; None otherwise",
    )
    date: str | None = Field(
        default=None,
        description="the result's date as the file states it; None when it states none",
    )
    accelerator: str | None = Field(
        default=None,
        description="the accelerator the point ran on, as the file names it; None when not stated",
    )
    accelerator_count: int | None = Field(
        default=None, description="how many accelerators the point used; None when not stated"
    )
    model: str | None = Field(
        default=None,
        description="the model the point served, as the file names it; None when not stated",
    )
    precision: str | None = Field(
        default=None,
        description=(
            "the numeric precision the point ran at, as the file states it; None when not stated"
        ),
    )
    stack: str | None = Field(default=None, description="runtime and version (image tag)")
    load: str = Field(description="the load it was measured or modelled under, in words")
    output_tokens_per_s_per_accelerator: float | None = Field(
        default=None,
        description=(
            "the point's output throughput, output tokens per second per "
            "accelerator; None when the file does not give it"
        ),
    )
    ttft_p99_ms: float | None = Field(
        default=None,
        description="the point's p99 time to first token, milliseconds; None when not reported",
    )
    tpot_p99_ms: float | None = Field(
        default=None,
        description="the point's p99 time per output token, milliseconds; None when not reported",
    )
    per_user_tokens_per_s: float | None = Field(
        default=None,
        description=(
            "the point's output tokens per second per user, as its source defines it "
            "(per_user_definition); None when not reported"
        ),
    )
    per_user_definition: str | None = Field(
        default=None,
        description=(
            "how per_user_tokens_per_s is defined (MLPerf Endpoints v1.0: 1000 / TPOT p90; "
            "v0.7: system tok/s / concurrency); None when not reported"
        ),
    )
    measured_ratio: float | None = Field(
        default=None,
        description="the candidate's own measured output tok/s per accelerator at X* over this "
        "point's figure (measured / predicted for a simulated point)",
    )
    reading: tuple[str, ...] = Field(
        default=(), description="the reading checklist: how it differs from the question"
    )
    warnings: tuple[str, ...] = Field(
        default=(),
        description="what the reader of the file noticed about the point (one line each)",
    )
    file_sha256: Sha256Hex = Field(description="sha256 hex of the file the point was read from")
    pack_path: str = Field(description="the file's path inside the pack (inputs/...)")


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

    recommendation: str | None = Field(
        description="the recommended candidate id; None when no candidate is eligible"
    )
    runner_up: str | None = Field(description="the next eligible candidate by the objective")
    margin: float | None = Field(
        description=(
            "the runner-up's cost per month over the recommendation's, minus 1, when cost "
            "decided between them (lowest_cost_at_slo, or a tie on the objective broken by "
            "cost); None otherwise (see gap): never negative"
        )
    )
    gap: float | None = Field(
        default=None,
        description=(
            "how far the runner-up trails in the objective's own unit (gap_unit): "
            "accelerators, or quality points; None when the objective is cost"
        ),
    )
    gap_unit: str | None = Field(
        default=None,
        description="accelerators, quality points (a fraction x100), or the metric's name",
    )
    tied: bool = Field(
        default=False,
        description=(
            "the recommendation and the runner-up are tied on the objective (as many "
            "accelerators, or quality intervals that overlap) and cost broke the tie"
        ),
    )
    close: str | None = Field(
        default=None,
        description="how close the call is, in words and the objective's own unit",
    )
    billing: dict[str, str] = Field(
        description="each candidate's billing basis (server or accelerator)"
    )
    common_basis: dict[str, tuple[str, ...]] = Field(
        description="the ranking (best first) if every candidate were billed on one basis"
    )
    flips: tuple[Flip, ...] = Field(
        description=(
            "for each disputable input (each candidate's billing basis and price, the "
            "peak rate, headroom, utilisation, quality bar and SLO limits, and as 'the cost "
            "basis' each stated cost basis other than the spec's), the smallest change that "
            "changes the recommendation"
        )
    )
    sentence: str = Field(description="the margin and the nearest flips in one sentence")

    @property
    def mixed_billing(self) -> bool:
        """Whether the candidates are billed on different bases."""
        return len(set(self.billing.values())) > 1


class TrainingReference(StrictModel):
    """An MLPerf Training result cited as a situational reference (time to train, where the same
    hardware will also fine-tune or pre-train), read with the checklist: never serving capacity."""

    candidate: str = Field(description="the candidate id it is cited beside")
    key: str = Field(description="training/<round>/<division>/<submitter>/<system>/<benchmark>")
    benchmark: str = Field(description="the MLPerf Training benchmark (e.g. llama2_70b_lora)")
    model: str | None = Field(
        default=None,
        description=(
            "the benchmark's reference model and task (e.g. 'Llama 2 70B, LoRA "
            "fine-tuning'); None when not known"
        ),
    )
    dataset: str | None = Field(
        default=None, description="the benchmark's dataset (e.g. C4); None when not known"
    )
    quality_target: str | None = Field(default=None, description="the metric and its target")
    time_to_train_min: float | None = Field(
        description="the round's score: the olympic mean of the converged runs x the scaling"
    )
    runs_used: int = Field(description="runs the score averages")
    runs_total: int = Field(description="run files (result_<n>.txt) the result holds")
    scaling_factor: float = Field(
        description=(
            "the factor the review committee set in scaling.json, by which the "
            "olympic mean is multiplied (1.0 without the file)"
        )
    )
    system: str = Field(description="the submitted system's name (its id where it has no name)")
    accelerator: str | None = Field(
        default=None,
        description=(
            "the accelerator as the system description names it (several kinds "
            "joined by ' + '); None when it names none"
        ),
    )
    accelerators_total: int | None = Field(
        default=None,
        description="nodes x accelerators per node of the system; None when either is not stated",
    )
    stack: str | None = Field(
        default=None,
        description=(
            "the framework part of the system description's software stack; None when it names none"
        ),
    )
    reading: tuple[str, ...] = Field(
        default=(), description="how it differs from the candidate (model, hardware)"
    )


class MlperfReference(StrictModel):
    """An MLPerf result cited for a candidate, beside the candidate's own stack."""

    candidate: str = Field(description="the candidate it is cited for")
    key: str = Field(description="the MLPerf result's key in the store")
    round: str | None = Field(description="the MLPerf round (e.g. v5.1); None when not known")
    scenario: str = Field(
        description="the LoadGen scenario (Offline, Server, Interactive, SingleStream, MultiStream)"
    )
    benchmark: str = Field(
        description=(
            "the benchmark (e.g. llama2-70b-99), or the result's benchmark folder "
            "when not recognised"
        )
    )
    validity: str = Field(description="LoadGen's verdict on the run: VALID or INVALID")
    system: str = Field(description="the submitted system's name (its id where it has none)")
    accelerator: str = Field(
        description="the system's accelerator as its description names it ('?' when it names none)"
    )
    accelerators_total: int | None = Field(
        description="nodes x accelerators per node of the system; None when either is not stated"
    )
    headline_value: float | None = Field(
        description="the result's headline figure as MLPerf reports it; None when not found"
    )
    headline_unit: str | None = Field(
        description="that figure's unit (e.g. Tokens/s, Samples/s); None when not found"
    )
    per_accelerator_value: float | None = Field(
        description=(
            "the result's tokens per second over accelerators_total; None when either is unknown"
        )
    )
    stack_runtime: str | None = Field(
        description=(
            "the serving runtime (and version) picked from the submission's "
            "software stack; None when none is identified"
        )
    )
    stack_precision: str | None = Field(
        description="the precision the submission states; None when not stated"
    )
    stack_matches: bool = Field(
        description=(
            "true when the runtime, its version and the precision match the candidate's stack"
        )
    )
    discount: float = Field(
        description=(
            "the fraction taken off per_accelerator_value because the stack differs "
            "(the spec's stack_mismatch_discount; 0 when it matches)"
        )
    )
    discounted_per_accelerator_value: float | None = Field(
        description=(
            "per_accelerator_value x (1 - discount); None when per_accelerator_value is None"
        )
    )
    measured_ratio: float | None = Field(
        description="reference per-accelerator output tokens/s over the candidate's measured value"
    )
    accuracy: dict[str, float] = Field(
        default_factory=dict,
        description="the accuracy figures of the result's accuracy run, by metric name",
    )
    average_watts: float | None = Field(
        default=None, description="MLPerf Power: the average system watts over the run"
    )
    kwh_per_million_output_tokens: float | None = Field(
        default=None,
        description="MLPerf Power: energy per 1M output tokens, watts / tokens per s x 1e6 / "
        "3.6e6 (inherited, whole system)",
    )
    energy_scope: str | None = Field(
        default=None, description="what the wattage covers (MLPerf Power: the whole system)"
    )
    energy_method: EnergyMethod | None = Field(
        default=None,
        description="how average_watts was measured: wall (MLPerf Power meters the whole "
        "system at the wall); None when the result has no power measurement",
    )
    design_power_watts: float | None = Field(
        default=None, description="the system's rated (design) power, where stated"
    )
    division: str | None = Field(
        default=None, description="closed or open; None for a run outside a results tree"
    )
    availability: str | None = Field(
        default=None,
        description="the system's publication status as written (available, preview, rdi); "
        "None when not stated",
    )
    available_by: str | None = Field(
        default=None,
        description="a preview system's availability date, where its description states one",
    )
    supports: bool = Field(
        default=True,
        description="true when it may stand as the candidate's reference: the candidate's "
        "accelerator, a model of the envelope model's size, and for sale at the decision",
    )
    findings: tuple[str, ...] = Field(
        default=(),
        description="what departs (Open division, not for sale, another accelerator or model) "
        "or was not compared, as C3 reports it",
    )
