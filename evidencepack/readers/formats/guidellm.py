"""guidellm ``benchmarks.json`` (layouts v0.3, v0.4, v0.5-0.6, v0.7+; see ``guidellm_layouts``).

Detected by ``benchmarks[*].type_ == "generative_benchmark"``. A sweep gives one run per
benchmark (load point). ``*_ms`` metrics are ms, ``request_latency`` is seconds. guidellm's
``time_per_output_token_ms`` includes the first token and its distributions are often
weighted per token: when the file holds every request, TPOT is recomputed per request without
the first token; when it holds a sample (or none), the tool's figures are kept, marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.provenance import FileRecord
from ...staging.stage import Staging, max_object_size
from .._json import Node
from .._runs import build_run, goodput_fields, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id, require_completed, with_tool
from ..models import (
    Definition,
    Identity,
    LatencyMetric,
    LatencyStats,
    ServingRun,
    TokenStats,
    Weighting,
)
from .guidellm_layouts import (
    Layout,
    backend_kind,
    layout_of,
    load_of,
    model_of,
    request_totals,
    strategy,
)

_FIELD = {
    "e2e_ms": "request_latency",
    "ttft_ms": "time_to_first_token_ms",
    "input_tokens": "prompt_tokens",
    "output_tokens": "output_tokens",
}

# Every benchmark's requests, unnested by DuckDB straight from the file. The JSON paths work for
# every layout: v0.3 also serialises request_latency and time_to_first_token_ms.
_UNNEST = """
WITH b AS (
  SELECT unnest(benchmarks) AS bench, generate_subscripts(benchmarks, 1) - 1 AS run_index
  FROM read_json(?, format='auto', columns={'benchmarks': 'JSON[]'}, maximum_object_size=?)
), r AS (
  SELECT run_index, s.status, s.status_order,
         unnest(CAST(json_extract(bench, '$.requests.' || s.status) AS JSON[])) AS req,
         generate_subscripts(CAST(json_extract(bench, '$.requests.' || s.status) AS JSON[]), 1)
             AS sub
  FROM b, (VALUES ('successful', 0), ('errored', 1), ('incomplete', 2)) s(status, status_order)
  WHERE json_type(json_extract(bench, '$.requests.' || s.status)) = 'ARRAY'
)
SELECT run_index,
       row_number() OVER (PARTITION BY run_index ORDER BY status_order, sub) - 1 AS request_index,
       NULL AS line,
       status = 'successful' AS ok,
       CASE WHEN status = 'successful' THEN NULL
            ELSE coalesce(req ->> '$.error', req ->> '$.info.error', status) END AS error,
       CAST(req ->> '$.prompt_tokens' AS DOUBLE) AS input_tokens,
       CAST(req ->> '$.output_tokens' AS DOUBLE) AS output_tokens,
       CAST(coalesce(req ->> '$.start_time', req ->> '$.request_start_time',
                     req ->> '$.info.timings.request_start') AS DOUBLE) AS start_s,
       CAST(req ->> '$.time_to_first_token_ms' AS DOUBLE) AS ttft_ms,
       CAST(req ->> '$.request_latency' AS DOUBLE) * 1000 AS e2e_ms
