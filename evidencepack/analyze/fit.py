"""Does a run or score set describe this candidate and this question? Evidence that does not
fit is listed with the reason and never sizes capacity or judges quality.

A run fits when its load shape can size the traffic (an open loop at a finite rate or a closed
loop at a stated concurrency; an unbounded throughput run never sizes interactive traffic), it
ran on the candidate's accelerator (the same family, form factor, memory and partition,
``readers/accelerators.py``) with the candidate's replica layout (tensor x pipeline
accelerators per replica), within the envelope's concurrency, with token lengths near the
traffic's, on the envelope's model and the candidate's stack, dated within the spec's window
before the decision and not after it, and no other candidate cites the same bytes. A score set
fits when it scores the spec's metric in the spec's direction, on the spec's dataset (its
version and split) and model, with the envelope's pinned settings (``score_fit.py``), dated
likewise. What nobody states is a note, not a reason: the comparability matrix and C5
show it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

from ..readers import accelerators
from ..spec.models import Candidate, PackSpec
from .evidence import Conditions, RunEvidence, ScoreEvidence
from .judgements import EvidenceFit
from .layout import per_replica_accelerators, replicas_of
from .method import judge_method
from .models import ComparabilityRow
from .score_fit import dataset_reasons, settings_reasons

IDENTITY = ("model_name", "model_digest", "precision", "runtime", "runtime_version", "hardware")
"""What says which model and stack a piece of evidence is of (observed or declared)."""
_RUN_FIELDS = (*IDENTITY, "concurrency", "input_tokens_mean", "output_tokens_mean")
_SCORE_FIELDS = ("model_name", "model_digest", "precision", "runtime", "runtime_version")


def parse_when(text: str | None) -> dt.date | None:
    """The date a file records (ISO 8601 date or time, vLLM's ``YYYYMMDD-HHMMSS``), or None."""
    if not text:
        return None
    value = text.strip()
    match = re.match(r"^(\d{4})-?(\d{2})-?(\d{2})", value)
    if not match:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def time_reason(what: str, when: dt.date | None, spec: PackSpec) -> str | None:
    """Why evidence dated ``when`` cannot support the decision: after it, or too old."""
    if when is None:
        return None
    decided = spec.decision.date
    if when > decided:
        return f"{what} {when.isoformat()}, after the decision date {decided.isoformat()}"
    age = (decided - when).days
    if age > spec.fit.max_age_days:
        return (
            f"{what} {when.isoformat()}, {age} days before the decision "
            f"(fit.max_age_days: {spec.fit.max_age_days})"
        )
    return None


def basis(observed: Conditions, declared: Conditions) -> str:
    """Where a piece of evidence's identity comes from: observed, declared, mixed or unknown."""
    sources = set()
    for name in IDENTITY:
        if getattr(observed, name) is not None:
            sources.add("observed")
        elif getattr(declared, name) is not None:
            sources.add("declared")
    if not sources:
        return "unknown"
    return sources.pop() if len(sources) == 1 else "mixed"


def _differences(row: ComparabilityRow, fields: Sequence[str]) -> list[str]:
    return [d.detail for d in row.differences if d.field in fields]


def _load_reason(spec: PackSpec, run: RunEvidence) -> str | None:
    point = run.point
    if spec.traffic.pattern != "interactive":
        return None
    if point.load == "offline":
        return (
            "an offline (throughput) run: every request at once, no latency under a stated "
            "load, so it never sizes interactive traffic"
        )
    if point.load == "open_loop" and point.offered_rate_rps is None and point.concurrency is None:
        return (
            "an open-loop run with no finite request rate and no concurrency limit is a "
            "throughput run: it never sizes interactive traffic"
        )
    if point.load == "closed_loop" and point.concurrency is None:
        return "a closed-loop run that states no concurrency: its load is unknown"
    return None


def _layout_reasons(candidate: Candidate, run: RunEvidence) -> tuple[list[str], int]:
    """Why the run's replica layout is not the candidate's, and the replicas it served."""
    layout = run.layout
    wanted = candidate.hardware.accelerators_per_replica
    replicas, where = replicas_of(layout)
    per = per_replica_accelerators(layout)
    declared = f" (declared: {', '.join(layout.sources)})" if layout.sources else ""
    reasons = []
    if per is None and layout.accelerators is not None and layout.accelerators % replicas == 0:
        per = layout.accelerators // replicas
    if per is not None and per != wanted:
        shape = ", ".join(
            f"{name} {value}"
            for name, value in (("tensor-parallel", layout.tensor), ("pipeline", layout.pipeline))
            if value is not None
        )
        reasons.append(
            f"measured replicas of {per} accelerator(s)"
            + (f" ({shape})" if shape else f" ({layout.accelerators} accelerators / {replicas})")
            + f"{declared}; the candidate runs replicas of {wanted}"
        )
    if (
        layout.accelerators is not None
        and per is not None
        and layout.accelerators != replicas * per
    ):
        reasons.append(
            f"{layout.accelerators} accelerators in all do not make {replicas} replica(s) "
            f"({where}) of {per}{declared}"
        )
    return reasons, replicas


def judge_run(
    spec: PackSpec,
    candidate: Candidate,
    run: RunEvidence,
    row: ComparabilityRow,
    shared: Mapping[str, Sequence[str]],
) -> EvidenceFit:
    """Whether one run can size this candidate, and why not."""
    reasons = []
    if (load := _load_reason(spec, run)) is not None:
        reasons.append(load)
    reasons += _differences(row, _RUN_FIELDS)
    layout, replicas = _layout_reasons(candidate, run)
    reasons += layout
    when = parse_when(run.timestamp)
    if (late := time_reason("measured", when, spec)) is not None:
        reasons.append(late)
    reasons += _shared_reason(candidate, [run.file.sha256, *(f.sha256 for f in run.also)], shared)
    notes = _notes(row, when) + _hardware_notes(run)
    method_reasons, method_notes = judge_method(spec, run.method)
    reasons += method_reasons
    notes += method_notes
    return EvidenceFit(
        subject=run.id,
        kind="run",
        candidate=candidate.id,
        fits=not reasons,
        reasons=tuple(reasons),
        notes=tuple(notes),
        replicas=replicas,
        basis=basis(run.observed, run.declared),  # type: ignore[arg-type]
        figures=run.figures,
    )


def _hardware_notes(run: RunEvidence) -> list[str]:
    """How the run's accelerator was compared, where its name is not in the table."""
    name = run.observed.hardware or run.declared.hardware
    found = accelerators.note(name) if name else None
    return [found] if found else []


def _dataset_reason(spec: PackSpec, scores: ScoreEvidence) -> str | None:
    name, _, digest = scores.dataset
    wanted = spec.dataset
    if digest and wanted.digest and digest != wanted.digest:
        return (
            f"scored on dataset digest {digest[:12]}..., the spec's {wanted.name} is "
            f"{wanted.digest[:12]}..."
        )
    if name and _dataset_key(name) != _dataset_key(wanted.name):
        return f"scored on dataset {name!r}, the spec's is {wanted.name!r}"
    return None


def _dataset_key(name: str) -> str:
    """A dataset name without case, punctuation or a parenthesised remark ("(sample)")."""
    return re.sub(r"[^a-z0-9]+", "", re.sub(r"\([^)]*\)", "", name.lower()))


def judge_scores(
    spec: PackSpec,
    candidate: Candidate,
    scores: ScoreEvidence,
    row: ComparabilityRow,
    shared: Mapping[str, Sequence[str]],
) -> EvidenceFit:
    """Whether one score set can judge this candidate's quality bar, and why not."""
    reasons = []
    metric = spec.scoring.metric
    if scores.metric is None or scores.metric.strip().lower() != metric.strip().lower():
        reasons.append(f"scored as {scores.metric or 'an unnamed metric'}; the bar is on {metric}")
    if scores.direction is not None and scores.direction != spec.scoring.direction:
        reasons.append(
            f"the file says {scores.metric} is {scores.direction.replace('_', ' ')}; the spec "
            f"says {spec.scoring.direction.replace('_', ' ')}"
        )
    if (dataset := _dataset_reason(spec, scores)) is not None:
        reasons.append(dataset)
    reasons += dataset_reasons(spec, scores)
    unpinned, not_recorded = settings_reasons(spec, scores)
    reasons += unpinned
    reasons += _differences(row, _SCORE_FIELDS)
    when = parse_when(scores.timestamp)
    if (late := time_reason("scored", when, spec)) is not None:
        reasons.append(late)
    reasons += _shared_reason(candidate, [scores.file.sha256], shared)
    return EvidenceFit(
        subject=scores.id,
        kind="scores",
        candidate=candidate.id,
        fits=not reasons,
        reasons=tuple(reasons),
        notes=(*_notes(row, when, _SCORE_FIELDS), *not_recorded),
        basis=basis(scores.observed, scores.declared),  # type: ignore[arg-type]
    )


def _shared_reason(
    candidate: Candidate, digests: Sequence[str], shared: Mapping[str, Sequence[str]]
) -> list[str]:
    others = sorted({c for d in digests for c in shared.get(d, ()) if c != candidate.id})
    if not others:
        return []
    return [
        f"the same bytes are cited as evidence of {', '.join(others)}: one file cannot "
        "describe two configurations"
    ]


def _notes(
    row: ComparabilityRow, when: dt.date | None, fields: Sequence[str] = _RUN_FIELDS
) -> list[str]:
    notes = []
    unknown = [name for name in row.unknown if name in fields]
    if unknown:
        notes.append(f"not stated by the file or the spec: {', '.join(unknown)}")
    if row.declared:
        notes.append(f"declared in the spec, not recorded: {', '.join(row.declared)}")
    if when is None:
        notes.append("the file records no date")
    return notes
