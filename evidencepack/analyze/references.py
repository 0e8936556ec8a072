"""MLPerf references as the analysis sees them: a cited result (taken by the intake,
``intake/mlperf_refs.py``) turned into a ``ReferenceEvidence`` (``reference_view``).
"""

from __future__ import annotations

from ..intake.records import InputFile
from ..mlperf.energy import energy_figures
from ..mlperf.models import MlperfResult
from ..readers.normalise import serving_rank
from .evidence import ReferenceEvidence


def reference_view(result: MlperfResult, files: list[InputFile]) -> ReferenceEvidence:
    """An MLPerf result as the analysis sees it; the serving runtime picked from its stack."""
    runtimes = sorted(result.runtime, key=lambda c: serving_rank(c.name))
    primary = runtimes[0] if runtimes else None
    return ReferenceEvidence(
        key=result.key,
        files=tuple(files),
        round=result.round,
        benchmark=result.benchmark or result.benchmark_dir,
        scenario=result.scenario,
        validity=result.validity,
        invalid_reasons=result.invalid_reasons,
        failed_rules=tuple(
            f"{c.rule}: expected {c.expected}, got {c.actual}"
            for c in result.checks
            if c.status == "fail"
        ),
        system=result.system_name or result.system or "?",
        accelerator=result.accelerator or "?",
        accelerators_total=result.accelerators_total,
        headline_value=result.headline_value,
        headline_unit=result.headline_unit,
        tokens_per_s=result.tokens_per_s,
        runtime=primary.name if primary else None,
        runtime_version=primary.version if primary else None,
        precision=result.precision,
        stack_raw=result.stack_raw,
        accuracy=dict(result.accuracy),
        ttft_limit_ms=result.ttft_limit_ms,
        tpot_limit_ms=result.tpot_limit_ms,
        energy=energy_figures(result),
        design_power_watts=result.design_power_watts,
        division=result.division,
        availability=result.availability,
        available_by=result.available_by,
        model_family=result.model_family,
    )
