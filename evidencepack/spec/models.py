"""The pack spec (``pack.yaml``, ``apiVersion: evidencepack/v1``): decision frame, run conditions.

Every field is described under the field, so ``schemas/pack-spec.v1.schema.json`` carries the
text; ``spec/load.py`` reads a file into these models with located errors.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, Strict, model_validator

from ..core._models import Fraction, NonEmptyStr, NonNegativeFloat, Sha256Hex
from ..core.limits import MAX_RAISED_INPUT_FILE_BYTES
from .api import HostedApi, hardware_or_api, schema_without_hardware
from .cost import Basis, Facility, FocusPrice, Own, Power, QuotePrice, Rent
from .fit import DeclaredConditions, ExchangeRate, FitPolicy
from .governance import Governance
from .metrics import ScoreRange
from .model_signature import ModelSignature
from .types import (
    CheckId,
    Currency,
    Millis,
    PositiveInt,
    PricePerHour,
    Rate,
    Slug,
    SpecModel,
    Tokens,
)

API_VERSION = "evidencepack/v1"


class Decision(SpecModel):
    """What is being decided, by whom, as of when."""

    id: Slug
    """A short id for the decision (letters, digits, ``.``, ``_``, ``-``), used in file names and
    reports."""
    question: NonEmptyStr
    """The question the pack answers, e.g. "Which accelerator serves the summariser at launch?"."""
    owner: NonEmptyStr
    """Who owns the decision (a person or a team)."""
    date: dt.date
    """The date the decision is made as of (YYYY-MM-DD); waivers are judged on it and the report is
    dated by it, never by the clock."""


class Task(SpecModel):
    """The task the model serves."""

    statement: NonEmptyStr
    """What the model must do, in one or two sentences (the report quotes it)."""
    empty_output_is_valid: bool = Field(
        default=False,
        description="a request that produced no output token is a success (by default it "
        "counts as failed)",
    )


class Dataset(SpecModel):
    """The prompts the team scores its model on; identified by a digest, a path, or both."""

    name: NonEmptyStr
    """The evaluation dataset's name."""
    version: NonEmptyStr
    """The dataset's version."""
    size_items: PositiveInt
    """How many items the dataset holds."""
    digest: Sha256Hex | None = None
    """sha256 of the dataset (give it, ``path``, or both)."""
    path: str | None = None
    """The dataset file, relative to the spec (give it, ``digest``, or both). When it names its
    items (an ``id``, ``item_id``, ``doc_id`` or ``sample_id`` per JSON line, JSON object or CSV
    row), a score set's item ids are matched with them."""
    split: NonEmptyStr | None = None
    """The split the bar is judged on (e.g. ``test``); a score set that names another split does
    not fit."""


class QualityBar(SpecModel):
    """The team's own quality bar.

    ``judged_on: confidence_bound`` compares the bar with the conservative end of the
    confidence interval (the lower bound when higher is better); ``point_estimate`` with the
    estimate itself.
    """

    threshold: Annotated[float, Strict()] = Field(allow_inf_nan=False, ge=-1e12, le=1e12)
    """The bar the quality metric must meet (above it, or below it when lower is better)."""
    judged_on: Literal["point_estimate", "confidence_bound"] = "confidence_bound"
    """``confidence_bound`` (the conservative end of the interval) or ``point_estimate``."""
    confidence_level: Annotated[float, Strict()] = Field(default=0.95, gt=0.5, lt=1)
    """The confidence level of the interval (over 0.5 and under 1; default 0.95)."""


class ScoreSetChoice(SpecModel):
    """Which score set the bar is judged on, by any of its tool, task, scorer and metric.

    Quality is judged per score set (tool, task, scorer, metric); sets are never pooled."""

    tool: NonEmptyStr | None = None
    """The tool that wrote the score set."""
    task: NonEmptyStr | None = None
    """The task the score set scores."""
    scorer: NonEmptyStr | None = None
    """The scorer that produced the scores."""
    metric: NonEmptyStr | None = None
    """The metric of the score set."""


