"""kubernetes-sigs ``inference-perf`` lifecycle reports (the load generator of llm-d and the
Gateway API inference extension).

A run writes ``stage_<N>_lifecycle_metrics.json`` per load stage and
``summary_lifecycle_metrics.json`` over all of them (``report.request_lifecycle.per_stage`` /
``summary``). Detected by ``load_summary`` + ``successes.latency`` + ``failures``. One file is
one run: a stage is one load point (``load_summary.requested_rate``, and ``concurrency`` for a
``concurrent`` stage); the summary pools every stage's requests, so it has no single load and
says so. Latencies are seconds: ``time_to_first_token`` (TTFT), ``time_per_output_token`` ((last
token - first token) / (output tokens - 1) per request: the canonical TPOT), ``request_latency``
(e2e); ``inter_token_latency`` pools every gap between output token times, where a streamed
chunk's tokens share its arrival when a tokenizer is configured (0 ms gaps inside a chunk) and
the file does not say whether one was: kept as ``itl_token_gap``, marked, never compared.
Token counts: the server's ``output_tokens``/``prompt_tokens`` (totals and means) where the file
has them (2026 layouts), else the client's ``prompt_len``/``output_len`` means. Goodput
(``successes.goodput_metrics``) is read with its SLOs unknown: they are in the run's
``config.yaml``, not here. Knowingly not read: ``normalized_time_per_output_token`` (latency over
all output tokens, the first included), ``schedule_delay``, ``failures``' distributions,
``retries``, the multimodal and request-size summaries, and the ``*_prometheus_metrics.json``
reports (the model server's own metrics, refused with a pointer to the lifecycle reports).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._json import Node
from .._runs import build_run, goodput_fields, one_run, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, item_id, require_completed
from ..models import Definition, Identity, LatencyMetric, LatencyStats, Load, TokenStats

_SLOTS: dict[str, tuple[LatencyMetric, Definition]] = {
    "time_to_first_token": ("ttft", "ttft"),
    "time_per_output_token": ("tpot", "tpot_excl_first"),
    "inter_token_latency": ("itl", "itl_token_gap"),
    "request_latency": ("e2e", "e2e"),
}
_MAIN = {"mean": "mean", "p50": "median", "p90": "p90", "p95": "p95", "p99": "p99"}
_MAIN |= {"min": "min", "max": "max"}
_STAGE = re.compile(r"stage_(-?\d+)_lifecycle_metrics\.json")


def detect(probe: Probe) -> bool:
    """An inference-perf lifecycle report (``load_summary``, ``successes.latency``,
    ``failures``), or its Prometheus report (``successes`` holding the server's
    ``kv_cache_usage_percentage``), which ``parse`` refuses with a pointer."""
    doc = probe.first
    if probe.container != "json" or not isinstance(doc, dict):
        return False
    successes = doc.get("successes")
    if not (
        isinstance(doc.get("load_summary"), dict)
        and isinstance(successes, dict)
        and isinstance(doc.get("failures"), dict)
    ):
        return False
    return isinstance(successes.get("latency"), dict) or "kv_cache_usage_percentage" in successes


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from an inference-perf stage (or summary) lifecycle report."""
    root = Node(probe.first, probe.name)
    successes = root.need("successes")
    latency_node = successes.obj("latency")
    if latency_node is None:
        raise InputError(
            f"{probe.name}: an inference-perf Prometheus report (the model server's own "
            "metrics, scraped during the run), not the load generator's measurements: cite "
            "stage_<N>_lifecycle_metrics.json (one per load stage) or "
            "summary_lifecycle_metrics.json"
        )
    load_summary = root.need("load_summary")
    completed = successes.need_int("count")
    require_completed(probe.name, "$.successes.count", completed)
    failed = root.path("failures").int_("count")
    sent = load_summary.int_("count")
    stage = _stage(probe.name)
    warnings = [
        "the lifecycle report names neither the model nor inference-perf's version (the run's "
        "config.yaml does)"
    ]
    load = _load(load_summary)
    if stage is None:
        warnings.append(
            "a summary pools the requests of every stage of the run: not one load point (each "
            "stage_<N>_lifecycle_metrics.json is one)"
            if load.kind is None
            else "read as one stage: the file's name does not say which"
        )
    tool_latency: dict[str, LatencyStats | None] = {}
    for key, (slot, definition) in _SLOTS.items():
        tool_latency[slot] = _latency(latency_node.obj(key), slot, definition)
    settled = reconcile(None, 0, tool_latency)
    throughput = successes.obj("throughput")
    rate = throughput.num("requests_per_sec") if throughput else None
    duration = root.num("benchmark_time_seconds") or (completed / rate if rate else None)
    goodput = successes.obj("goodput_metrics")
    if goodput is not None:
        judged = sorted(
            k.removesuffix("_attainment_percentage")
            for k in goodput.value
            if k.endswith("_attainment_percentage")
        )
        warnings.append(
            f"goodput judged on {', '.join(judged) or 'SLOs the file does not name'}: their "
            "limits are in the run's config.yaml (report.goodput), not in this file"
        )
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=FORMAT.id,
        tool="inference-perf",
        layout=_layout(root, successes),
        label="summary of all stages" if stage is None and load.kind is None else stage,
        identity=Identity(concurrency=load.concurrency, settings=_settings(load_summary)),
        load=load,
        requests_sent=sent,
        requests_completed=completed,
        requests_failed=failed,
        duration_s=duration,
        request_throughput_per_s=rate,
        output_token_throughput_per_s=throughput.num("output_tokens_per_sec")
        if throughput
        else None,
        total_token_throughput_per_s=throughput.num("total_tokens_per_sec") if throughput else None,
        tokens=_tokens(successes),
        **(
            goodput_fields(
                goodput.num("request_goodput"),
                tokens_per_s=goodput.num("token_goodput"),
                good_requests=goodput.num("good_requests"),
                judged_requests=goodput.num("total_requests"),
            )
            if goodput is not None
            else {}
        ),
    )
    return one_run(FORMAT.id, record, run)


