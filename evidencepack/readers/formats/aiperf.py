"""AIPerf and GenAI-Perf summary JSON (``profile_export_aiperf.json``/``..._genai_perf.json``).

The two-table CSV is in ``aiperf_csv``, AIPerf's per-request JSONL in ``aiperf_requests``.

Detected by ``aiperf_version``/``schema_version`` and ``{"unit": ..}`` metric objects. AIPerf's
``inter_token_latency`` is (latency - TTFT)/(OSL - 1) per request: our TPOT; its
``inter_chunk_latency`` is every chunk gap: our ITL. AIPerf 0.1.x (Oct 2025) nests the metrics
under ``records`` (``ttft``, ``ttst`` keys, each with ``tag`` and ``header``), writes no version
and states its first request's send time as ``min_request_timestamp`` (epoch ns) while its
``start_time`` is local time: the run's time comes from the epoch figure.
"""

from __future__ import annotations

from typing import Any, Literal

from ...core.provenance import FileRecord
from .._json import Node
from .._runs import build_run, goodput_fields, one_run, reconcile, tool_stats, unbounded_rate
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id, require_completed
from ..models import Identity, LatencyMetric, Load, TokenStats

# Summary metric key -> our slot (``ttft``: AIPerf 0.1.x).
_SLOTS: dict[str, LatencyMetric] = {
    "time_to_first_token": "ttft",
    "ttft": "ttft",
    "inter_token_latency": "tpot",
    "inter_chunk_latency": "itl",
    "request_latency": "e2e",
}
TO_MS = {"ms": 1.0, "sec": 1000.0, "s": 1000.0, "us": 1e-3, "ns": 1e-6}


def is_metric(value: Any) -> bool:
    """Whether a JSON value is an AIPerf metric object (a ``unit`` and an ``avg`` or ``value``)."""
    return isinstance(value, dict) and "unit" in value and ("avg" in value or "value" in value)


def detect_summary(probe: Probe) -> bool:
    """An AIPerf (or GenAI-Perf) ``profile_export*.json``: an object of metric objects."""
    doc = probe.first
    if probe.container != "json" or not isinstance(doc, dict):
        return False
    metric_objects = sum(1 for v in doc.values() if is_metric(v))
    records = doc.get("records")
    if isinstance(records, dict) and isinstance(doc.get("input_config"), dict):
        # AIPerf 0.1.x: the metric objects under ``records``, each naming its own ``tag``.
        return sum(1 for k, v in records.items() if is_metric(v) and v.get("tag") == k) >= 3
    if "aiperf_version" in doc or "schema_version" in doc:
        return metric_objects > 0
    # GenAI-Perf writes the same metric objects beside its input_config, without a version.
    return "input_config" in doc and "request_throughput" in doc and metric_objects >= 3


