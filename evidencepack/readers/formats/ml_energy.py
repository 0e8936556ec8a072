"""The ML.ENERGY Leaderboard's task tables (``public/data/tasks/<task>.json``).

One JSON object ``{"task", "task_display_name", "configurations": [...]}``; each configuration
is one benchmark run of one model on ``num_gpus`` GPUs of ``gpu_model`` (H100, B200) at a
maximum batch size (``max_num_seqs``), with its average GPU power (``avg_power_watts``), energy
per output token (``energy_per_token_joules``), output throughput and inter-token latencies (ms).

Energy is measured by the GPUs' own counters (the dataset card: "GPU-only average power"): the
accelerators only, not the host, network or cooling, so it is lower than a wall-power figure of
the same work. Every point says so (``energy_method`` ``accelerator``). The table names no
serving engine, version or date; the leaderboard's method runs vLLM, said on every point.
"""

from __future__ import annotations

from typing import Any

from ...core.provenance import FileRecord
from .._json import Node, text_or_none
from ..base import Format, ParsedInput, Probe, item_id
from ..models import ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references, stats

SCOPE = "the GPUs only (their own counters), average over the run"
"""What an ML.ENERGY energy figure covers."""
_GPUS = {"H100": "NVIDIA H100 80GB HBM3", "B200": "NVIDIA B200"}
"""The leaderboard's GPU names -> the device names its runs used (nvidia-smi's)."""


def detect(probe: Probe) -> bool:
    """A task table: ``configurations`` whose rows carry ``gpu_model`` and
    ``energy_per_token_joules``."""
    if probe.container != "json" or not isinstance(probe.first, dict):
        return False
    rows = probe.first.get("configurations")
    return (
        isinstance(rows, list)
        and bool(rows)
        and all(
            isinstance(r, dict) and "gpu_model" in r and "energy_per_token_joules" in r
            for r in rows
        )
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One measured-elsewhere reference point per configuration."""
    root = Node(probe.first, probe.name)
    task = text_or_none(probe.first.get("task")) or "unknown task"
    points = [
        _point(row, index, record, task) for index, row in enumerate(root.items("configurations"))
    ]
    file_warnings = [
        "ML.ENERGY task tables name no serving engine version or date: state the leaderboard "
        "snapshot where you cite it"
    ]
    return parsed_references(FORMAT.id, record, "ml-energy", None, points, file_warnings)


def _point(row: Node, index: int, record: FileRecord, task: str) -> ReferencePoint:
    value: dict[str, Any] = row.value
    model = row.str_("model_id", required=True) or ""
    gpu = row.str_("gpu_model", required=True) or ""
    gpus = row.int_("num_gpus")
    throughput = row.num("output_throughput_tokens_per_sec")
    parallelism: dict[str, int | str | bool] = {
        k: v
        for k in ("tensor_parallel", "expert_parallel", "data_parallel")
        if isinstance(v := value.get(k), int)
    }
    return ReferencePoint(
        point_id=item_id(record, index),
        index=index,
        format_id=FORMAT.id,
        source_tool="ml-energy",
        provenance="measured_elsewhere",
        publisher="ML.ENERGY",
        label=f"{gpu} x{gpus} {model} {task} max_num_seqs {row.int_('max_num_seqs')}",
        accelerator=_GPUS.get(gpu, gpu),
        accelerator_count=gpus,
        model_name=model,
        precision=text_or_none(value.get("weight_precision")),
        runtime_name="vllm",
        parallelism=parallelism,
        load=ReferenceLoad(
            kind="fixed_concurrency",
            concurrency=row.int_("max_num_seqs"),
            output_tokens=row.num("avg_output_len"),
            workload=task,
            from_method=("runtime_name",),
        ),
        figures=ReferenceFigures(
            output_throughput=throughput,
            output_throughput_per_accelerator=throughput / gpus if throughput and gpus else None,
            itl=stats(
                "itl",
                {
                    "p50": row.num("median_itl_ms"),
                    "p90": row.num("p90_itl_ms"),
                    "p95": row.num("p95_itl_ms"),
                    "p99": row.num("p99_itl_ms"),
                },
                scale=1.0,
            ),
            energy_per_output_token_joules=row.num("energy_per_token_joules"),
            average_power_watts=row.num("avg_power_watts"),
            energy_method="accelerator",
            energy_scope=SCOPE,
        ),
        warnings=("the serving engine (vLLM) is known from the leaderboard's method only",),
    )


FORMAT = Format(
    id="ml-energy-task",
    kind="references",
    tool="ml-energy",
    detect=detect,
    parse=parse,
)