def _stage(name: str) -> str | None:
    """``stage N`` from inference-perf's file name (the label only; detection is by content)."""
    match = _STAGE.fullmatch(PurePath(name).name)
    return f"stage {match.group(1)}" if match else None


def _load(load_summary: Node) -> Load:
    """A stage's load: ``concurrency`` (a ``concurrent`` stage: a closed loop) or
    ``requested_rate`` (``constant`` or ``poisson``: an open loop whose arrival process the
    report does not name). A summary states neither."""
    concurrency = load_summary.int_("concurrency")
    if concurrency:
        return Load(kind="closed_loop", concurrency=concurrency)
    rate = load_summary.num("requested_rate")
    if rate:
        return Load(kind="open_loop", request_rate_per_s=rate)
    return Load()


def _settings(load_summary: Node) -> dict[str, Any]:
    """What the stage achieved beside what it asked for: the rate and the sending window."""
    out: dict[str, Any] = {}
    for key, name in (
        ("achieved_rate", "achieved_rate_per_s"),
        ("send_duration", "send_duration_s"),
    ):
        value = load_summary.num(key)
        if value is not None:
            out[name] = value
    return out


def _latency(node: Node | None, slot: LatencyMetric, definition: Definition) -> LatencyStats | None:
    """One distribution, seconds to ms; percentiles beyond p50/p90/p95/p99 kept as extras."""
    if node is None:
        return None
    values = {ours: node.num(theirs) for ours, theirs in _MAIN.items() if node.has(theirs)}
    extra = {
        key: node.num(key)
        for key in node.value
        if re.fullmatch(r"p\d+(\.\d+)?", key) and key not in ("p90", "p95", "p99")
    }
    return tool_stats(
        slot,
        values,
        definition=definition,
        weighting="gap" if slot == "itl" else "request",
        scale=1000.0,
        extra=extra,
    )


def _tokens(successes: Node) -> TokenStats:
    """The server's token counts where the report has them, else the client's means."""
    prompt = successes.obj("prompt_tokens") or successes.obj("prompt_len")
    output = successes.obj("output_tokens") or successes.obj("output_len")

    def total(node: Node | None) -> int | None:
        value = node.num("total") if node is not None else None
        return None if value is None else int(round(value))

    return TokenStats(
        input_mean_tokens=prompt.num("mean") if prompt else None,
        output_mean_tokens=output.num("mean") if output else None,
        input_total_tokens=total(prompt),
        output_total_tokens=total(output),
    )


def _layout(root: Node, successes: Node) -> str:
    """The earlier layout (client ``prompt_len``/``output_len`` only) or the later one
    (``benchmark_time_seconds``, the server's ``prompt_tokens``/``output_tokens``)."""
    if root.has("benchmark_time_seconds") or successes.has("output_tokens"):
        return "lifecycle report with server token counts"
    return "lifecycle report"


FORMAT = Format("inference-perf-lifecycle", "runs", "inference-perf", detect, parse)