class Scoring(SpecModel):
    """How quality is measured: the metric, its direction and the bar."""

    metric: NonEmptyStr
    """The quality metric the bar is judged on, as the score files name it."""
    direction: Literal["higher_is_better", "lower_is_better"] = "higher_is_better"
    """``higher_is_better`` (default) or ``lower_is_better``."""
    bar: QualityBar
    """The team's quality bar."""
    score_set: ScoreSetChoice | None = Field(
        default=None,
        description="the score set the bar is judged on; without it, the set whose metric is "
        "`metric` with the most items (the report says which and why)",
    )
    range: ScoreRange | None = Field(
        default=None,
        description="the range an item's score can take (e.g. {min: 0, max: 100}); without it, "
        "0 to 1 for a rate (pass_rate, accuracy, exact_match, f1, *_rate, pass@k), 0 or more "
        "for a count, else none. A score outside it fails PROV-DATA and never judges the bar",
    )
    missing_items: Literal["count_as_failed", "not_fit"] = Field(
        default="count_as_failed",
        description="a dataset item the judged score set does not score: counted as failed "
        "(the metric's worst score; default), or the set does not judge the bar (not_fit)",
    )


class TokenLengths(SpecModel):
    """Token lengths per request."""

    mean: Tokens
    """Mean tokens per request."""
    p50: Tokens | None = None
    """Median tokens per request."""
    p90: Tokens | None = None
    """90th percentile of tokens per request."""
    p99: Tokens | None = None
    """99th percentile of tokens per request."""


class Traffic(SpecModel):
    """The production traffic: its pattern, peak rate and token lengths."""

    pattern: Literal["interactive", "batch"]
    """``interactive`` (users wait on each answer: latency SLOs, Server scenario) or ``batch``
    (throughput: Offline scenario)."""
    peak_requests_per_s: Rate
    """The peak request rate the deployment must serve."""
    input_tokens: TokenLengths
    """Prompt lengths of the production traffic."""
    output_tokens: TokenLengths
    """Output lengths of the production traffic."""
    utilisation: Fraction = Field(default=0.6, gt=0)
    """The share of paid capacity expected to do useful work (over 0, at most 1; default 0.6); cost
    per token divides by it."""
    cache_hit_ratio: Fraction = 0.0
    """The share of input tokens a hosted API serves from its prompt cache (default 0)."""
    arrival: Literal["poisson", "bursty", "uniform", "any"] = "poisson"
    """How the production requests arrive (default ``poisson``: independent users). A run whose
    arrivals are of another kind (vLLM ``--burstiness`` outside 0.5..2, constant-rate arrivals,
    bursts) does not fit; ``any`` accepts every arrival process."""


class Slo(SpecModel):
    """The service-level objectives a load point must meet (p99 latencies, error rate)."""

    ttft_p99_ms: Millis
    """p99 time to first token, in milliseconds."""
    tpot_p99_ms: Millis
    """p99 time per output token, in milliseconds."""
    e2e_p99_ms: Millis | None = None
    """p99 end-to-end request latency, in milliseconds (optional)."""
    max_error_rate: Fraction = 0.01
    """The largest share of failed requests a load point may have and still meet the SLO (default
    0.01)."""


class ModelFile(SpecModel):
    """A file of the model's own, relative to the spec, pinned by its sha256."""

    path: NonEmptyStr
    """The file, relative to the spec; it is packed with the other inputs."""
    sha256: Sha256Hex | None = None
    """The file's sha256: the build fails (PROV-FILES), and ``measure`` refuses it, if the
    bytes differ."""


class ModelIdentity(SpecModel):
    """The model, by name and weights digest."""

    name: NonEmptyStr
    """The model's name, as the serving tools report it."""
    digest: Sha256Hex
    """sha256 of the model weights: the identity a run or score set must match."""
    signature: ModelSignature | None = None
    """The weights' own OpenSSF model signature (``model.sig``, OMS v1.0), verified offline:
    its manifest must name ``digest`` (its root digest, or the one file's sha256 of a one-file
    model), or PROV-MODEL fails; every measured figure is then linked to the signed weights."""
    tokenizer: ModelFile | None = None
    """The model's tokenizer: its ``tokenizer.json``, or its GGUF model file (whose vocabulary
    is read). ``measure --spec`` counts output tokens with it when the server sends no usage
    and has no tokenize endpoint (``--tokenizer`` overrides it); a build packs it."""


