"""TensorRT-LLM ``trtllm-bench throughput|latency --report_json`` (``ReportUtility``'s dict).

Detected by ``engine`` + ``world_info`` + ``performance``. Times are ms. ``throughput`` runs
in-process with every request issued up front: the load is offline. ``latency`` writes the same
report with ``world_info.max_batch_size`` 1 (it sets it so): one request at a time, a closed loop
of concurrency 1, said on the run as its layout. Its TPOT is
(end - first token) / (tokens - 1) per request, the canonical definition; its output
throughput counts the first token, as every other tool's does.
"""

from __future__ import annotations

from ...core.provenance import FileRecord
from .._json import Node
from .._runs import build_run, one_run, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, item_id, require_completed
from ..models import Identity, LatencyMetric, LatencyStats, Load, TokenStats


def detect(probe: Probe) -> bool:
    """A TensorRT-LLM ``trtllm-bench`` report: ``engine``, ``world_info`` and ``performance``."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, dict)
        and all(isinstance(doc.get(k), dict) for k in ("engine", "world_info", "performance"))
    )


def _percentiles(node: Node | None, slot: LatencyMetric) -> LatencyStats | None:
    if node is None:
        return None

    def first(*keys: str) -> float | None:
        for key in keys:
            if node.has(key):
                return node.num(key)
        return None

    values = {
        "mean": first("average", "avg", "mean"),
        "p50": first("p50", "median"),
        "p90": first("p90"),
        "p95": first("p95"),
        "p99": first("p99"),
        "min": first("minimum", "min"),
        "max": first("maximum", "max"),
    }
    return tool_stats(slot, values)


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from a ``trtllm-bench`` report."""
    root = Node(probe.first, probe.name)
    engine, world, perf = root.need("engine"), root.need("world_info"), root.need("performance")
    info = root.obj("request_info")
    streaming = root.obj("streaming_metrics")
    completed = info.int_("num_requests") if info else None
    if completed is not None:
        require_completed(probe.name, "$.request_info.num_requests", completed)

    latency: dict[str, LatencyStats | None] = {
        "e2e": _percentiles(perf.obj("request_latency_percentiles_ms"), "e2e"),
        "ttft": _percentiles(streaming.obj("ttft_percentiles"), "ttft") if streaming else None,
        "tpot": _percentiles(streaming.obj("tpot_percentiles"), "tpot") if streaming else None,
    }
    if latency["e2e"] is None and perf.has("avg_request_latency_ms"):
        latency["e2e"] = tool_stats("e2e", {"mean": perf.num("avg_request_latency_ms")})
    if streaming is not None and latency["ttft"] is None:
        latency["ttft"] = tool_stats("ttft", {"mean": streaming.num("avg_ttft_ms")})
    if streaming is not None and latency["tpot"] is None:
        latency["tpot"] = tool_stats("tpot", {"mean": streaming.num("avg_tpot_ms")})
    settled = reconcile(None, 0, latency)

    version = engine.str_("version")
    quant = engine.str_("quantization")
    precision = (
        quant if quant and quant.lower() not in ("none", "no_quant") else engine.str_("dtype")
    )
    total_ms = perf.num("total_latency_ms")
    settings = {
        key: world.value.get(key)
        for key in (
            "tp_size",
            "pp_size",
            "ep_size",
            "world_size",
            "max_num_tokens",
            "scheduling_policy",
            "kv_cache_percentage",
        )
        if isinstance(world.value.get(key), str | int | float)
    }
    settings.update(
        {
            k: v
            for k in ("backend", "dtype", "kv_cache_dtype", "quantization")
            if isinstance(v := engine.value.get(k), str)
        }
    )
    warnings = [] if streaming else ["not a streaming run: no TTFT or TPOT in the report"]
    # ``trtllm-bench latency`` fixes the batch to one request: a closed loop of one user.
    latency_mode = world.int_("max_batch_size") == 1
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=FORMAT.id,
        tool="trtllm-bench",
        tool_version=version,
        layout="latency (max_batch_size 1)" if latency_mode else "throughput",
        identity=Identity(
            model_name=engine.str_("model"),
            precision=precision,
            runtime_name="tensorrt-llm",
            runtime_version=version,
            batch_size=world.int_("max_batch_size"),
            settings=settings,
        ),
        backend=engine.str_("backend"),
        load=Load(kind="closed_loop", concurrency=1) if latency_mode else Load(kind="offline"),
        requests_sent=completed,
        requests_completed=completed,
        duration_s=None if total_ms is None else total_ms / 1000.0,
        request_throughput_per_s=perf.num("request_throughput_req_s"),
        output_token_throughput_per_s=perf.num("system_output_throughput_tok_s")
        if perf.has("system_output_throughput_tok_s")
        else perf.num("output_throughput_tok_s"),
        total_token_throughput_per_s=perf.num("system_total_throughput_tok_s"),
        tokens=TokenStats(
            input_mean_tokens=info.num("avg_input_length") if info else None,
            output_mean_tokens=info.num("avg_output_length") if info else None,
        ),
    )
    return one_run(FORMAT.id, record, run)


FORMAT = Format("trtllm-bench-report", "runs", "trtllm-bench", detect, parse)
