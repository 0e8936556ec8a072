"""How a run laid the model out over accelerators: parallelism and replicas.

Files record it in their settings under each tool's own names (trtllm-bench ``tp_size``, vLLM
``tensor_parallel_size``, SGLang ``tp_size``/``dp_size``, ...); a team may declare it where a file
does not. A replica is ``tensor x pipeline`` accelerators; expert parallelism spreads a mixture
of experts over those same accelerators and adds none; ``data`` replicas run side by side.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..readers.models import Identity
from ..spec.fit import DeclaredConditions
from .evidence import Layout

_NAMES: Mapping[str, tuple[str, ...]] = {
    "tensor": ("tp_size", "tensor_parallel_size", "tensor_parallel", "tp"),
    "pipeline": ("pp_size", "pipeline_parallel_size", "pipeline_parallel", "pp"),
    "expert": ("ep_size", "expert_parallel_size", "expert_parallel", "ep", "moe_ep_size"),
    "data": ("dp_size", "data_parallel_size", "data_parallel", "dp"),
    "accelerators": ("world_size", "num_gpus", "gpu_count", "num_accelerators"),
}


def _setting(settings: Mapping[str, object], names: tuple[str, ...]) -> int | None:
    """The first of ``names`` the settings hold as a positive whole number."""
    for name in names:
        value = settings.get(name)
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and value > 0:
            return value
        if isinstance(value, float) and value.is_integer() and value > 0:
            return int(value)
        if isinstance(value, str) and value.isascii() and value.isdigit() and int(value) > 0:
            return int(value)
    return None


def layout_of(identity: Identity, declared: DeclaredConditions | None) -> Layout:
    """A run's layout: what its file records wins; the spec's declared values fill the rest."""
    values: dict[str, int | None] = {
        field: _setting(identity.settings, names) for field, names in _NAMES.items()
    }
    sources = []
    if declared is not None:
        stated = {
            "tensor": declared.tensor_parallel,
            "pipeline": declared.pipeline_parallel,
            "expert": declared.expert_parallel,
            "data": declared.data_parallel,
            "accelerators": declared.accelerators,
        }
        for field, value in stated.items():
            if values[field] is None and value is not None:
                values[field] = value
                sources.append(field)
    return Layout(
        tensor=values["tensor"],
        pipeline=values["pipeline"],
        expert=values["expert"],
        data=values["data"],
        accelerators=values["accelerators"],
        replicas_declared=declared.replicas if declared is not None else None,
        sources=tuple(sources),
    )


def per_replica_accelerators(layout: Layout) -> int | None:
    """Accelerators one replica of the run used (tensor x pipeline), if the run says."""
    if layout.tensor is None and layout.pipeline is None:
        return None
    return (layout.tensor or 1) * (layout.pipeline or 1)


def replicas_of(layout: Layout) -> tuple[int, str]:
    """How many replicas the run served side by side, and where that comes from."""
    if layout.data is not None:
        return layout.data, "data-parallel size"
    per = per_replica_accelerators(layout)
    if layout.accelerators is not None and per and layout.accelerators % per == 0:
        if layout.replicas_declared not in (None, 1):
            return layout.replicas_declared or 1, "declared replicas"
        return layout.accelerators // per, f"{layout.accelerators} accelerators / {per} per replica"
    if layout.replicas_declared is not None:
        return layout.replicas_declared, "declared replicas"
    return 1, "one replica (nothing says otherwise)"
