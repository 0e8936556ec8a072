"""InferenceX (SemiAnalysis, formerly InferenceMAX) result rows: ``agg_*.json``.

One JSON object per run (``agg_<...>.json``), or a JSON list of them (``collect-results``'
``agg_bmk.json``). Detected by ``hw`` + ``tput_per_gpu`` + the load key (``conc``, or ``users``
for the agentic multi-turn scenarios). Times are seconds; throughputs tokens/s, per GPU
(``tput_per_gpu`` = total / GPUs); ``*_intvty`` is interactivity, output tokens/s per user.

Two layouts: fixed sequence length (``isl``/``osl``, ``conc``), which InferenceX runs with
``vllm bench serve``'s random dataset and ``--ignore-eos`` at a fixed concurrency: synthetic
prompts and forced output lengths, said on every point (the file does not say it; the method
does); and agentic (``scenario_type``, ``users``, ``ttlt``), trace replays whose prompt and
output lengths are measured. The rows name no publisher, date or version; the stack version
comes from the container ``image`` tag.
"""

from __future__ import annotations

from typing import Any

from ...core.provenance import FileRecord
from .._json import Node, text_or_none
from ..base import Format, ParsedInput, Probe, item_id
from ..models import LatencyMetric, LatencyStats, ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references, stack_of_image, stats

_STATS = {"mean": "mean", "p50": "median", "p90": "p90", "p95": "p95", "p99": "p99", "std": "std"}
_EXTRA = ("p75", "p99.9")
_SLOTS: tuple[tuple[LatencyMetric, str], ...] = (
    ("ttft", "ttft"),
    ("tpot", "tpot"),
    ("itl", "itl"),
    ("e2e", "e2el"),
    ("e2e", "ttlt"),  # agentic rows: time to last token, the request's end-to-end latency
)
_READ = {
    "hw", "conc", "users", "image", "model", "infmax_model_prefix", "framework", "precision",
    "spec_decoding", "disagg", "isl", "osl", "is_multinode", "tp", "ep", "dp_attention",
    "scenario_type", "offload_mode", "offloading", "num_requests_total",
    "num_requests_successful", "total_requests_completed", "input_tput_tps", "output_tput_tps",
    "total_tput_tps", "duration_seconds", "tput_per_gpu", "output_tput_per_gpu",
    "input_tput_per_gpu", "mean_input_tokens", "mean_output_tokens_actual", "num_prefill_gpu",
    "num_decode_gpu",
}  # fmt: skip
_PARALLELISM = (
    "tp", "ep", "dp_attention", "spec_decoding", "disagg", "is_multinode", "prefill_tp",
    "prefill_ep", "prefill_dp_attention", "prefill_num_workers", "decode_tp", "decode_ep",
    "decode_dp_attention", "decode_num_workers",
)  # fmt: skip
_METHOD = (
    "InferenceX runs fixed-sequence-length points at a fixed concurrency on random prompts "
    "with --ignore-eos (forced output lengths): not comparable with real traffic unless a "
    "report says so"
)


def _rows(doc: Any) -> list[Any]:
    return doc if isinstance(doc, list) else [doc]