class Runtime(SpecModel):
    """A serving runtime and its version."""

    name: NonEmptyStr
    """The serving runtime (vLLM, SGLang, TensorRT-LLM, ...)."""
    version: NonEmptyStr
    """The runtime's version."""


class Envelope(SpecModel):
    """The frozen run conditions that performance runs and quality evals must share."""

    model: ModelIdentity
    """The model every run and score set must be of."""
    precision: NonEmptyStr
    """The numeric precision, e.g. FP8 or BF16."""
    runtime: Runtime
    """The serving runtime and its version."""
    max_concurrency: PositiveInt | None = None
    """The most requests served at once, if pinned."""
    max_batch_size: PositiveInt | None = None
    """The largest batch, if pinned."""
    settings: dict[str, str | int | float | bool] = Field(default_factory=dict)
    """Other pinned settings (name -> value) the runs and evals must share."""


class Hardware(SpecModel):
    """A candidate's accelerators and how a model replica is laid out on them."""

    accelerator: NonEmptyStr
    """The accelerator model, e.g. "NVIDIA H200" or "AMD Instinct MI325X"."""
    accelerators_per_node: PositiveInt
    """Accelerators in one server."""
    nodes: PositiveInt = 1
    """Servers the candidate has (default 1)."""
    accelerators_per_replica: PositiveInt
    """Accelerators one model replica runs on; capacity is measured per replica."""


class Stack(SpecModel):
    """The software a candidate runs in production."""

    runtime: NonEmptyStr
    """The runtime this candidate runs in production."""
    version: NonEmptyStr
    """The runtime's version."""
    precision: NonEmptyStr
    """The precision this candidate runs in production."""


class Price(SpecModel):
    """What an accelerator-hour costs, where that figure comes from and how it is billed."""

    per_accelerator_hour: PricePerHour | None = None
    """What one accelerator-hour costs (give it, or cite ``focus`` or ``quote``)."""
    focus: FocusPrice | None = None
    """A FOCUS cost-and-usage export the rate is read from (its rows are evidence)."""
    quote: QuotePrice | None = None
    """A supplier's quote file the rate is read from (one of its lines)."""
    valid_until: dt.date | None = None
    """The last date the price holds (a quote's validity; a decision dated later warns)."""
    currency: Currency = "USD"
    """ISO 4217 currency code (default USD)."""
    source: NonEmptyStr | None = Field(
        default=None,
        description="where the price comes from (a quote, a price list, a contract), as the "
        "report's first page names it",
    )
    as_of: dt.date | None = Field(default=None, description="the date the price was quoted")
    billed_per: Literal["server", "accelerator"] = Field(
        default="server",
        description="server: whole servers are bought or rented, so the idle accelerator slots "
        "of the last server are paid for; accelerator: accelerators are billed one by one",
    )

    @model_validator(mode="after")
    def _one_source(self) -> Price:
        stated = [
            name
            for name in ("per_accelerator_hour", "focus", "quote")
            if getattr(self, name) is not None
        ]
        if len(stated) != 1 and (stated or "per_accelerator_hour" not in self.model_fields_set):
            raise ValueError(
                "give the price one way: per_accelerator_hour, focus (a FOCUS export) or quote "
                f"(a quote file); found {', '.join(stated) or 'none'}"
            )
        return self


class EvidenceRef(SpecModel):
    """A file or folder the pack rests on, relative to the spec; ``sha256`` pins a file's bytes."""

    path: NonEmptyStr
    """The file or folder, relative to the spec (outside its folder only with
    ``--allow-outside-paths``)."""
    sha256: Sha256Hex | None = None
    """The file's sha256: the build fails (PROV-FILES) if the bytes differ."""
    declared: DeclaredConditions | None = None
    """Run conditions this file does not record (overrides the candidate's ``declared``)."""


