"""The pack spec (``pack.yaml``, ``apiVersion: evidencepack/v1``): decision frame, run conditions.

``load_spec()`` reads it with the safe YAML loader and reports every problem as
``pack.yaml:LINE:COL: field.path: message``; evidence paths resolve relative to the spec's folder.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, Strict, StringConstraints

from ._models import Fraction, NonEmptyStr, NonNegativeFloat, Sha256Hex, StrictModel
from ._validation import located_problem, validate_located
from ._yaml import Loc, load_located
from .errors import SpecError
from .mlperf.rules import KNOWN_ROUNDS

API_VERSION = "evidencepack/v1"

Slug = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
CheckId = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$")]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
PositiveInt = Annotated[int, Strict(), Field(gt=0, le=1_000_000)]
# Bounds that keep every figure of the cost and capacity model finite and meaningful: a price
# of 1e308 overflows a month's cost to inf, a peak of 1e-320 underflows to "0 accelerators".
PricePerHour = Annotated[float, Strict(), Field(gt=0, le=1e6, allow_inf_nan=False)]
Rate = Annotated[float, Strict(), Field(ge=1e-6, le=1e9, allow_inf_nan=False)]
Tokens = Annotated[float, Strict(), Field(ge=1e-3, le=1e8, allow_inf_nan=False)]
Millis = Annotated[float, Strict(), Field(ge=1e-3, le=1e9, allow_inf_nan=False)]


class Decision(StrictModel):
    """What is being decided, by whom, as of when."""

    id: Slug
    question: NonEmptyStr
    owner: NonEmptyStr
    date: dt.date


class Task(StrictModel):
    statement: NonEmptyStr
    empty_output_is_valid: bool = Field(
        default=False,
        description="a request that produced no output token is a success (by default it "
        "counts as failed)",
    )


class Dataset(StrictModel):
    """The prompts the team scores its model on; identified by a digest, a path, or both."""

    name: NonEmptyStr
    version: NonEmptyStr
    size_items: PositiveInt
    digest: Sha256Hex | None = None
    path: str | None = None


class QualityBar(StrictModel):
    """The team's own quality bar.

    ``judged_on: confidence_bound`` compares the bar with the conservative end of the
    confidence interval (the lower bound when higher is better); ``point_estimate`` with the
    estimate itself.
    """

    threshold: Annotated[float, Strict()] = Field(allow_inf_nan=False, ge=-1e12, le=1e12)
    judged_on: Literal["point_estimate", "confidence_bound"] = "confidence_bound"
    confidence_level: Annotated[float, Strict()] = Field(default=0.95, gt=0.5, lt=1)


class ScoreSetChoice(StrictModel):
    """Which score set the bar is judged on, by any of its tool, task, scorer and metric.

    Quality is judged per score set (tool, task, scorer, metric); sets are never pooled."""

    tool: NonEmptyStr | None = None
    task: NonEmptyStr | None = None
    scorer: NonEmptyStr | None = None
    metric: NonEmptyStr | None = None


class Scoring(StrictModel):
    metric: NonEmptyStr
    direction: Literal["higher_is_better", "lower_is_better"] = "higher_is_better"
    bar: QualityBar
    score_set: ScoreSetChoice | None = Field(
        default=None,
        description="the score set the bar is judged on; without it, the set whose metric is "
        "`metric` with the most items (the report says which and why)",
    )


class TokenLengths(StrictModel):
    mean: Tokens
    p50: Tokens | None = None
    p90: Tokens | None = None
    p99: Tokens | None = None


class Traffic(StrictModel):
    pattern: Literal["interactive", "batch"]
    peak_requests_per_s: Rate
    input_tokens: TokenLengths
    output_tokens: TokenLengths
    utilisation: Fraction = Field(default=0.6, gt=0)


class Slo(StrictModel):
    ttft_p99_ms: Millis
    tpot_p99_ms: Millis
    e2e_p99_ms: Millis | None = None
    max_error_rate: Fraction = 0.01


class ModelIdentity(StrictModel):
    name: NonEmptyStr
    digest: Sha256Hex


class Runtime(StrictModel):
    name: NonEmptyStr
    version: NonEmptyStr


class Envelope(StrictModel):
    """The frozen run conditions that performance runs and quality evals must share."""

    model: ModelIdentity
    precision: NonEmptyStr
    runtime: Runtime
    max_concurrency: PositiveInt | None = None
    max_batch_size: PositiveInt | None = None
    settings: dict[str, str | int | float | bool] = Field(default_factory=dict)


class Hardware(StrictModel):
    accelerator: NonEmptyStr
    accelerators_per_node: PositiveInt
    nodes: PositiveInt = 1
    accelerators_per_replica: PositiveInt


class Stack(StrictModel):
    runtime: NonEmptyStr
    version: NonEmptyStr
    precision: NonEmptyStr


class Price(StrictModel):
    """What an accelerator-hour costs, where that figure comes from and how it is billed."""

    per_accelerator_hour: PricePerHour
    currency: Currency = "USD"
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


class DeclaredConditions(StrictModel):
    """What the team states about a run's conditions where its file does not record them.

    The comparability matrix shows these as *declared*, never as observed; a value the file
    itself records always wins over a declared one.
    """

    model_name: NonEmptyStr | None = None
    model_digest: Sha256Hex | None = None
    precision: NonEmptyStr | None = None
    runtime: NonEmptyStr | None = None
    runtime_version: NonEmptyStr | None = None
    concurrency: PositiveInt | None = None
    hardware: NonEmptyStr | None = None
    replicas: PositiveInt = Field(
        default=1, description="replicas the run measured; rates are divided by it"
    )


class EvidenceRef(StrictModel):
    """A file or folder the pack rests on, relative to the spec; ``sha256`` pins a file's bytes."""

    path: NonEmptyStr
    sha256: Sha256Hex | None = None
    declared: DeclaredConditions | None = None


