"""An MLPerf reference against the candidate it is cited for, and the candidate's runs against it.

A reference supports a candidate only when it is of the same system (the candidate's accelerator:
family, form factor, memory, partition, ``readers/accelerators.py``), of a model of the envelope
model's size, and for sale at the decision (``available``, or ``preview`` with an availability
date on or before it; never ``rdi``). Each departure is a visible finding of C3; an Open-division
result never passes C3 as production-like. Only a supporting reference's MLPerf Power figures
give the candidate's energy. C4 holds every fitting run to the same system's cited results: more
than ``fit.max_over_reference`` times their output tokens/s per accelerator is not plausible.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..readers import accelerators
from ..spec.models import Candidate, PackSpec
from .evidence import ReferenceEvidence
from .figures import Capacity
from .models import Status

Availability = Literal["available", "preview", "rdi"]

MODEL_SIZE_TOLERANCE = 0.10
"""Two models are of one size when their parameter counts lie within 10% of each other."""
_SIZES_B = {"gptj": 6.0, "mixtral-8x7b": 46.7, "deepseek-r1": 671.0, "gpt-oss-120b": 117.0}
"""Parameter counts (billions) of MLPerf models whose name does not say it plainly."""
_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*b(?![a-z0-9])")


def availability_kind(text: str | None) -> Availability | None:
    """A system's publication status as one of available, preview, rdi; None when not stated or
    not one of them."""
    if not text:
        return None
    low = text.strip().lower()
    if "preview" in low:
        return "preview"
    if low.startswith("rdi") or "research" in low or "internal" in low:
        return "rdi"
    if low.startswith("available"):
        return "available"
    return None


def model_size_b(name: str | None) -> float | None:
    """A model's parameter count in billions from its name ("llama2-70b", "Llama-3.1-8B"), or
    from the table of MLPerf models that do not write it; None when neither says."""
    if not name:
        return None
    low = name.strip().lower().replace("_", ".")
    for known, size in _SIZES_B.items():
        if known in low:
            return size
    found = _SIZE.search(low)
    return float(found[1]) if found else None


@dataclass(frozen=True)
class ReferenceFit:
    """What one MLPerf reference is, for one candidate."""

    key: str
    findings: tuple[tuple[Status, str], ...]
    """Each departure (WARN) or what was not compared (PASS), as C3 reports it."""
    same_system: bool
    """Measured on the candidate's accelerator."""
    same_model: bool | None
    """Of a model of the envelope model's size; None when either size is unknown."""
    for_sale: bool
    """Available, or a preview due by the decision date."""
    open_division: bool

    @property
    def supports(self) -> bool:
        """Whether it may stand beside the candidate as its reference (C3's PASS, energy)."""
        return self.same_system and self.same_model is not False and self.for_sale


def judge_reference(spec: PackSpec, candidate: Candidate, ref: ReferenceEvidence) -> ReferenceFit:
    """The findings of one reference against the candidate it is cited for."""
    findings: list[tuple[Status, str]] = []
    open_division = (ref.division or "").lower() == "open"
    if open_division:
        findings.append(
            (
                "WARN",
                f"{ref.key} is an Open-division result: the submitter may change the model, "
                "its quantisation or the method, so it never counts as production-like",
            )
        )
    for_sale = _availability(spec, ref, findings)
    wanted = candidate.hardware.accelerator
    other = (
        accelerators.difference(ref.accelerator, wanted)
        if ref.accelerator not in ("", "?")
        else "the system description names no accelerator"
    )
    if other is not None:
        findings.append(
            (
                "WARN",
                f"{ref.key} ran on {ref.accelerator}, the candidate runs {wanted} ({other}): "
                "not this candidate's reference, it supports nothing of it",
            )
        )
    same_model = _same_model(spec, ref, findings)
    return ReferenceFit(
        ref.key, tuple(findings), other is None, same_model, for_sale, open_division
    )


