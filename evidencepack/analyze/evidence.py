"""The evidence of each candidate as the analysis sees it, independent of the input formats.

``gather`` (in the pipeline) fills these from the store; checks, comparability, capacity, cost
and quality read only these views, so a new input format never touches the analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..intake.dataset_items import DatasetItems
from ..intake.records import FileProblem, InputFile
from ..mlperf.energy import EnergyFigures
from ..mlperf.training_import import TrainingResult
from ..pricing.market import MarketReference
from ..readers.models import ReferencePoint
from .capacity import RunPoint
from .judgements import RecomputedFigure
from .method import RunMethod
from .models import EvidenceLink


@dataclass(frozen=True)
class Conditions:
    """Run conditions of one piece of evidence; None where unknown."""

    model_name: str | None = None
    model_digest: str | None = None
    precision: str | None = None
    runtime: str | None = None
    runtime_version: str | None = None
    concurrency: int | None = None
    hardware: str | None = None
    input_tokens_mean: float | None = None
    output_tokens_mean: float | None = None


@dataclass(frozen=True)
class Layout:
    """How a run spread the model over accelerators, as its file records it (``observed``) or the
    team declares it; None where nobody says. A replica is ``tensor x pipeline`` accelerators
    (expert parallelism spreads experts over them and adds none); ``data`` replicas ran side by
    side."""

    tensor: int | None = None
    pipeline: int | None = None
    expert: int | None = None
    data: int | None = None
    accelerators: int | None = None
    """Accelerators the run used in all."""
    replicas_declared: int | None = None
    """The spec's ``declared.replicas`` (the old way to say how many replicas a run measured)."""
    sources: tuple[str, ...] = ()
    """Which of the fields above came from the spec (``declared``), e.g. ``("tensor",)``."""


@dataclass(frozen=True)
class DataFinding:
    """A finding about one run's data (a row of ``run_findings`` or a failed ``run_checks``
    row in the store), named by the run, its file, its model and the figure concerned."""

    run: str
    file: InputFile
    model: str | None
    kind: str
    severity: Literal["FAIL", "WARN"]
    figure: str | None
    detail: str

    def text(self) -> str:
        """The finding as a check's reason names it: run, model, detail."""
        model = f" ({self.model})" if self.model else ""
        return f"{self.run}{model}: {self.detail}"


@dataclass(frozen=True)
class RunEvidence:
    """One run, one load point: a summary and its own per-request file are one run (``also``
    lists the summary files cross-checked against the rows)."""

    id: str
    file: InputFile
    tool: str
    point: RunPoint
    observed: Conditions
    declared: Conditions
    definitions: tuple[str, ...] = ()
    findings: tuple[DataFinding, ...] = ()
    also: tuple[InputFile, ...] = ()
    layout: Layout = Layout()
    timestamp: str | None = None
    """When the run was measured, as its file records it (ISO 8601 or the tool's own form)."""
    figures: tuple[RecomputedFigure, ...] = ()
    """Its stated figures beside the ones recomputed from its own file (``analyze/recompute``)."""
    method: RunMethod = RunMethod()
    """How it was made, as its file records it, and its per-request rows' profile."""


@dataclass(frozen=True)
class ScoreEvidence:
    """One score set: its item scores (``item_ids`` beside them, when the file names items)."""

    id: str
    file: InputFile
    tool: str
    metric: str | None
    scores: tuple[float, ...]
    observed: Conditions
    declared: Conditions
    task: str | None = None
    scorer: str | None = None
    item_ids: tuple[str, ...] = ()
    direction: str | None = None
    """The direction the file states for its metric (``higher_is_better``/``lower_is_better``)."""
    dataset: tuple[str | None, str | None, str | None] = (None, None, None)
    """The dataset the file names: (name, version, sha256 digest); None where it says nothing."""
    timestamp: str | None = None
    """When the set was scored, as its file records it."""
    split: str | None = None
    """The dataset split the file says it scored (``test``, ``train``); None where it says
    nothing."""
    settings: tuple[tuple[str, str | int | float | bool | None], ...] = ()
    """The settings the file records the eval was run with (name, value), sorted by name."""
    judge_model: str | None = None
    """The model that graded the items (an LLM judge), when the file names one."""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """(tool, task, scorer, metric): sets with different keys are never pooled."""
        return (self.tool, self.task or "-", self.scorer or "-", self.metric or "-")

    @property
    def model(self) -> str | None:
        """The model the score set names (recorded, else declared)."""
        return self.observed.model_name or self.declared.model_name


