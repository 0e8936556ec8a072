"""Measured energy cited as evidence for a candidate: the points of its public references that
report energy (an ML.ENERGY leaderboard table, measured by the GPUs' own counters), each held to
the candidate it is cited for.

The team's own GPU telemetry (a DCGM exporter scrape, ``readers/formats/gpu_telemetry.py``; a
GenAI-Perf or AIPerf profile export's telemetry, ``profile_telemetry.py``) is judged the same
way; what telemetry
cannot record is taken from the candidate's ``evidence.declared`` (the GPU model where the file
names none, said as declared; the precision, which no counter records), and telemetry without
output tokens is a figure that does not fit, saying so.

A point fits when it ran on the candidate's accelerator (the same family, form factor, memory
and partition, ``readers/accelerators.py``), on a model of the envelope model's size and
precision, on the candidate's accelerators per replica. A file none of whose points fits is one
figure that does not fit, with why; the fitting points are listed each. A figure keeps its
method (``accelerator``: counters; never summed with a wall or rated figure) and never enters
the cost: the cost says which energy it used (``BasisCost.energy_method``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..readers import accelerators
from ..readers.formats.gpu_telemetry import DCGM_FORMAT
from ..readers.formats.profile_telemetry import AIPERF_TELEMETRY_ID
from ..spec.models import Candidate, PackSpec
from .evidence import PublicEvidence
from .judgements import EnergyFigure
from .models import Claim, EvidenceLink
from .reference_fit import MODEL_SIZE_TOLERANCE, model_size_b

JOULES_PER_KWH = 3.6e6
SHOWN_PER_FILE = 4
"""Fitting points listed per file at most (the lowest energy per token first)."""
TELEMETRY_FORMATS = (DCGM_FORMAT.id, AIPERF_TELEMETRY_ID)
"""The formats of the team's own GPU telemetry: declared conditions fill what they cannot
record."""


def _declared(candidate: Candidate, item: PublicEvidence) -> tuple[str | None, str | None]:
    """(accelerator, precision) of a telemetry point, the candidate's declared ones standing in
    where the file cannot say; a point of another source keeps its own."""
    point = item.point
    if point.format_id not in TELEMETRY_FORMATS:
        return point.accelerator, point.precision
    declared = candidate.evidence.declared
    return (
        point.accelerator or (declared.hardware if declared else None),
        point.precision or (declared.precision if declared else None),
    )


def _reasons(spec: PackSpec, candidate: Candidate, item: PublicEvidence) -> list[tuple[int, str]]:
    """Why the point is not of the candidate, each with its weight (hardware 8, model 4,
    precision 2, layout 1: the nearest point is the one of the lightest departures)."""
    point = item.point
    out = []
    if point.figures.energy_per_output_token_joules is None:
        out.append((16, "it counts no output tokens: its energy is not per token"))
    wanted = candidate.hardware.accelerator
    accelerator, precision = _declared(candidate, item)
    other = (
        accelerators.difference(accelerator, wanted) if accelerator else "it names no accelerator"
    )
    if other is not None:
        out.append((8, f"ran on {accelerator or 'an unnamed accelerator'} ({other})"))
    ours, theirs = model_size_b(spec.envelope.model.name), model_size_b(point.model_name)
    if ours is None or theirs is None:
        out.append((4, f"the size of {point.model_name!r} or of the envelope model is not stated"))
    elif abs(ours - theirs) > MODEL_SIZE_TOLERANCE * max(ours, theirs):
        out.append(
            (4, f"{point.model_name} has {theirs:g}B parameters, the envelope model {ours:g}B")
        )
    if (precision or "").lower() not in _precisions(spec.envelope.precision):
        out.append((2, f"precision {precision}, the envelope's {spec.envelope.precision}"))
    per_replica = candidate.hardware.accelerators_per_replica
    if point.accelerator_count != per_replica:
        out.append((1, f"{point.accelerator_count} accelerators, a replica uses {per_replica}"))
    return out


def _precisions(precision: str) -> set[str]:
    low = precision.lower()
    same = {"bf16": {"bf16", "bfloat16"}, "bfloat16": {"bf16", "bfloat16"}}
    return same.get(low, {low})


def _figure(
    candidate: Candidate, item: PublicEvidence, reasons: Sequence[str], subject: str
) -> EnergyFigure:
    point, figures = item.point, item.point.figures
    joules = figures.energy_per_output_token_joules
    watts = figures.average_power_watts
    accelerator, _ = _declared(candidate, item)
    declared = " (GPU model declared)" if accelerator and not point.accelerator else ""
    return EnergyFigure(
        candidate=candidate.id,
        subject=subject,
        source=f"{point.publisher or point.source_tool}: {point.label or point.point_id}{declared}",
        method=figures.energy_method or "estimate",
        scope=figures.energy_scope or "not stated",
        fits=not reasons,
        reasons=tuple(reasons),
        accelerator=accelerator,
        accelerators=point.accelerator_count,
        model=point.model_name,
        concurrency=point.load.concurrency,
        joules_per_output_token=joules,
        kwh_per_million_output_tokens=joules * 1e6 / JOULES_PER_KWH if joules else None,
        watts_per_accelerator=watts / point.accelerator_count
        if watts and point.accelerator_count
        else None,
        warnings=point.warnings,
    )


def measured_energy(
    spec: PackSpec, candidate: Candidate, public: Sequence[PublicEvidence]
) -> list[EnergyFigure]:
    """Each cited file's fitting energy points (up to SHOWN_PER_FILE, least energy first), or
    one figure saying why none of its points fits."""
    by_file: dict[str, list[PublicEvidence]] = {}
    for item in public:
        figures = item.point.figures
        if figures.energy_per_output_token_joules is not None or (
            figures.energy_method is not None and figures.average_power_watts is not None
        ):
            by_file.setdefault(item.file.spec_path, []).append(item)
    out: list[EnergyFigure] = []
    for path, items in by_file.items():
        judged = [(item, _reasons(spec, candidate, item)) for item in items]
        fitting = [item for item, reasons in judged if not reasons]
        if fitting:
            fitting.sort(key=lambda i: i.point.figures.energy_per_output_token_joules or 0.0)
            out += [
                _figure(candidate, item, (), f"{path}#{item.point.index}")
                for item in fitting[:SHOWN_PER_FILE]
            ]
            continue
        nearest = min(judged, key=lambda pair: sum(weight for weight, _ in pair[1]))
        seen = sorted({_declared(candidate, i)[0] or "?" for i in items})
        reasons = [
            f"none of its {len(items)} energy points fits {candidate.id}: the nearest "
            + f"({nearest[0].point.label}): "
            + "; ".join(text for _, text in nearest[1]),
            f"the file's accelerators: {', '.join(seen)}",
        ]
        out.append(_figure(candidate, nearest[0], reasons, f"{path}#{nearest[0].point.index}"))
    return out


def measured_energy_claims(
    figures: Sequence[EnergyFigure], public: Sequence[PublicEvidence]
) -> list[Claim]:
    """Each fitting measured energy figure as an inherited claim, linked to its file, its
    method in the statement."""
    files = {item.file.spec_path: item.file for item in public}
    out = []
    for f in figures:
        file = files.get(f.subject.partition("#")[0])
        if not f.fits or f.kwh_per_million_output_tokens is None or file is None:
            continue
        out.append(
            Claim(
                id=f"energy.{f.candidate}.measured.{f.subject}",
                kind="inherited",
                candidate=f.candidate,
                statement=f"energy per 1M output tokens at its own load, method {f.method} "
                f"({f.scope}); {f.source}",
                value=f.kwh_per_million_output_tokens,
                unit="kWh per 1M output tokens",
                evidence=(
                    EvidenceLink(row=f.subject, file_sha256=file.sha256, pack_path=file.pack_path),
                ),
            )
        )
    return out