def detect(probe: Probe) -> bool:
    """An InferenceX result row (or a list of them): ``hw``, ``tput_per_gpu`` and a load key."""
    if probe.container != "json":
        return False
    rows = _rows(probe.first)
    return bool(rows) and all(
        isinstance(r, dict) and "hw" in r and "tput_per_gpu" in r and ("conc" in r or "users" in r)
        for r in rows
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One measured-elsewhere reference point per row."""
    root = Node(probe.first, probe.name)
    rows = root.items() if isinstance(probe.first, list) else [root]
    points = [_point(row, index, record) for index, row in enumerate(rows)]
    file_warnings = [
        "InferenceX rows name no publisher, date or tool version: state the source's where "
        "you cite it"
    ]
    return parsed_references(FORMAT.id, record, "inferencex", None, points, file_warnings)


def _point(row: Node, index: int, record: FileRecord) -> ReferencePoint:
    value: dict[str, Any] = row.value
    model = row.str_("model")
    if not model:
        raise row.error("an InferenceX row without a model: not a result anyone can compare")
    hw = row.str_("hw", required=True)
    warnings: list[str] = []
    runtime, version, image_warnings = stack_of_image(text_or_none(value.get("image")))
    warnings += image_warnings
    framework = text_or_none(value.get("framework"))
    if framework and runtime and framework not in runtime:
        warnings.append(f"framework {framework!r} but image of {runtime!r}: framework kept")
    precision = text_or_none(value.get("precision"))
    if precision is None:
        warnings.append("the row states no precision")
    count = _gpus(row, warnings)
    unused = sorted(
        k for k in value if k not in _READ and k not in _PARALLELISM and not _latency_key(k)
    )
    if unused:
        warnings.append("field(s) this reader has no place for were dropped: " + ", ".join(unused))
    agentic = "scenario_type" in value or "users" in value
    load = _load(row, agentic)
    if not agentic:
        warnings.append(_METHOD)
    parallelism = {k: v for k in _PARALLELISM if isinstance(v := value.get(k), int | str | bool)}
    return ReferencePoint(
        point_id=item_id(record, index),
        index=index,
        format_id=FORMAT.id,
        source_tool="inferencex",
        provenance="measured_elsewhere",
        label=f"{hw} {model} {'agentic' if agentic else 'fixed-length'} "
        f"concurrency {load.concurrency}",
        accelerator=hw,
        accelerator_count=count,
        model_name=model,
        precision=precision,
        runtime_name=framework or runtime,
        runtime_version=version,
        image=text_or_none(value.get("image")),
        parallelism=parallelism,
        load=load,
        figures=_figures(row),
        warnings=tuple(warnings),
    )


def _latency_key(key: str) -> bool:
    stat, _, name = key.partition("_")
    return name in ("ttft", "tpot", "itl", "e2el", "ttlt", "intvty") and (
        stat in _STATS.values() or stat in _EXTRA
    )


def _gpus(row: Node, warnings: list[str]) -> int | None:
    """GPUs of the point: total throughput over throughput per GPU where both are stated, else
    the tensor-parallel size of a single-node aggregated run (said)."""
    total, per_gpu = row.num("total_tput_tps"), row.num("tput_per_gpu")
    if total and per_gpu:
        return max(1, round(total / per_gpu))
    prefill, decode = row.int_("num_prefill_gpu"), row.int_("num_decode_gpu")
    if prefill is not None and decode is not None:
        return prefill + decode or None  # a disaggregated or multi-node run states both
    if row.value.get("is_multinode") or row.value.get("disagg"):
        warnings.append("a multi-node or disaggregated row: its GPU count is not stated")
        return None
    tp = row.int_("tp")
    if tp:
        warnings.append(f"GPU count taken as the tensor-parallel size ({tp}): single node, agg")
    return tp or None


def _load(row: Node, agentic: bool) -> ReferenceLoad:
    concurrency = row.int_("conc") or row.int_("users")
    if agentic:
        return ReferenceLoad(
            kind="multi_turn",
            concurrency=concurrency,
            input_tokens=row.num("mean_input_tokens"),
            output_tokens=row.num("mean_output_tokens_actual"),
            workload=text_or_none(row.value.get("scenario_type")) or "multi-turn",
        )
    return ReferenceLoad(
        kind="fixed_concurrency",
        concurrency=concurrency,
        input_tokens=row.num("isl"),
        output_tokens=row.num("osl"),
        workload="fixed sequence length",
        random_prompts=True,
        ignore_eos=True,
        from_method=("random_prompts", "ignore_eos"),
    )


def _figures(row: Node) -> ReferenceFigures:
    latency: dict[str, LatencyStats | None] = {}
    for slot, key in _SLOTS:
        if latency.get(slot) is not None:
            continue
        latency[slot] = stats(
            slot,
            {ours: row.num(f"{theirs}_{key}") for ours, theirs in _STATS.items()},
            scale=1000.0,
            extra={p: row.num(f"{p}_{key}") for p in _EXTRA if row.has(f"{p}_{key}")},
        )
    interactivity = {
        ours: v
        for ours, theirs in (*_STATS.items(), ("p99.9", "p99.9"))
        if ours != "std" and (v := row.num(f"{theirs}_intvty")) is not None
    }
    total = row.int_("num_requests_total")
    ok = row.int_("num_requests_successful") or row.int_("total_requests_completed")
    return ReferenceFigures(
        throughput_per_accelerator=row.num("tput_per_gpu"),
        output_throughput_per_accelerator=row.num("output_tput_per_gpu"),
        input_throughput_per_accelerator=row.num("input_tput_per_gpu"),
        total_throughput=row.num("total_tput_tps"),
        output_throughput=row.num("output_tput_tps"),
        interactivity=interactivity,
        ttft=latency["ttft"],
        tpot=latency["tpot"],
        itl=latency["itl"],
        e2e=latency["e2e"],
        requests_completed=ok,
        requests_failed=None if total is None or ok is None else max(total - ok, 0),
        duration_s=row.num("duration_seconds"),
    )


FORMAT = Format("inferencex-agg", "references", "inferencex", detect, parse)