def _availability(
    spec: PackSpec, ref: ReferenceEvidence, findings: list[tuple[Status, str]]
) -> bool:
    kind = availability_kind(ref.availability)
    if kind == "available":
        return True
    if kind == "rdi":
        findings.append(
            (
                "WARN",
                f"{ref.key}: the system is not for sale (status {ref.availability!r}: research, "
                "development or internal); it supports no candidate",
            )
        )
        return False
    if kind == "preview":
        due = _date(ref.available_by)
        if due is not None and due <= spec.decision.date:
            findings.append(
                (
                    "WARN",
                    f"{ref.key}: a preview system, to be available by {due.isoformat()} (on or "
                    f"before the decision date {spec.decision.date.isoformat()}): confirm it "
                    "ships",
                )
            )
            return True
        when = (
            f"to be available by {due.isoformat()}, after the decision date"
            if due is not None
            else f"no availability date stated{_raw_date(ref.available_by)} (MLPerf asks a "
            "preview to ship within 180 days of publication)"
        )
        findings.append(
            (
                "WARN",
                f"{ref.key}: a preview system, {when}: not for sale at the decision, it "
                "supports no candidate",
            )
        )
        return False
    if ref.division is None:
        return True  # a LoadGen run outside a results tree: no system description to say
    findings.append(
        (
            "WARN",
            f"{ref.key}: the system description states no availability "
            f"(status {ref.availability!r}): not known to be for sale, it supports no candidate",
        )
    )
    return False


def _date(text: str | None) -> dt.date | None:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def _raw_date(text: str | None) -> str:
    return f" ({text!r} is not an ISO 8601 date)" if text else ""


def _same_model(
    spec: PackSpec, ref: ReferenceEvidence, findings: list[tuple[Status, str]]
) -> bool | None:
    model = spec.envelope.model.name
    theirs = model_size_b(ref.model_family or ref.benchmark)
    ours = model_size_b(model)
    if theirs is None or ours is None:
        unread = ref.benchmark if theirs is None else model
        findings.append(
            (
                "PASS",
                f"{ref.key}: no parameter count in {unread!r}, so the benchmark's model is "
                "not compared with the envelope's",
            )
        )
        return None
    if abs(theirs - ours) <= MODEL_SIZE_TOLERANCE * max(theirs, ours):
        return True
    findings.append(
        (
            "WARN",
            f"{ref.key} measures {ref.benchmark} ({theirs:g}B parameters), the envelope model "
            f"{model} has {ours:g}B: not this candidate's reference, it supports nothing of it",
        )
    )
    return False


def plausibility(
    spec: PackSpec,
    candidate: Candidate,
    references: Sequence[ReferenceEvidence],
    capacity: Capacity,
) -> tuple[list[str], list[str]]:
    """C4's reading of the candidate's runs against the same system's cited MLPerf results:
    (runs beyond ``fit.max_over_reference`` times a result, with both figures; the ratio at X*
    where it is within it). A reference of another system or model is compared with nothing."""
    limit = spec.fit.max_over_reference
    per = candidate.hardware.accelerators_per_replica
    beyond: list[str] = []
    within: list[str] = []
    for ref in references:
        fit = judge_reference(spec, candidate, ref)
        value = _per_accelerator(ref)
        if not fit.same_system or fit.same_model is False or not value:
            continue
        over = False
        for point in capacity.load_points:
            measured = point.output_tokens_per_s / per
            if measured > value * limit:
                over = True
                beyond.append(
                    f"{point.run}: {measured:.1f} output tok/s per accelerator is "
                    f"{measured / value:.2f}x the {value:.1f} of {ref.key}, the same system's "
                    f"MLPerf {ref.scenario} result; more than fit.max_over_reference "
                    f"({limit:g}x) is not plausible unless a waiver says why"
                )
        at_op = capacity.output_tokens_per_s_at_op
        if not over and at_op:
            measured = at_op / per
            within.append(
                f"{ref.key}: measured {measured:.1f} output tok/s per accelerator at X* is "
                f"{measured / value:.2f}x the reference's {value:.1f} (within "
                f"fit.max_over_reference, {limit:g}x)"
            )
    return beyond, within


def _per_accelerator(ref: ReferenceEvidence) -> float | None:
    if ref.tokens_per_s is None or not ref.accelerators_total:
        return None
    return ref.tokens_per_s / ref.accelerators_total