FROM r
"""


def detect(probe: Probe) -> bool:
    """GuideLLM's ``benchmarks.json``: a list of ``generative_benchmark`` objects."""
    doc = probe.first
    if probe.container != "json" or not isinstance(doc, dict):
        return False
    benches = doc.get("benchmarks")
    return (
        isinstance(benches, list)
        and bool(benches)
        and all(isinstance(b, dict) and b.get("type_") == "generative_benchmark" for b in benches)
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per GuideLLM benchmark, in any of the layouts ``guidellm_layouts`` knows."""
    return parse_document(probe, record, probe.path, FORMAT.id)


def parse_document(
    probe: Probe, record: FileRecord, read_from: Path, format_id: str
) -> ParsedInput:
    """``parse`` with the per-request rows read by DuckDB from ``read_from``: the file itself,
    or the JSON form of a ``benchmarks.yaml`` (messages still name the file given)."""
    root = Node(probe.first, probe.name)
    layout = layout_of(root)
    benches = root.items("benchmarks")

    def locate(run: int, request: int, line: int | None, column: str) -> str:
        return f"$.benchmarks[{run}].requests (request #{request}).{_FIELD.get(column, column)}"

    staging = Staging(probe.path, locate, probe.name, probe.context)
    try:
        size = read_from.stat().st_size
        staging.insert(_UNNEST, [str(read_from), max_object_size(max(size, record.size_bytes))])
        staging.finish()
        runs = [_run(b, i, root, layout, record, staging, format_id) for i, b in enumerate(benches)]
        columns = staging.columns()
    finally:
        staging.close()
    file_warnings = [] if layout.version else ["the file does not record guidellm's version"]
    warnings = file_warnings + [f"{r.run_id}: {w}" for r in runs for w in r.warnings]
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, "guidellm", layout.version, file_warnings),
        runs=tuple(runs),
        warnings=tuple(warnings),
        requests=columns if any(r.per_request_rows for r in runs) else None,
    )


def _run(
    bench: Node,
    index: int,
    root: Node,
    layout: Layout,
    record: FileRecord,
    staging: Staging,
    format_id: str,
) -> ServingRun:
    metrics = bench.need("metrics")
    totals = request_totals(bench, layout)
    completed = totals.int_("successful") if totals else None
    failed = totals.int_("errored") if totals else None
    sent = totals.int_("total") if totals else None
    if completed is None:
        completed = _int(_successful(metrics, "request_latency", "count"))
    require_completed(bench.file, f"{bench.where}.request_totals.successful", completed or 0)
    rows, ok_rows = staging.counts(index)
    warnings: list[str] = []
    if rows and ok_rows != completed and layout.name in ("v0.5-0.6", "v0.7+"):
        excluded = _exclude_warmup_cooldown(bench, index, staging, completed)
        if excluded:
            warnings.append(excluded)
            rows, ok_rows = staging.counts(index)
    complete = rows > 0 and ok_rows == completed
    if rows and not complete:
        warnings.append(
            f"the file keeps {ok_rows} of {completed} successful requests (a sample): the "
            "tool's aggregates are kept and the sampled rows are not loaded"
        )
        staging.execute("DELETE FROM req WHERE run_index = ?", [index])
        rows = 0
    elif not rows:
        warnings.append(
            f"the file keeps none of the {completed} requests' rows (guidellm sampling): the "
            "tool's aggregates are kept"
        )
    incomplete = totals.int_("incomplete") if totals else None
    if incomplete:
        warnings.append(
            f"{incomplete} request(s) incomplete (in flight when the benchmark ended, or "
            f"cancelled): neither completed nor failed; {sent if sent is not None else '?'} sent"
        )
    tool_latency = _tool_latency(metrics, completed)
    settled = reconcile(staging if rows else None, index, tool_latency)
    start = bench.num("start_time")
    end = bench.num("end_time")
    duration = bench.num("duration")
    if duration is None and start is not None and end is not None:
        duration = end - start
    return build_run(
        settled,
        warnings,
        run_id=item_id(record, index),
        index=index,
        format_id=format_id,
        tool="guidellm",
        tool_version=layout.version,
        layout=layout.name,
        timestamp=iso_from_epoch(start),
        identity=Identity(model_name=model_of(bench, root, layout), settings=method_of(root)),
        backend=backend_kind(bench, layout),
        load=load_of(strategy(bench, layout)),
        requests_sent=sent,
        requests_completed=completed,
        requests_failed=failed,
        duration_s=duration,
        request_throughput_per_s=_successful(metrics, "requests_per_second", "mean"),
        output_token_throughput_per_s=_successful(metrics, "output_tokens_per_second", "mean"),
        total_token_throughput_per_s=_successful(metrics, "tokens_per_second", "mean"),
        **_goodput(bench, root, metrics),
        tokens=TokenStats(
            input_mean_tokens=_successful(metrics, "prompt_token_count", "mean"),
            output_mean_tokens=_successful(metrics, "output_token_count", "mean"),
            input_total_tokens=_int(_successful(metrics, "prompt_token_count", "total_sum")),
            output_total_tokens=_int(_successful(metrics, "output_token_count", "total_sum")),
        ),
        per_request_rows=rows,
    )


def method_of(root: Node) -> dict[str, str | int | float | bool | None]:
    """How the prompts were made, as ``analyze/method.py`` judges it: guidellm's synthetic data
    (``config.spec.data[].kind``, 0.7+; ``args.data`` ``prompt_tokens=...``, earlier), of a
    fixed length when no spread is given."""
    doc = root.value if isinstance(root.value, dict) else {}
    config = doc.get("config")
    spec = config.get("spec") if isinstance(config, dict) else None
    data = spec.get("data") if isinstance(spec, dict) else None
    entries = [d for d in data or () if isinstance(d, dict)] if isinstance(data, list) else []
    synthetic = [d for d in entries if "synthetic" in str(d.get("kind", ""))]
    if synthetic:
        first = synthetic[0]
        spread = any(
            first.get(k) for k in ("prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max")
        )
        return {"dataset_name": "synthetic"} | ({} if spread else {"random_range_ratio": 0.0})
    args = doc.get("args")
    text = args.get("data") if isinstance(args, dict) else None
    text = " ".join(str(t) for t in text) if isinstance(text, list) else text
    if isinstance(text, str) and "prompt_tokens=" in text:
        spread = any(k in text for k in ("stdev", "_min", "_max"))
        return {"dataset_name": "synthetic"} | ({} if spread else {"random_range_ratio": 0.0})
    return {}


_OUTSIDE = "(start_s < ? OR start_s + coalesce(e2e_ms, 0) / 1000 > ?)"


def _exclude_warmup_cooldown(
    bench: Node, index: int, staging: Staging, completed: int | None
) -> str | None:
    """guidellm 0.5+ keeps its warm-up and cool-down requests in ``requests`` but outside the
    measured window (``scheduler_metrics.measure_start_time``..``measure_end_time``) and out of
    its figures: they are not a sample of the run. Drop them (and say so) when what remains is
    exactly the run's successful requests; otherwise leave the rows to the sample rule."""
    metrics = bench.obj("scheduler_metrics")
    start = (metrics.num("measure_start_time") if metrics else None) or bench.num("start_time")
    end = (metrics.num("measure_end_time") if metrics else None) or bench.num("end_time")
    if start is None or end is None or completed is None:
        return None
    low, high = start - _WINDOW_SLACK_S, end + _WINDOW_SLACK_S
    row = staging.execute(
        "SELECT count(*) FILTER (WHERE start_s < ?), "
        f"count(*) FILTER (WHERE start_s >= ? AND {_OUTSIDE}), "
        f"count(*) FILTER (WHERE ok AND NOT {_OUTSIDE}) FROM req WHERE run_index = ?",
        [low, low, low, high, low, high, index],
    ).fetchone()
    warmup, cooldown, kept = (int(v) for v in row) if row else (0, 0, 0)
    if not (warmup or cooldown) or kept != completed:
        return None
    staging.execute(f"DELETE FROM req WHERE run_index = ? AND {_OUTSIDE}", [index, low, high])
    return (
        f"{warmup} warm-up and {cooldown} cool-down request(s), outside the measured window, "
        "were excluded: they are not part of the sample (guidellm leaves them out of its "
        "figures too)"
    )


# Timestamps are floats of epoch seconds: a request ending on the window's edge may overshoot
# it by rounding.
_WINDOW_SLACK_S = 1e-3


def _tool_latency(metrics: Node, completed: int | None) -> dict[str, LatencyStats | None]:
    """guidellm's own distributions, each under its own definition and weighting."""
    out: dict[str, LatencyStats | None] = {
        "ttft": _dist(metrics, "time_to_first_token_ms", "ttft", "ttft", 1.0, completed),
        "e2e": _dist(metrics, "request_latency", "e2e", "e2e", 1000.0, completed),
        "tpot": _dist(
            metrics, "time_per_output_token_ms", "tpot", "tpot_incl_first", 1.0, completed
        ),
        # guidellm's ITL is (last token - first token) / (tokens - 1) per request: by value our
        # TPOT, not a chunk-gap distribution; it stays in the ITL slot, marked as such.
        "itl": _dist(metrics, "inter_token_latency_ms", "itl", "tpot_excl_first", 1.0, completed),
    }
    return out


def _dist(
    metrics: Node,
    key: str,
    slot: LatencyMetric,
    definition: Definition,
    scale: float,
    completed: int | None,
) -> LatencyStats | None:
    node = metrics.path(key, "successful").obj()
    if node is None:
        return None
    pct = node.obj("percentiles")
    count = node.int_("count")
    # A distribution with as many values as requests is per request; more means per token.
    weighting: Weighting = "request" if count is not None and count == completed else "token"
    if slot in ("ttft", "e2e"):
        weighting = "request"
    values = {
        "mean": node.num("mean"),
        "p50": (pct.num("p50") if pct and pct.has("p50") else node.num("median")),
        "p90": pct.num("p90") if pct else None,
        "p95": pct.num("p95") if pct else None,
        "p99": pct.num("p99") if pct else None,
        "min": node.num("min"),
        "max": node.num("max"),
        "std": node.num("std_dev"),
    }
    extra = {
        k: pct.num(k)
        for k in ("p001", "p01", "p05", "p10", "p25", "p75", "p999")
        if pct and pct.has(k)
    }
    return tool_stats(
        slot,
        values,
        definition=definition,
        weighting=weighting,
        scale=scale,
        count=count,
        extra=extra,
    )


def _goodput(bench: Node, root: Node, metrics: Node) -> dict[str, Any]:
    """guidellm 0.8+'s goodput (``--metrics '{"slo": {...}}'``): ``request_goodput`` (a number
    or a distribution's successful mean), ``output_token_goodput``, the attainment over the
    requests it could judge, and the SLOs from the benchmark's ``config.slo`` or the report's
    ``config.spec.metrics.slo`` (names carry their unit: ``ttft_ms``, ``e2el_ms``)."""
    rate = _number_or_mean(metrics.child("request_goodput"))
    tokens = _number_or_mean(metrics.child("output_token_goodput"))
    if rate is None and tokens is None:
        return {}
    judged = metrics.num("slo_determined_requests")
    attainment = metrics.num("slo_attainment")
    slo = bench.path("config", "slo").obj() or root.path("config", "spec", "metrics", "slo").obj()
    return goodput_fields(
        rate,
        tokens_per_s=tokens,
        good_requests=None if judged is None or attainment is None else attainment * judged,
        judged_requests=judged,
        slos=slo.value if slo is not None else None,
        slo_source=slo.where if slo is not None else None,
    )


def _number_or_mean(node: Node) -> float | None:
    """A figure guidellm writes as a number or as a distribution (its successful mean)."""
    if isinstance(node.value, dict):
        inner = node.path("successful").obj() or node
        return inner.num("mean")
    return node.num() if node.value is not None else None


def _successful(metrics: Node, key: str, stat: str) -> float | None:
    node = metrics.path(key, "successful").obj()
    return None if node is None else node.num(stat)


def _int(value: float | None) -> int | None:
    return None if value is None else int(round(value))


FORMAT = Format("guidellm-benchmarks", "runs", "guidellm", detect, parse)
