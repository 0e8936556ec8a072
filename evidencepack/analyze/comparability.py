"""The comparability matrix: each run and score set against the candidate's frozen envelope.

A candidate's envelope is the spec's (model identity, concurrency, token lengths) with the
candidate's own stack (runtime, version, precision) and hardware. A value the file records wins
over one the spec declares; a field nobody states is listed as unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from ..readers import accelerators
from ..readers.normalise import normalise_precision, normalise_runtime, versions_match
from ..spec.models import Candidate, PackSpec
from .evidence import Conditions
from .models import ComparabilityRow, FieldDifference

HARD_FIELDS = ("model_name", "model_digest", "precision", "runtime", "runtime_version")
"""A difference here means the evidence is for another model or stack: C5 fails."""
TOKEN_TOLERANCE = 0.25
"""Mean token lengths within +-25% of the traffic spec count as like-for-like (the default of
the spec's ``fit.token_tolerance``)."""


def envelope_for(spec: PackSpec, candidate: Candidate) -> Conditions:
    """What a candidate's runs and scores are held to: the spec's model and traffic, its stack."""
    api = candidate.api
    return Conditions(
        # A hosted API serves its own model: the runs and score sets must be of it.
        model_name=api.model if api is not None else spec.envelope.model.name,
        model_digest=None if api is not None else spec.envelope.model.digest,
        precision=candidate.stack.precision,
        runtime=candidate.stack.runtime,
        runtime_version=candidate.stack.version,
        concurrency=spec.envelope.max_concurrency,
        hardware=candidate.hardware.accelerator,
        input_tokens_mean=spec.traffic.input_tokens.mean,
        output_tokens_mean=spec.traffic.output_tokens.mean,
    )


Value = str | int | float


def _differs(name: str, envelope: Value, value: Value, tolerance: float) -> str | None:
    """Why ``value`` differs from the envelope's, or None when it matches."""
    if name == "model_name":
        if str(value).strip().lower() != str(envelope).strip().lower():
            return f"model {value!r}, envelope {envelope!r}"
    elif name == "model_digest":
        if value != envelope:
            return f"digest {str(value)[:12]}..., envelope {str(envelope)[:12]}..."
    elif name == "precision":
        if normalise_precision(str(value)) != normalise_precision(str(envelope)):
            return f"precision {value}, envelope {envelope}"
    elif name == "runtime":
        if normalise_runtime(str(value)) != normalise_runtime(str(envelope)):
            return f"runtime {value}, envelope {envelope}"
    elif name == "runtime_version":
        if not versions_match(str(value), str(envelope)):
            return f"version {value}, envelope {envelope}"
    elif name == "concurrency":
        if float(value) > float(envelope):
            return f"concurrency {value} exceeds the frozen maximum {envelope}"
    elif name == "hardware":
        if (why := accelerators.difference(str(value), str(envelope))) is not None:
            return f"hardware {value!r}, candidate {envelope!r}: {why}"
    elif name in ("input_tokens_mean", "output_tokens_mean"):
        change = (float(value) - float(envelope)) / float(envelope)
        if abs(change) > tolerance:
            return (
                f"mean {name.split('_')[0]} tokens {float(value):.0f} vs traffic "
                f"{float(envelope):.0f} ({change:+.1%}, tolerance +-{tolerance:.0%})"
            )
    return None


def _fields(observed: Conditions, declared: Conditions) -> Iterator[tuple[str, Value, str]]:
    for name in Conditions.__dataclass_fields__:
        value = getattr(observed, name)
        if value is not None:
            yield name, value, "file"
            continue
        value = getattr(declared, name)
        if value is not None:
            yield name, value, "declared"


def compare(
    subject: str,
    kind: Literal["run", "scores", "mlperf", "reference"],
    candidate: str,
    envelope: Conditions,
    observed: Conditions,
    declared: Conditions,
    token_tolerance: float = TOKEN_TOLERANCE,
) -> ComparabilityRow:
    """One row of the matrix: the fields that differ (and by how much), unknown and declared."""
    differences = []
    stated: dict[str, str] = {}
    for name, value, source in _fields(observed, declared):
        stated[name] = source
        reference = getattr(envelope, name)
        if reference is None:
            continue
        why = _differs(name, reference, value, token_tolerance)
        if why:
            differences.append(
                FieldDifference(
                    field=name,
                    envelope=str(reference),
                    observed=str(value),
                    detail=why + (" (declared in the spec)" if source == "declared" else ""),
                )
            )
    unknown = tuple(
        n
        for n in Conditions.__dataclass_fields__
        if n not in stated and getattr(envelope, n) is not None
    )
    return ComparabilityRow(
        subject=subject,
        kind=kind,
        candidate=candidate,
        like_for_like=not differences and not any(f in unknown for f in HARD_FIELDS),
        differences=tuple(differences),
        unknown=unknown,
        declared=tuple(n for n, s in stated.items() if s == "declared"),
    )


def compare_reference(
    subject: str,
    kind: Literal["mlperf", "reference"],
    candidate: str,
    envelope: Conditions,
    stated: Conditions,
    fields: tuple[str, ...],
) -> ComparabilityRow:
    """A reference's row (an MLPerf result, a public result): only ``fields`` of the envelope are
    compared, with what the reference states (nothing is declared for it)."""
    held = Conditions(**{name: getattr(envelope, name) for name in fields})
    return compare(subject, kind, candidate, held, stated, Conditions())