@dataclass(frozen=True)
class ReferenceEvidence:
    """An MLPerf result cited for a candidate."""

    key: str
    files: tuple[InputFile, ...]
    round: str | None
    benchmark: str
    scenario: str
    validity: str
    invalid_reasons: tuple[str, ...]
    failed_rules: tuple[str, ...]
    system: str
    accelerator: str
    accelerators_total: int | None
    headline_value: float | None
    headline_unit: str | None
    tokens_per_s: float | None
    runtime: str | None
    runtime_version: str | None
    precision: str | None
    stack_raw: str
    accuracy: dict[str, float]
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    energy: EnergyFigures | None = None
    """The result's MLPerf Power figures (whole system at the wall), if it has them."""
    design_power_watts: float | None = None
    """The system's rated (design) power, where the submission states it."""
    division: str | None = None
    """closed or open (None outside a results tree)."""
    availability: str | None = None
    """The system's publication status as written (available, preview, rdi); None: not stated."""
    available_by: str | None = None
    """A preview system's availability date, where its description states one."""
    model_family: str | None = None
    """The benchmark's model family (llama2-70b); None when the benchmark is not recognised."""

    def link(self) -> EvidenceLink:
        """The evidence link of this MLPerf reference: its key and first file."""
        first = self.files[0] if self.files else None
        return EvidenceLink(
            row=self.key,
            file_sha256=first.sha256 if first else None,
            pack_path=first.pack_path if first else None,
        )


@dataclass(frozen=True)
class PublicEvidence:
    """A public result or estimate cited for a candidate (``evidence.references``): one point
    of a file, read by the inputs stage, shown beside the candidate and never sizing it."""

    id: str
    file: InputFile
    point: ReferencePoint


@dataclass(frozen=True)
class TrainingEvidence:
    """An MLPerf Training result cited as a situational reference, with the files it rests on."""

    result: TrainingResult
    files: tuple[InputFile, ...]


@dataclass(frozen=True)
class SignedWeights:
    """The envelope model's signature (``envelope.model.signature``) as ``check`` judged it."""

    problem: str | None
    """Why the weights are not shown signed (a bad bundle, another signer, other weights, the
    bundle missing), naming the file and field or both digests; None when they are."""
    detail: str
    """One line: the signed weights' root digest, their file count and the signer."""
    link: EvidenceLink | None
    """The signature bundle in the pack; None when it could not be read."""


@dataclass
class CandidateEvidence:
    """Everything read for one candidate: its runs, score sets, MLPerf references and problems."""

    candidate: str
    runs: list[RunEvidence] = field(default_factory=list)
    scores: list[ScoreEvidence] = field(default_factory=list)
    references: list[ReferenceEvidence] = field(default_factory=list)
    public: list[PublicEvidence] = field(default_factory=list)
    training: list[TrainingEvidence] = field(default_factory=list)
    """MLPerf Training results cited as situational references (never serving capacity)."""
    """Public results and estimates cited beside the candidate (never sizing it)."""
    problems: list[FileProblem] = field(default_factory=list)
    """Provenance problems found while reading the candidate's files (PROV-FILES)."""
    file_warnings: list[FileProblem] = field(default_factory=list)
    """What PROV-FILES warns of without failing: files with several names (hard links)."""
    cited: list[tuple[str, str, InputFile]] = field(default_factory=list)
    """Every run and score file the candidate cites: (role, spec reference, file), also those
    that yielded nothing for it (the same bytes already read for another candidate)."""
    price_failures: list[str] = field(default_factory=list)
    """What the cited price file says against the price as used (a unit the candidate cannot
    be billed by, blended FOCUS rows): PRICE fails naming each."""
    price_notes: list[str] = field(default_factory=list)
    """What reading the price excluded or assumed (credit rows left out): PRICE warns."""
    price_offered: tuple[int, str, str] | None = None
    """What a cited quote offers at its price: (quantity, server or accelerator, its line)."""
    signed_weights: SignedWeights | None = None
    """The envelope model's signature, when the spec cites one (PROV-MODEL, the claim ledger)."""
    market: list[MarketReference] = field(default_factory=list)
    """The spec's market references for prices (``market_prices``), read once, the same for
    every candidate (PRICE shows the quote beside them)."""
    dataset: DatasetItems | None = None
    """The item ids of the spec's dataset file, when it cites one (a score set's items are
    matched with them)."""

    def findings(self) -> list[DataFinding]:
        """Every data finding of the candidate's runs."""
        return [f for run in self.runs for f in run.findings]

    def items(self) -> list[RunEvidence | ScoreEvidence]:
        """The runs and score sets, the evidence measured on the candidate itself."""
        return [*self.runs, *self.scores]


def link(item: RunEvidence | ScoreEvidence) -> EvidenceLink:
    """The evidence link of a run or score set: its id and file."""
    return EvidenceLink(row=item.id, file_sha256=item.file.sha256, pack_path=item.file.pack_path)