class MlperfRef(EvidenceRef):
    """An MLPerf reference: a results tree, one submission result, or a LoadGen output folder.

    ``result`` picks one result by its stable key
    (``v5.1/closed/AMD/<system>/llama2-70b-99/Server``) when ``path`` holds several;
    ``round`` names the round whose rules a team's own LoadGen run is checked against.
    """

    result: str | None = None
    round: str | None = None


class Evidence(StrictModel):
    """A candidate's evidence. ``declared`` applies to each run and score file that does not
    carry its own ``declared`` block."""

    declared: DeclaredConditions | None = None
    mlperf: list[MlperfRef] = Field(default_factory=list)
    runs: list[EvidenceRef] = Field(default_factory=list)
    scores: list[EvidenceRef] = Field(default_factory=list)


class Candidate(StrictModel):
    id: Slug
    description: str | None = None
    hardware: Hardware
    stack: Stack
    price: Price
    evidence: Evidence = Field(default_factory=Evidence)


class Waiver(StrictModel):
    check: CheckId
    candidate: Slug | None = None
    reason: NonEmptyStr
    approver: NonEmptyStr
    expires: dt.date


class Approval(StrictModel):
    name: NonEmptyStr
    role: NonEmptyStr
    date: dt.date


class PackSpec(StrictModel):
    """The whole pack spec, version ``evidencepack/v1``."""

    api_version: Literal["evidencepack/v1"] = Field(alias="apiVersion")
    decision: Decision
    task: Task
    dataset: Dataset
    scoring: Scoring
    traffic: Traffic
    slo: Slo
    envelope: Envelope
    candidates: list[Candidate] = Field(min_length=1)
    headroom: NonNegativeFloat = Field(default=0.2, le=10)
    stack_mismatch_discount: Fraction = 0.0
    objective: Literal["lowest_cost_at_slo", "fewest_accelerators", "highest_quality"] = (
        "lowest_cost_at_slo"
    )
    chosen: Slug | None = None
    waivers: list[Waiver] = Field(default_factory=list)
    approvals: list[Approval] = Field(default_factory=list)

    def candidate(self, candidate_id: str) -> Candidate:
        for candidate in self.candidates:
            if candidate.id == candidate_id:
                return candidate
        raise KeyError(candidate_id)


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec with the file it came from; resolves evidence paths."""

    spec: PackSpec
    path: Path
    allow_outside: bool = False

    @property
    def base_dir(self) -> Path:
        return self.path.resolve().parent

    def resolve(self, relative: str) -> Path:
        return (self.base_dir / relative).resolve()

    def evidence_refs(self) -> Iterator[tuple[Loc, str, EvidenceRef]]:
        """Every evidence reference with its spec location and role (mlperf, runs, scores)."""
        yield from _evidence_refs(self.spec)


def _evidence_refs(spec: PackSpec) -> Iterator[tuple[Loc, str, EvidenceRef]]:
    for ci, candidate in enumerate(spec.candidates):
        for role in ("mlperf", "runs", "scores"):
            refs: list[EvidenceRef] = list(getattr(candidate.evidence, role))
            for ri, ref in enumerate(refs):
                yield ("candidates", ci, "evidence", role, ri, "path"), role, ref


def load_spec(
    path: Path, *, allow_outside: bool = False, read_from: Path | None = None
) -> LoadedSpec:
    """Load and validate ``path``; raise SpecError listing every problem with line and column.

    ``read_from`` is the file whose bytes are parsed (a build's snapshot of ``path``, so that
    the spec the analysis follows is the one packed); evidence paths still resolve from ``path``.
    """
    from .errors import InputError

    try:
        doc = load_located(path, read_from=read_from)
    except InputError as exc:
        raise SpecError(exc.message, exc.problems) from exc
    base = path.resolve().parent
    # Evidence paths and candidate ids are checked from the raw document, so that a spec with
    # type errors reports its missing files and unknown ids in the same pass, not a second one.
    early = [
        located_problem(doc, path, loc, problem)
        for loc, relative in _raw_paths(doc.data)
        if (problem := _path_problem(base, relative, allow_outside=allow_outside))
    ]
    early += [located_problem(doc, path, loc, msg) for loc, msg in _id_problems(doc.data)]
    try:
        spec = validate_located(PackSpec, doc, path)
    except InputError as exc:
        problems = sorted({*exc.problems, *early}, key=_by_position)
        raise SpecError(f"{path}: {len(problems)} problem(s) in the spec", problems) from exc

    problems = [located_problem(doc, path, loc, msg) for loc, msg in _semantic_problems(spec)]
    problems = sorted([*problems, *early], key=_by_position)
    if problems:
        raise SpecError(f"{path}: {len(problems)} problem(s) in the spec", problems)
    return LoadedSpec(spec=spec, path=path, allow_outside=allow_outside)


def _raw_paths(data: object) -> Iterator[tuple[Loc, str]]:
    """Every evidence path and the dataset path in the unvalidated document, with its place."""
    if not isinstance(data, dict):
        return
    dataset = data.get("dataset")
    if isinstance(dataset, dict) and isinstance(dataset.get("path"), str):
        yield ("dataset", "path"), dataset["path"]
    candidates = data.get("candidates")
    for ci, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        evidence = candidate.get("evidence") if isinstance(candidate, dict) else None
        for role in ("mlperf", "runs", "scores"):
            refs = evidence.get(role) if isinstance(evidence, dict) else None
            for ri, ref in enumerate(refs if isinstance(refs, list) else []):
                if isinstance(ref, dict) and isinstance(ref.get("path"), str) and ref["path"]:
                    yield ("candidates", ci, "evidence", role, ri, "path"), ref["path"]


def _by_position(problem: str) -> tuple[int, int, str]:
    """Sort key of a ``file:line:col: ...`` problem line: by line and column."""
    match = re.search(r":(\d+):(\d+): ", problem)
    return (int(match.group(1)), int(match.group(2)), problem) if match else (0, 0, problem)


def _id_problems(data: object) -> Iterator[tuple[Loc, str]]:
    """Candidate ids: duplicates, and ``chosen`` or a waiver naming none. Read from the raw
    document, so they are reported in the same pass as type errors elsewhere in the spec."""
    if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
        return
    candidates = [c if isinstance(c, dict) else {} for c in data["candidates"]]
    ids = [str(c["id"]) for c in candidates if isinstance(c.get("id"), str | int)]
    seen: set[str] = set()
    for index, candidate in enumerate(candidates):
        cid = candidate.get("id")
        if isinstance(cid, str | int) and str(cid) in seen:
            yield ("candidates", index, "id"), f"duplicate candidate id {str(cid)!r}"
        seen.add(str(cid))
    chosen = data.get("chosen")
    if isinstance(chosen, str | int) and str(chosen) not in ids:
        yield ("chosen",), f"{str(chosen)!r} is not a candidate id; candidates: {', '.join(ids)}"
    waivers = data.get("waivers")
    for index, waiver in enumerate(waivers if isinstance(waivers, list) else []):
        named = waiver.get("candidate") if isinstance(waiver, dict) else None
        if isinstance(named, str | int) and str(named) not in ids:
            yield ("waivers", index, "candidate"), f"{str(named)!r} is not a candidate id"


def _semantic_problems(spec: PackSpec) -> Iterator[tuple[Loc, str]]:
    for index, candidate in enumerate(spec.candidates):
        hw = candidate.hardware
        total = hw.accelerators_per_node * hw.nodes
        if hw.accelerators_per_replica > total:
            yield (
                ("candidates", index, "hardware", "accelerators_per_replica"),
                f"{hw.accelerators_per_replica} accelerators per replica exceed the "
                f"{total} the candidate has ({hw.nodes} node(s) x {hw.accelerators_per_node})",
            )
    if spec.dataset.digest is None and spec.dataset.path is None:
        yield ("dataset",), "give the dataset's digest, its path, or both"
    for index, candidate in enumerate(spec.candidates):
        for ri, ref in enumerate(candidate.evidence.mlperf):
            if ref.round is not None and ref.round not in KNOWN_ROUNDS:
                yield (
                    ("candidates", index, "evidence", "mlperf", ri, "round"),
                    f"unknown MLPerf round {ref.round!r}; known: {', '.join(KNOWN_ROUNDS)}",
                )


def _path_problem(base: Path, relative: str, *, allow_outside: bool) -> str | None:
    if Path(relative).is_absolute() and not allow_outside:
        return f"absolute path {relative!r} is not allowed (use a path relative to the spec)"
    target = (base / relative).resolve()
    if not allow_outside and not target.is_relative_to(base):
        return (
            f"path {relative!r} resolves to {target}, outside the spec's folder {base} "
            "(symlinks included); pass --allow-outside-paths to permit it"
        )
    if not target.exists():
        guess = _near_path(base, relative)
        hint = f"; did you mean {guess!r}?" if guess else ""
        return f"path {relative!r} does not exist (looked for {target}){hint}"
    return None


def _near_path(base: Path, relative: str) -> str | None:
    """The existing path a misspelt one most likely meant: each missing part replaced by the
    closest name in its folder (``evidence/h200-vlm/runs`` -> ``evidence/h200-vllm/runs``)."""
    parts = Path(relative).parts
    current = base
    fixed: list[str] = []
    for part in parts:
        if part in ("", ".") or (current / part).exists():
            fixed.append(part)
            current = current / part
            continue
        try:
            names = sorted(p.name for p in current.iterdir()) if current.is_dir() else []
        except OSError:
            return None
        close = difflib.get_close_matches(part, names[:1000], n=1, cutoff=0.6)
        if not close:
            return None
        fixed.append(close[0])
        current = current / close[0]
    guess = Path(*fixed).as_posix() if fixed else relative
    return guess if guess != relative and (base / guess).exists() else None
