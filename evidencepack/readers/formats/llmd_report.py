"""llm-d benchmark reports ("Benchmark Report", llm-d-benchmark's exchange format), YAML or JSON.

Schema ``version`` 0.1: ``scenario`` (``host.accelerator`` list, ``platform.engine`` list,
``model``, ``load``) and ``metrics`` (``time``, ``requests``, ``latency``, ``throughput``,
``service``, ``resources``). Versions 0.2 and 0.2.1: ``run`` (``uid``, ``time``, ``user``),
``scenario.stack`` (components; ``standardized.kind: inference_engine`` carries the model,
accelerator model and total count, and the engine image as ``tool_version``),
``scenario.load.standardized`` (``rate_qps``, ``concurrency``, ``source`` random or sampled,
sequence lengths, ``multi_turn``) and ``results.request_performance.aggregate``. Statistics
carry their ``units`` (``ms``, ``s``, ``ms/token``, ``s/token``); every time is converted to ms.
One report is one measured-elsewhere reference point; the report's date is its run's start,
its publisher the run's ``user`` where stated. Observability, service and resource metrics
are dropped with a warning naming them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from ...core.provenance import FileRecord
from ...errors import InputError
from .._json import Node, text_or_none
from .._runs import unbounded_rate
from .._yaml_doc import load_yaml_document, top_level_keys
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id
from ..models import LatencyMetric, LatencyStats, ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references, stack_of_image, stats

VERSIONS = ("0.1", "0.2", "0.2.1")
_TO_MS = {"ms": 1.0, "s": 1000.0, "ms/token": 1.0, "s/token": 1000.0}
_STATS = {"mean": "mean", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99", "min": "min",
          "max": "max", "std": "stddev"}  # fmt: skip
_EXTRA = ("p0p1", "p1", "p5", "p10", "p25", "p75", "p99p9")
_LATENCY: tuple[tuple[LatencyMetric, str], ...] = (
    ("ttft", "time_to_first_token"),
    ("tpot", "time_per_output_token"),
    ("itl", "inter_token_latency"),
    ("e2e", "request_latency"),
)


def _shape(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("scenario"), dict)
        and (isinstance(doc.get("metrics"), dict) or isinstance(doc.get("results"), dict))
        and str(doc.get("version")) in VERSIONS
    )


def detect_json(probe: Probe) -> bool:
    """A Benchmark Report written as JSON: ``version`` 0.1/0.2/0.2.1, ``scenario``, results."""
    return probe.container == "json" and _shape(probe.first)


def detect_yaml(probe: Probe) -> bool:
    """A Benchmark Report written as YAML (llm-d-benchmark's usual form)."""
    if not {"version", "scenario"} <= top_level_keys(probe):
        return False
    try:
        return _shape(load_yaml_document(probe.path, probe.name))
    except InputError:  # YAML that does not load is not this format (nor any other)
        return False


def parse_json(probe: Probe, record: FileRecord) -> ParsedInput:
    """The report's reference point, from JSON."""
    return _parse(Node(probe.first, probe.name), record, JSON_FORMAT.id)


def parse_yaml(probe: Probe, record: FileRecord) -> ParsedInput:
    """The report's reference point, from YAML."""
    return _parse(
        Node(load_yaml_document(probe.path, probe.name), probe.name), record, YAML_FORMAT.id
    )


def _parse(root: Node, record: FileRecord, format_id: str) -> ParsedInput:
    version = str(root.value.get("version"))
    point = _v01(root, record, format_id) if version == "0.1" else _v02(root, record, format_id)
    return parsed_references(format_id, record, "llm-d-benchmark", version, [point], [])


def _stats(node: Node | None, metric: LatencyMetric, warnings: list[str]) -> LatencyStats | None:
    if node is None:
        return None
    units = node.str_("units")
    if units not in _TO_MS:
        raise node.child("units").error(f"unknown time unit {units!r} for {metric}")
    return stats(
        metric,
        {ours: node.num(theirs) for ours, theirs in _STATS.items()},
        scale=_TO_MS[units],
        extra={p: node.num(p) for p in _EXTRA if node.has(p)},
        warnings=warnings,
    )


def _dropped(node: Node | None, read: set[str], where: str, warnings: list[str]) -> None:
    if node is None:
        return
    unused = sorted(str(k) for k in node.value if k not in read)
    if unused:
        warnings.append(f"{where}: section(s) this reader has no place for were dropped: "
                        + ", ".join(unused))  # fmt: skip


_SIMULATOR = re.compile(r"inference[-_ ]?sim(ulator)?\b|\bvllm[-_]sim\b", re.IGNORECASE)
"""llm-d's inference simulator (``llm-d-inference-sim``): an engine that answers with made-up
tokens at modelled latencies, so its report measured no accelerator."""


def _provenance(
    engines: list[str], warnings: list[str]
) -> Literal["measured_elsewhere", "simulated"]:
    """``simulated`` when an engine (its name or image) is llm-d's inference simulator."""
    found = [e for e in engines if _SIMULATOR.search(e)]
    if not found:
        return "measured_elsewhere"
    warnings.append(
        f"the engine is llm-d's inference simulator ({found[0]}): a simulated point, no "
        "accelerator was measured"
    )
    return "simulated"


def _v01(root: Node, record: FileRecord, format_id: str) -> ReferencePoint:
    warnings: list[str] = []
    scenario = root.need("scenario")
    metrics = root.need("metrics")
    accelerators = scenario.path("host").items("accelerator")
    engines = scenario.path("platform").items("engine")
    names = sorted({a.str_("model") or "?" for a in accelerators})
    count = sum(a.int_("count") or 0 for a in accelerators) or None
    runtimes = {(e.str_("name"), e.str_("version")) for e in engines}
    runtime, version = next(iter(runtimes)) if len(runtimes) == 1 else (None, None)
    if len(runtimes) > 1:
        warnings.append(f"engines differ ({sorted(map(str, runtimes))}): no one stack")
    model = scenario.obj("model")
    load = scenario.obj("load")
    latency = metrics.obj("latency")
    slots = {m: _stats(latency.obj(k) if latency else None, m, warnings) for m, k in _LATENCY}
    _dropped(latency, {k for _, k in _LATENCY}, "$.metrics.latency", warnings)
    _dropped(metrics, {"time", "requests", "latency", "throughput"}, "$.metrics", warnings)
    requests = metrics.obj("requests")
    throughput = metrics.obj("throughput")
    total = throughput.num("total_tokens_per_sec") if throughput else None
    return ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=format_id,
        source_tool="llm-d-benchmark",
        tool_version="0.1",
        provenance=_provenance([str(e.str_("name") or "") for e in engines], warnings),
        date=iso_from_epoch(metrics.path("time", "start").num()),
        label=text_or_none(scenario.value.get("description")),
        accelerator=" + ".join(names) if names else None,
        accelerator_count=count,
        model_name=model.str_("name") if model else None,
        precision=model.str_("quantization") if model else None,
        runtime_name=runtime,
        runtime_version=version,
        load=ReferenceLoad(
            kind=None,
            workload=" ".join(
                x for x in (load.str_("name"), load.str_("type")) if x
            ) if load else None,
            input_tokens=_mean(requests, "input_length"),
            output_tokens=_mean(requests, "output_length"),
        ),
        figures=_figures(
            total,
            count,
            throughput.num("output_tokens_per_sec") if throughput else None,
            throughput.num("requests_per_sec") if throughput else None,
            slots,
            requests,
            metrics.path("time", "duration").num(),
        ),
        settings=_scalars(load.obj("args") if load else None),
        warnings=tuple(warnings + ["a 0.1 report states its load only in the harness's own "
                                   "arguments (kept as settings): the load shape is not read"]),
    )  # fmt: skip