def parse_summary(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from an AIPerf summary: its metrics, load and identity, each unit checked."""
    root = Node(probe.first, probe.name)
    tool = tool_of(probe.first)
    version = root.str_("aiperf_version")
    warnings: list[str] = []
    if version is None:
        warnings.append("the file does not record the tool's version")
    nested = root.obj("records")
    metrics = nested or root
    unused = sorted(
        k for k, v in metrics.value.items() if is_metric(v) and k not in _READ and k not in _SLOTS
    )
    if unused:
        warnings.append(
            f"{len(unused)} metric(s) this reader has no place for were dropped: "
            + ", ".join(unused)
        )
    tool_latency = {}
    for key, slot in _SLOTS.items():
        node = metrics.obj(key)
        if node is None:
            continue
        scale = _scale(node)
        values = {k: node.num(src) for k, src in STAT_SOURCES.items()}
        extra = {p: node.num(p) for p in ("p1", "p5", "p10", "p25", "p75") if node.has(p)}
        tool_latency[slot] = tool_stats(
            slot, values, scale=scale, count=node.int_("count"), extra=extra
        )
    completed = _avg(metrics, "request_count")
    failed = _avg(metrics, "error_request_count")
    if failed is None and root.has("error_summary"):
        failed = sum(e.int_("count") or 0 for e in root.items("error_summary"))
    completed_int = None if completed is None else int(completed)
    if completed_int is not None:
        require_completed(probe.name, f"{metrics.where}.request_count.avg", completed_int)
    config = root.obj("input_config")
    first_sent = _avg(metrics, "min_request_timestamp")
    settled = reconcile(None, 0, tool_latency)
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=FORMAT.id,
        tool=tool,
        tool_version=version,
        layout=_layout(root, nested is not None),
        timestamp=iso_from_epoch(first_sent / 1e9) if first_sent else root.str_("start_time"),
        identity=Identity(model_name=_model(config), settings=_settings(config)),
        backend=_endpoint(config),
        load=_load(config),
        requests_sent=None
        if completed_int is None or failed is None
        else completed_int + int(failed),
        requests_completed=completed_int,
        requests_failed=None if failed is None else int(failed),
        duration_s=_avg(metrics, "benchmark_duration"),
        request_throughput_per_s=_avg(metrics, "request_throughput"),
        output_token_throughput_per_s=_avg(metrics, "output_token_throughput"),
        total_token_throughput_per_s=_avg(metrics, "total_token_throughput"),
        **_goodput(metrics, config, completed_int),
        tokens=TokenStats(
            input_mean_tokens=_avg(metrics, "input_sequence_length"),
            output_mean_tokens=_avg(metrics, "output_sequence_length"),
            input_total_tokens=as_int(_avg(metrics, "total_isl")),
            output_total_tokens=as_int(_avg(metrics, "total_osl")),
        ),
    )
    return one_run(FORMAT.id, record, run, file_warnings=warnings)


# Metrics read into fields other than a latency slot.
_READ = frozenset(
    (
        "request_count",
        "error_request_count",
        "min_request_timestamp",
        "benchmark_duration",
        "request_throughput",
        "output_token_throughput",
        "total_token_throughput",
        "goodput",
        "good_request_count",
        "good_request_fraction",
        "input_sequence_length",
        "output_sequence_length",
        "total_isl",
        "total_osl",
    )
)


def _goodput(metrics: Node, config: Node | None, completed: int | None) -> dict[str, Any]:
    """AIPerf's goodput (``--goodput``): the good requests' rate and count, with the SLOs from
    ``input_config.slos`` (GenAI-Perf: ``input_config.goodput``), each in the metric's unit."""
    slos: Node | None = None
    where = None
    for key in ("slos", "goodput"):
        slos = config.obj(key) if config is not None else None
        if slos is not None:
            where = f"{slos.where}"
            break
    return goodput_fields(
        _avg(metrics, "goodput"),
        good_requests=_avg(metrics, "good_request_count"),
        judged_requests=completed if _avg(metrics, "goodput") is not None else None,
        slos=slos.value if slos is not None else None,
        slo_source=where,
    )


def _layout(root: Node, nested: bool) -> str | None:
    if root.has("schema_version"):
        return f"schema {root.str_('schema_version')}"
    return "metrics under records (0.1.x)" if nested else None


def _settings(config: Node | None) -> dict[str, Any]:
    """Load settings that change what was measured: AIPerf's deliberate cancellations, and how
    the prompts were made (``_method``)."""
    if config is None:
        return {}
    out = _method(config.value if isinstance(config.value, dict) else {})
    rate = config.path("loadgen", "request_cancellation_rate").value
    if isinstance(rate, int | float) and not isinstance(rate, bool) and rate > 0:
        out["request_cancellation_rate_pct"] = float(rate)
    return out


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _method(config: dict[str, Any]) -> dict[str, Any]:
    """How the prompts were made, as ``analyze/method.py`` judges it: synthetic prompts
    (GenAI-Perf's ``input.prompt_source``, AIPerf's ``datasets[].type``), of a fixed length
    (a standard deviation of 0), a shared prefix prompt, output lengths forced
    (``output_tokens.deterministic``), and the warm-up requests."""
    out: dict[str, Any] = {}
    datasets = [d for d in config.get("datasets") or () if isinstance(d, dict)]
    synthetic = [d for d in datasets if d.get("type") == "synthetic"]
    if _get(config, "input", "prompt_source") == "synthetic" or synthetic:
        out["dataset_name"] = "synthetic"
        spread = (
            _get(synthetic[0], "prompts", "isl", "stddev")
            if synthetic
            else _get(config, "input", "synthetic_tokens", "stddev")
        )
        if spread == 0:
            out["random_range_ratio"] = 0.0
    prefixes = _get(config, "input", "prefix_prompt", "num")
    if isinstance(prefixes, int) and prefixes > 0:
        length = _get(config, "input", "prefix_prompt", "length")
        out["prefix_len"] = length if isinstance(length, int) else prefixes
    if _get(config, "input", "output_tokens", "deterministic") is True:
        out["ignore_eos"] = True
    warmup = _get(config, "perf_analyzer", "warmup_request_count")
    if isinstance(warmup, int) and not isinstance(warmup, bool):
        out["num_warmups"] = warmup
    return out


_GENAI_PERF_CONFIG = ("perf_analyzer", "model_names", "subcommand", "model")
_AIPERF_CONFIG = ("models", "loadgen", "phases")


def tool_of(doc: dict[str, Any]) -> Literal["aiperf", "genai-perf"]:
    """AIPerf or GenAI-Perf, by content: the version key, else what ``input_config`` holds."""
    if "aiperf_version" in doc:
        return "aiperf"
    config = doc.get("input_config")
    if isinstance(config, dict):
        if any(k in config for k in _GENAI_PERF_CONFIG):
            return "genai-perf"
        if any(k in config for k in _AIPERF_CONFIG):
            return "aiperf"
    aiperf_only = ("schema_version", "benchmark_id", "was_cancelled", "error_summary", "records")
    return "aiperf" if any(k in doc for k in aiperf_only) else "genai-perf"


STAT_SOURCES = {
    "mean": "avg",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "min": "min",
    "max": "max",
    "std": "std",
}


def _scale(node: Node) -> float:
    unit = node.str_("unit", required=True)
    assert unit is not None
    if unit not in TO_MS:
        raise node.child("unit").error(f"unknown time unit {unit!r}")
    return TO_MS[unit]


def _avg(root: Node, key: str) -> float | None:
    node = root.obj(key)
    return None if node is None else node.num("avg")


def as_int(value: float | None) -> int | None:
    """A count AIPerf writes as a float, as an int (None stays None)."""
    return None if value is None else int(value)


def _model(config: Node | None) -> str | None:
    if config is None:
        return None
    for path in (
        ("models", "items", 0, "name"),
        ("model_names", 0),
        ("endpoint", "model_names", 0),
        ("model", 0),
        ("model",),
    ):
        value = config.path(*path).value
        if isinstance(value, str) and value:
            return value
    return None


def _endpoint(config: Node | None) -> str | None:
    if config is None:
        return None
    value = config.path("endpoint", "type").value
    return value if isinstance(value, str) else None


def _load(config: Node | None) -> Load:
    if config is None:
        return Load()
    phase = next((p for p in config.items("phases") if p.str_("kind") in ("profiling", None)), None)
    # AIPerf: the profiling phase or ``loadgen``; GenAI-Perf: ``perf_analyzer.stimulus`` (0.0.10
    # and later) or the flat ``concurrency``/``request_rate`` of its earlier config.
    source = phase or config.obj("loadgen") or config.path("perf_analyzer", "stimulus")
    if source is None or not isinstance(source.value, dict):
        source = config
    concurrency = source.int_("concurrency")
    if unbounded_rate(source.value.get("request_rate")):
        return (
            Load(kind="closed_loop", concurrency=concurrency)
            if concurrency
            else Load(kind="offline")
        )
    rate = source.num("request_rate")
    if rate:
        mode = source.str_("request_rate_mode") or ""
        arrival: Literal["poisson", "constant"] | None = (
            "poisson" if "poisson" in mode else "constant" if "constant" in mode else None
        )
        return Load(
            kind="open_loop",
            request_rate_per_s=rate,
            arrival=arrival,
            concurrency=concurrency or None,
        )
    if concurrency:
        return Load(kind="closed_loop", concurrency=concurrency)
    return Load()


FORMAT = Format("aiperf-summary", "runs", "aiperf", detect_summary, parse_summary)