class ReadRef(EvidenceRef):
    """A run or score file (or a folder of them) that a reader parses."""

    max_file_bytes: Annotated[int, Strict(), Field(gt=0, le=MAX_RAISED_INPUT_FILE_BYTES)] | None = (
        None
    )
    """The largest file this reference may hold, in bytes (at most 1 TiB). Default 1 GiB
    (1073741824), the limit against hostile input; raise it for one large file, such as a
    per-request file of millions of requests. A file read over the default carries a warning
    on its input record (the pack and its report show it), and the pack's copy of the spec
    keeps the raised limit."""


class MlperfRef(EvidenceRef):
    """An MLPerf reference: a results tree, one submission result, or a LoadGen output folder.

    ``result`` picks one result by its stable key
    (``v5.1/closed/AMD/<system>/llama2-70b-99/Server``) when ``path`` holds several;
    ``round`` names the round whose rules a team's own LoadGen run is checked against.
    """

    result: str | None = None
    """One result's key (``v5.1/closed/AMD/<system>/llama2-70b-99/Server``) when ``path`` holds
    several."""
    round: str | None = None
    """The MLPerf round (e.g. ``v5.1``) whose rules a team's own LoadGen run is checked against."""


class Evidence(SpecModel):
    """A candidate's evidence. ``declared`` applies to each run and score file that does not
    carry its own ``declared`` block."""

    declared: DeclaredConditions | None = None
    """Run conditions that apply to every run and score file without its own ``declared``."""
    mlperf: list[MlperfRef] = Field(default_factory=list)
    """MLPerf references: results trees, single results or LoadGen output folders."""
    runs: list[ReadRef] = Field(default_factory=list)
    """The team's own serving-benchmark files (any supported tool)."""
    scores: list[ReadRef] = Field(default_factory=list)
    """The team's own quality score files (any supported tool, or ``evidencepack-scores``)."""
    references: list[EvidenceRef] = Field(default_factory=list)
    """Public results and estimates to compare against (InferenceX rows, llm-d benchmark reports,
    MLCommons endpoint-tool results, aiconfigurator estimates): shown beside the candidate, never
    sizing it."""


class Candidate(SpecModel, json_schema_extra=schema_without_hardware):
    """One configuration being compared: hardware, stack, price and its evidence."""

    id: Slug
    """A short id for the candidate (letters, digits, ``.``, ``_``, ``-``)."""
    description: str | None = None
    """A line about the candidate, for the report."""
    hardware: Hardware
    """The accelerators and how a replica is laid out on them."""
    stack: Stack
    """The software stack the candidate runs in production."""
    price: Price
    """The price of an accelerator-hour."""
    rent: list[Rent] = Field(default_factory=list)
    """Other rental terms (on-demand, reserved, spot), each computed and shown."""
    own: Own | None = None
    """Buying the servers: purchase price, life, residual value, financing rate."""
    power: Power | None = None
    """Rated watts per server, for the energy bill where no measured power is cited."""
    evidence: Evidence = Field(default_factory=Evidence)
    """The files the candidate's case rests on."""
    api: HostedApi | None = None
    """A hosted model API in place of hardware, stack, price, rent, own and power."""

    @model_validator(mode="before")
    @classmethod
    def _hardware_or_api(cls, data: object) -> object:
        return hardware_or_api(data, Price.model_construct)


class Waiver(SpecModel):
    """An accepted finding: a check's FAIL that no longer fails the gate until it expires."""

    check: CheckId
    """The check id waived, e.g. C3 or PROV-MLPERF."""
    candidate: Slug | None = None
    """The candidate it applies to (default: every candidate)."""
    reason: NonEmptyStr
    """Why the finding is accepted."""
    approver: NonEmptyStr
    """Who accepted it."""
    expires: dt.date
    """The last date the waiver holds (judged as of ``decision.date`` or ``--as-of``)."""