def _v02(root: Node, record: FileRecord, format_id: str) -> ReferencePoint:
    warnings: list[str] = []
    scenario = root.need("scenario")
    engines = [
        c.need("standardized")
        for c in scenario.items("stack")
        if c.path("standardized", "kind").value == "inference_engine"
    ]
    if not engines:
        warnings.append("no inference_engine in $.scenario.stack: model and hardware unknown")
    names = sorted({e.path("accelerator").str_("model") or "?" for e in engines})
    count = sum(e.path("accelerator").int_("count") or 0 for e in engines) or None
    models = sorted({e.path("model").str_("name") or "?" for e in engines})
    images = sorted({e.str_("tool_version") or "" for e in engines})
    runtime, version, image_warnings = stack_of_image(images[0] if len(images) == 1 else None)
    warnings += image_warnings if len(images) <= 1 else [f"engines differ: {images}"]
    load = scenario.path("load", "standardized").obj()
    aggregate = root.path("results", "request_performance", "aggregate").obj()
    latency = aggregate.obj("latency") if aggregate else None
    slots = {m: _stats(latency.obj(k) if latency else None, m, warnings) for m, k in _LATENCY}
    _dropped(latency, {k for _, k in _LATENCY}, "$.results.request_performance.aggregate."
             "latency", warnings)  # fmt: skip
    _dropped(root.obj("results"), {"request_performance"}, "$.results", warnings)
    throughput = aggregate.obj("throughput") if aggregate else None
    requests = aggregate.obj("requests") if aggregate else None
    total = _rate(throughput, "total_token_rate")
    start = root.path("run", "time", "start").value
    return ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=format_id,
        source_tool="llm-d-benchmark",
        tool_version=str(root.value.get("version")),
        provenance=_provenance([*images, *(str(e.str_("name") or "") for e in engines)], warnings),
        publisher=text_or_none(root.path("run", "user").value),
        date=start.isoformat() if isinstance(start, dt.datetime) else text_or_none(start),
        label=text_or_none(root.path("run", "description").value),
        accelerator=" + ".join(names) if names else None,
        accelerator_count=count,
        model_name=" + ".join(models) if models else None,
        runtime_name=runtime,
        runtime_version=version,
        image=images[0] if len(images) == 1 and images[0] else None,
        parallelism=_scalars(engines[0].path("accelerator").obj("parallelism")) if engines else {},
        load=_load(load, requests),
        figures=_figures(
            total,
            count,
            _rate(throughput, "output_token_rate"),
            _rate(throughput, "request_rate"),
            slots,
            requests,
        ),
        warnings=tuple(warnings + ["the report states no precision"]),
    )


