"""The analysis' judgements beside its figures: which evidence fits a candidate, the public and
MLPerf results read beside it, and what would flip the recommendation (parts of
``decision.json``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .._models import Sha256Hex, StrictModel
from ..inputs.models import EnergyMethod


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
        description="the runner-up's cost per month over the recommendation's, minus 1"
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
        description="of the candidate's accelerator (inputs/accelerators.py), the envelope "
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