class Approval(SpecModel):
    """A sign-off on the decision."""

    name: NonEmptyStr
    """Who approved the decision."""
    role: NonEmptyStr
    """Their role."""
    date: dt.date
    """When they approved it."""


class MarketRef(EvidenceRef):
    """A market reference for prices: a dated price index or public price list (CSV or JSON
    rows of provider, accelerator, region, price per accelerator-hour, currency, date)."""

    far_outside: Annotated[float, Field(ge=0, le=10)] = 0.25
    """How far beyond the reference's range (as a fraction of its edge) a quote is a PRICE
    warning: 0.25 warns of a quote over 1.25 x the highest price or under 0.75 x the lowest."""


class PackSpec(SpecModel):
    """The whole pack spec, version ``evidencepack/v1``."""

    api_version: Literal["evidencepack/v1"] = Field(alias="apiVersion")
    """Always ``evidencepack/v1``."""
    decision: Decision
    """The decision this pack supports: its id, question, owner and date."""
    task: Task
    """What the model must do."""
    dataset: Dataset
    """The prompts the team scores its model on."""
    scoring: Scoring
    """How quality is measured and the bar it must meet."""
    traffic: Traffic
    """The production traffic the deployment must serve."""
    slo: Slo
    """The latency and error objectives a load point must meet."""
    envelope: Envelope
    """The frozen run conditions every run and eval must share."""
    candidates: list[Candidate] = Field(min_length=1)
    """The configurations being compared (at least one)."""
    headroom: NonNegativeFloat = Field(default=0.2, le=10)
    """Spare capacity on top of the peak (default 0.2: size for 120% of peak)."""
    stack_mismatch_discount: Fraction = 0.0
    """How much to discount an MLPerf figure measured on another stack than production (0 to 1; 0
    makes C3 fail instead)."""
    fit: FitPolicy = Field(default_factory=FitPolicy)
    """How closely runs and score sets must describe the candidate and the question to count
    (token tolerance, age, sample sizes, observed identity)."""
    currency: Currency | None = None
    """The currency the decision compares costs in (default: the candidates' price currency, when
    they all share one)."""
    cost_basis: Basis = "price"
    """The cost basis the recommendation ranks on: ``price`` (each candidate's quoted price), a
    rental term (``on_demand``, ``reserved``, ``spot``) or ``own``; every basis a candidate
    states is computed and shown."""
    facility: Facility | None = None
    """What owning needs besides the servers: power price and PUE, colocation, licences,
    operations."""
    market_prices: list[MarketRef] = Field(default_factory=list)
    """Market references for prices: each candidate's quote is shown beside the range the
    reference gives for the same accelerator (readers/accelerators.py) and month, in its
    currency; a quote far outside it is a PRICE warning naming both."""
    exchange_rates: list[ExchangeRate] = Field(default_factory=list)
    """Dated rates for prices in another currency than ``currency``; without one, such a candidate's
    cost cannot be compared (the PRICE check fails naming both currencies)."""
    objective: Literal["lowest_cost_at_slo", "fewest_accelerators", "highest_quality"] = (
        "lowest_cost_at_slo"
    )
    """How the recommendation is picked among eligible candidates."""
    chosen: Slug | None = None
    """The candidate the team chose, checked against the recommendation."""
    chosen_reason: NonEmptyStr | None = None
    """Why the team chose ``chosen`` when it departs from the recommendation: required then
    (DECISION fails without it), quoted in the decision."""
    governance: Governance = Field(default_factory=Governance)
    """The rules of the house the sign-off is checked against (GOVERNANCE): segregation of the
    waiver's approver from the decision's owner, waiver expiry, approvals after the evidence."""
    waivers: list[Waiver] = Field(default_factory=list)
    """Accepted findings: a waived FAIL no longer fails the gate."""
    approvals: list[Approval] = Field(default_factory=list)
    """Who signed off on the decision."""

    def candidate(self, candidate_id: str) -> Candidate:
        """The candidate with this id (KeyError if none)."""
        for candidate in self.candidates:
            if candidate.id == candidate_id:
                return candidate
        raise KeyError(candidate_id)