def _load(load: Node | None, requests: Node | None) -> ReferenceLoad:
    if load is None:
        return ReferenceLoad()
    # a sentinel rate (inf in any spelling, 1e9) is no rate limit: the concurrency bounds it
    rate = None if unbounded_rate(load.value.get("rate_qps")) else load.num("rate_qps")
    raw = load.value.get("concurrency")
    concurrency = int(raw) if isinstance(raw, int | float) and raw == raw and raw < 1e9 else None
    multi = bool(load.path("multi_turn", "enabled").value)
    source = load.str_("source")
    kind = (
        "multi_turn" if multi else "open_loop" if rate else "fixed_concurrency" if concurrency
        else None
    )  # fmt: skip
    return ReferenceLoad(
        kind=kind,  # type: ignore[arg-type]
        concurrency=concurrency,
        request_rate_per_s=rate,
        input_tokens=_mean(requests, "input_length") or load.path("input_seq_len").num("value"),
        output_tokens=_mean(requests, "output_length") or load.path("output_seq_len").num("value"),
        workload=" ".join(x for x in (load.str_("tool"), load.str_("tool_version")) if x) or None,
        random_prompts=None if source in (None, "unknown") else source == "random",
    )


def _mean(node: Node | None, key: str) -> float | None:
    return node.path(key).num("mean") if node else None


def _rate(node: Node | None, key: str) -> float | None:
    return node.path(key).num("mean") if node else None


def _figures(
    total: float | None,
    count: int | None,
    output: float | None,
    rate: float | None,
    slots: dict[LatencyMetric, LatencyStats | None],
    requests: Node | None,
    duration: float | None = None,
) -> ReferenceFigures:
    """The report's figures: throughputs, the latency slots, request counts."""
    return ReferenceFigures(
        throughput_per_accelerator=total / count if total and count else None,
        total_throughput=total,
        output_throughput=output,
        request_throughput_per_s=rate,
        ttft=slots["ttft"],
        tpot=slots["tpot"],
        itl=slots["itl"],
        e2e=slots["e2e"],
        requests_completed=_completed(requests),
        requests_failed=requests.int_("failures") if requests else None,
        duration_s=duration,
    )


def _completed(requests: Node | None) -> int | None:
    if requests is None:
        return None
    total, failed = requests.int_("total"), requests.int_("failures") or 0
    incomplete = requests.int_("incomplete") or 0
    return None if total is None else max(total - failed - incomplete, 0)


def _scalars(node: Node | None) -> dict[str, Any]:
    if node is None:
        return {}
    return {str(k): v for k, v in node.value.items() if isinstance(v, str | int | float | bool)}


YAML_FORMAT = Format("llm-d-report", "references", "llm-d-benchmark", detect_yaml, parse_yaml)
JSON_FORMAT = Format("llm-d-report-json", "references", "llm-d-benchmark", detect_json, parse_json)
