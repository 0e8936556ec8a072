"""MLPerf Training results cited beside a candidate: situational references.

Time to train matters when the same hardware will also fine-tune or pre-train. A training result
is read with the same five layers as an inference reference (its reference model and dataset,
its quality target, the system, the software stack) and shown in its own report section; it
never enters serving capacity or cost.
"""

from __future__ import annotations

from ..readers import accelerators
from ..spec.models import Candidate, PackSpec
from .evidence import CandidateEvidence
from .judgements import TrainingReference
from .models import Claim, EvidenceLink


def training_references(
    spec: PackSpec, candidate: Candidate, ev: CandidateEvidence
) -> list[TrainingReference]:
    """Each cited training result, with how it differs from the candidate."""
    out = []
    for item in ev.training:
        t = item.result
        reading = []
        if t.model and t.model.lower() != spec.envelope.model.name.lower():
            reading.append(
                f"trains the reference model {t.model}, not the envelope's "
                f"{spec.envelope.model.name}: a situational proxy"
            )
        other = (
            accelerators.difference(t.accelerator, candidate.hardware.accelerator)
            if t.accelerator
            else None
        )
        if other is not None:
            reading.append(
                f"measured on {t.accelerator}, the candidate runs {candidate.hardware.accelerator} "
                f"({other})"
            )
        target = None
        if t.quality_metric is not None:
            target = t.quality_metric + (
                f" {t.quality_target:g}" if t.quality_target is not None else ""
            )
        out.append(
            TrainingReference(
                candidate=candidate.id,
                key=t.key,
                benchmark=t.benchmark,
                model=t.model,
                dataset=t.dataset,
                quality_target=target,
                time_to_train_min=t.time_to_train_min,
                runs_used=sum(1 for r in t.runs if r.used),
                runs_total=len(t.runs) + len(t.dropped_runs),
                scaling_factor=t.scaling_factor,
                system=t.system_name or t.system,
                accelerator=t.accelerator,
                accelerators_total=t.accelerators_total,
                stack=t.framework,
                reading=tuple(reading),
            )
        )
    return out


def training_claims(ev: CandidateEvidence, refs: list[TrainingReference]) -> list[Claim]:
    """Each time to train as an inherited claim, linked to its result files."""
    return [
        Claim(
            id=f"training.{ref.candidate}.{ref.benchmark}",
            kind="inherited",
            candidate=ref.candidate,
            statement=f"MLPerf Training time to train ({ref.key}; olympic mean of "
            f"{ref.runs_used} of {ref.runs_total} runs)",
            value=ref.time_to_train_min,
            unit="minutes",
            evidence=tuple(
                EvidenceLink(row=ref.key, file_sha256=f.sha256, pack_path=f.pack_path)
                for f in item.files[:1]
            ),
        )
        for item, ref in zip(ev.training, refs, strict=True)
    ]
