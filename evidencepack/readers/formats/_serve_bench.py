"""What vLLM ``bench serve`` and SGLang ``bench_serving`` share: one JSON object per run, appended
as JSON lines, with ``mean_/median_/std_/p<P>_<metric>_ms`` aggregates and optional per-request
arrays (``ttfts``, ``itls``, ``latencies`` in seconds; ``input_lens``, ``output_lens``, ``errors``).

The arrays are unnested by DuckDB straight from the file; the aggregates are read in Python.
SGLang 0.5.x writes no ``model_id`` but the server's ``/get_server_info`` as ``server_info``
(under ``decode``/``prefill`` lists when disaggregated): the model, SGLang's version, the
precision and the parallelism are taken from it.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...core.provenance import FileRecord
from ...staging.context import ReadContext
from ...staging.stage import Staging, max_object_size
from ...staging.stage_batch import StagedRun, stage_batch
from ...store.connection import literal_path
from ...store.staged import StagedRows
from .._json import Node, iter_json_lines, text_or_none
from .._runs import build_run, goodput_fields, reconcile, tool_stats, unbounded_rate
from ..base import Columns, ParsedInput, Probe, item_id, require_completed, with_tool
from ..models import Identity, LatencyMetric, LatencyStats, Load, ServingRun, TokenStats

ARRAY_COLUMNS = {
    "ttfts": "DOUBLE[]",
    "itls": "DOUBLE[][]",
    "latencies": "DOUBLE[]",
    "input_lens": "BIGINT[]",
    "output_lens": "BIGINT[]",
    "errors": "VARCHAR[]",
    "start_times": "DOUBLE[]",
}

_RUNS = """
WITH runs AS (
  SELECT row_number() OVER () - 1 AS run_index, *
  FROM read_json(?, format='auto', columns=?, maximum_object_size=?)
)"""
_BATCH_RUNS = """
WITH runs AS (
  SELECT list_position(?::VARCHAR[], filename) - 1 AS run_index, *
  FROM read_json(?, format='unstructured', columns=?, maximum_object_size=?, filename=true)
)"""
"""Many one-object files at once (``stage_many``): each file's run numbered by its place."""
_REQUESTS = """, idx AS (
  SELECT run_index, unnest(range(1, greatest(coalesce(len(ttfts), 0), coalesce(len(latencies), 0),
                                              coalesce(len(output_lens), 0)) + 1)) AS i
  FROM runs
)
SELECT run_index, i - 1 AS request_index, NULL AS line,
       CASE WHEN errors IS NOT NULL THEN coalesce(errors[i], '') = ''
            ELSE coalesce(output_lens[i] > 0 OR latencies[i] > 0, true) END AS ok,
       nullif(errors[i], '') AS error,
       input_lens[i] AS input_tokens, output_lens[i] AS output_tokens, start_times[i] AS start_s,
       ttfts[i] * 1000 AS ttft_ms, latencies[i] * 1000 AS e2e_ms,
       list_transform(itls[i], lambda g: g * 1000) AS itl_gaps_ms
FROM idx JOIN runs USING (run_index)
"""
_UNNEST = _RUNS + _REQUESTS

_ARRAY_OF = {
    "ttft_ms": "ttfts",
    "e2e_ms": "latencies",
    "itl_gaps_ms": "itls",
    "input_tokens": "input_lens",
    "output_tokens": "output_lens",
}


METHOD_KEYS = (
    "ignore_eos",
    "random_input_len",
    "random_output_len",
    "random_range_ratio",
    "random_prefix_len",
    "prefix_len",
    "sonnet_prefix_len",
    "accept_length",
    "acceptance_length",
    "num_speculative_tokens",
    "num_warmups",
    "ramp_up_strategy",
    "enable_prefix_caching",
    "kv_cache_dtype",
    "max_model_len",
)
"""How the run was made, where the result records it (vLLM's ``ignore_eos`` and
``--metadata key=value`` pairs, SGLang's ``random_*`` lengths and ``accept_length``): kept as
settings for the analysis to judge against the traffic and the envelope."""


SERVER_METHOD_KEYS = (
    "context_length",
    "disable_radix_cache",
    "speculative_algorithm",
    "speculative_num_draft_tokens",
)
"""SGLang ``server_info`` settings kept for the analysis: context length, prefix (radix) cache,
speculative decoding."""


@dataclass(frozen=True)
class Flavour:
    """How one tool names things."""

    format_id: str
    tool: str
    e2e_key: str  # "e2el" (vLLM) or "e2e_latency" (SGLang)
    layout: Callable[[dict[str, Any]], str]  # names the field set a run object carries


def runs_in(probe: Probe) -> Iterator[tuple[str, Node]]:
    """Each run object with the prefix that locates it (``line N: `` for JSON lines; ``$[i]``
    in a JSON list of results, as ``vllm bench sweep serve`` writes its ``summary.json``)."""
    if probe.container == "json" and isinstance(probe.first, list):
        root = Node(probe.first, probe.name)
        yield from (("", item) for item in root.items())
        return
    if probe.container == "json":
        yield "", Node(probe.first, probe.name)
        return
    for number, value in iter_json_lines(probe.path, probe.name):
        yield f"line {number}: ", Node(value, probe.name, "$", f"line {number}: ")


def parse(probe: Probe, record: FileRecord, flavour: Flavour) -> ParsedInput:
    """A vLLM or SGLang ``bench serve`` result (JSON, or JSONL of one result per line), read
    with the flavour's field names into one run per result."""
    path = probe.path
    jsonl = probe.container == "jsonl"

    listed = probe.container == "json" and isinstance(probe.first, list)

    def locate(run: int, request: int, line: int | None, column: str) -> str:
        where = f"line {run + 1}: " if jsonl else ""
        root = f"$[{run}]" if listed else "$"
        return f"{where}{root}.{_ARRAY_OF.get(column, column)}[{request}]"

    staged = probe.context.prestaged.get(path) if probe.container == "json" and not listed else None
    if staged is not None:  # read with a batch of small files (``stage_many``)
        _, node = next(runs_in(probe))
        obj = node.obj(required=True)
        assert obj is not None
        return _parsed(
            flavour, record, [_run(obj, 0, "", record, flavour, staged)], staged.columns()
        )
    staging = Staging(path, locate, probe.name, probe.context)
    try:
        staging.insert(
            _UNNEST, [literal_path(path), ARRAY_COLUMNS, max_object_size(record.size_bytes)]
        )
        staging.finish()
        runs: list[ServingRun] = []
        with _collector_paused():
            for index, (prefix, node) in enumerate(runs_in(probe)):
                obj = node.obj(required=True)
                assert obj is not None
                runs.append(_run(obj, index, prefix, record, flavour, staging))
        columns = staging.columns()
    finally:
        staging.close()
    return _parsed(flavour, record, runs, columns)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a file's runs are read. Each run is some
    hundred objects without cycles, all kept to the end, which the collector would otherwise
    scan again and again as they pile up (a third of the CPU time of 50,000 appended runs);
    reference counting still frees every temporary at once."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parsed(
    flavour: Flavour, record: FileRecord, runs: list[ServingRun], columns: Columns | StagedRows
) -> ParsedInput:
    warnings = [f"{r.run_id}: {w}" for r in runs for w in r.warnings]
    has_rows = any(r.per_request_rows for r in runs)
    return ParsedInput(
        format_id=flavour.format_id,
        file=with_tool(record, flavour.tool, None, ["the file does not record the tool version"]),
        runs=tuple(runs),
        warnings=tuple(warnings),
        requests=columns if has_rows else None,
    )


def stage_many(probes: Sequence[Probe], context: ReadContext) -> dict[Path, StagedRun]:
    """The runs of many small one-object files staged together (a few statements for all)
    under ``context``, by path; {} when they cannot be taken as one batch (each file is then
    read alone)."""
    paths = [probe.path for probe in probes]
    size = max_object_size(max(path.stat().st_size for path in paths)) if paths else 0

    def params(staged: Sequence[Path]) -> list[Any]:
        return [[str(p) for p in staged], [literal_path(p) for p in staged], ARRAY_COLUMNS, size]

    return stage_batch(paths, _BATCH_RUNS + _REQUESTS, params, context)


def _run(
    node: Node,
    index: int,
    prefix: str,
    record: FileRecord,
    flavour: Flavour,
    staging: Staging | StagedRun,
) -> ServingRun:
    completed = node.need_int("completed")
    require_completed(node.file, f"{prefix}{node.where}.completed", completed)
    prompts = node.int_("num_prompts")
    failed = node.int_("failed")
    if failed is None and prompts is not None and prompts >= completed:
        failed = prompts - completed
    percentiles = _percentile_fields(node)
    tool_latency: dict[str, LatencyStats | None] = {
        "ttft": _tool_metric(node, "ttft", "ttft", percentiles),
        "tpot": _tool_metric(node, "tpot", "tpot", percentiles),
        "itl": _tool_metric(node, "itl", "itl", percentiles),
        "e2e": _tool_metric(node, flavour.e2e_key, "e2e", percentiles),
    }
    rows, _ok = staging.counts(index)
    settled = reconcile(staging if rows else None, index, tool_latency)
    total_in = node.int_("total_input_tokens")
    total_out = node.int_("total_output_tokens")
    warnings: list[str] = []  # build_run adds the reconciliation's own warnings once
    duration = node.num("duration")
    request_rate = node.num("request_throughput")
    if request_rate is None and duration:
        request_rate = completed / duration
        warnings.append("no request_throughput in the file: derived as completed / duration")
    if rows == 0:
        warnings.append(
            "no per-request arrays (run without --save-detailed / --output-details); "
            "the tool's aggregates are kept as reported"
        )
    return build_run(
        settled,
        warnings,
        run_id=item_id(record, index),
        index=index,
        format_id=flavour.format_id,
        tool=flavour.tool,
        layout=flavour.layout(node.value),
        label=_label(node),
        timestamp=_date(node.value.get("date")),
        identity=_identity(node),
        backend=text_or_none(node.value.get("backend") or node.value.get("endpoint_type")),
        load=_load(node),
        requests_sent=prompts,
        requests_completed=completed,
        requests_failed=failed,
        duration_s=duration,
        request_throughput_per_s=request_rate,
        output_token_throughput_per_s=node.num("output_throughput"),
        total_token_throughput_per_s=_total_throughput(node, warnings),
        **goodput_fields(
            node.num("request_goodput"),
            judged_requests=completed if node.num("request_goodput") is not None else None,
        ),
        tokens=TokenStats(
            input_mean_tokens=None if total_in is None else total_in / completed,
            output_mean_tokens=None if total_out is None else total_out / completed,
            input_total_tokens=total_in,
            output_total_tokens=total_out,
        ),
        per_request_rows=rows,
    )


def _total_throughput(node: Node, warnings: list[str]) -> float | None:
    """Input plus output tokens per second: vLLM's ``total_token_throughput``, SGLang's
    ``total_throughput``; an SGLang line with only ``input_throughput`` and
    ``output_throughput`` gives their sum, and the run says so."""
    for key in ("total_token_throughput", "total_throughput"):
        value = node.num(key)
        if value is not None:
            return value
    inputs, outputs = node.num("input_throughput"), node.num("output_throughput")
    if inputs is None or outputs is None:
        return None
    warnings.append("no total token throughput in the file: input_throughput + output_throughput")
    return inputs + outputs


def _label(node: Node) -> str | None:
    """The run's ``label``, or its place in a ``vllm bench sweep`` (``run_number``)."""
    if isinstance(node.value.get("label"), str):
        return node.str_("label")
    number = node.value.get("run_number")
    return f"sweep run {number}" if isinstance(number, int) else None


def _identity(node: Node) -> Identity:
    """Model, concurrency and settings from the run object, completed from ``server_info``."""
    server = _server_info(node)
    settings: dict[str, Any] = {
        k: v
        for k in ("tokenizer_id", "dataset_name", "endpoint_type")
        if isinstance(v := node.value.get(k), str)
    }
    settings.update(
        {
            k: v
            for k in METHOD_KEYS
            if isinstance(v := node.value.get(k), str | int | float) and k not in settings
        }
    )
    settings.update(
        {
            k: v
            for k in ("tp_size", "dp_size", "ep_size", "pp_size", "kv_cache_dtype")
            if isinstance(v := server.get(k), str | int) and not isinstance(v, bool)
        }
    )
    # SGLang's engine settings that change what a run measures (judged by analyze/method.py).
    settings.update(
        {
            k: v
            for k in SERVER_METHOD_KEYS
            if isinstance(v := server.get(k), str | int | float | bool) and k not in settings
        }
    )
    quantization = text_or_none(server.get("quantization"))
    version = text_or_none(server.get("version"))
    return Identity(
        model_name=text_or_none(node.value.get("model_id"))
        or text_or_none(server.get("served_model_name"))
        or text_or_none(server.get("model_path")),
        precision=quantization or text_or_none(server.get("dtype")),
        runtime_name="sglang" if version else None,
        runtime_version=version,
        concurrency=node.int_("max_concurrency"),
        settings=settings,
    )


def _server_info(node: Node) -> dict[str, Any]:
    """SGLang's ``server_info`` (the decode server's, when prefill and decode are split)."""
    info = node.value.get("server_info")
    if isinstance(info, dict) and isinstance(info.get("decode"), list) and info["decode"]:
        info = info["decode"][0]
    return info if isinstance(info, dict) else {}


_PERCENTILE = re.compile(r"p(\d+(?:\.\d+)?)_(.+)_ms")
"""A tool's percentile field, ``p99_ttft_ms``: the percentile and the metric's key."""


def _percentile_fields(node: Node) -> dict[str, list[tuple[str, str]]]:
    """Each metric key's percentile fields (``ttft`` -> [("p99", "p99_ttft_ms")]), in the
    file's order: one pass over the run's fields for all four metrics."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in node.value:
        match = _PERCENTILE.fullmatch(name) if type(name) is str and name[:1] == "p" else None
        if match:
            found.setdefault(match.group(2), []).append((f"p{match.group(1)}", name))
    return found


def _tool_metric(
    node: Node,
    key: str,
    slot: LatencyMetric,
    percentiles: Mapping[str, list[tuple[str, str]]] | None = None,
) -> LatencyStats | None:
    values: dict[str, float | None] = {
        "mean": node.num(f"mean_{key}_ms"),
        "p50": node.num(f"median_{key}_ms"),
        "std": node.num(f"std_{key}_ms"),
        "min": node.num(f"min_{key}_ms"),
        "max": node.num(f"max_{key}_ms"),
    }
    extra: dict[str, float | None] = {}
    if percentiles is None:
        percentiles = _percentile_fields(node)
    for label, name in percentiles.get(key, ()):
        value = node.num(name)
        if label in ("p50", "p90", "p95", "p99"):
            values[label] = value if label != "p50" or values["p50"] is None else values["p50"]
        else:
            extra[label] = value
    return tool_stats(slot, values, extra=extra)


def _load(node: Node) -> Load:
    raw = node.value.get("request_rate")
    concurrency = node.int_("max_concurrency")
    burstiness = node.num("burstiness")
    if raw is None:
        return Load(concurrency=concurrency)
    if unbounded_rate(raw):
        # every request sent at once (``inf``, or a sentinel such as ``1e9``): bounded only by
        # --max-concurrency when it is given
        if concurrency:
            return Load(kind="closed_loop", concurrency=concurrency)
        return Load(kind="offline")
    if raw == "trace":
        return Load(kind="open_loop", arrival="trace", concurrency=concurrency)
    rate = node.num("request_rate")
    arrival: Literal["poisson", "gamma"] = "poisson" if burstiness in (None, 1.0) else "gamma"
    return Load(
        kind="open_loop",
        request_rate_per_s=rate,
        arrival=arrival,
        burstiness=burstiness,
        concurrency=concurrency,
    )


def _date(value: Any) -> str | None:
    """vLLM writes ``%Y%m%d-%H%M%S`` in local time; keep it as ISO without a zone."""
    if not isinstance(value, str):
        return None
    match = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})", value)
    if not match:
        return value
    y, mo, d, h, mi, s = match.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{s}"


def has_keys(probe: Probe, keys: tuple[str, ...]) -> bool:
    """Whether the file is JSON(L) whose first object holds every one of ``keys`` (in a JSON
    list of results: every element does)."""
    if probe.container not in ("json", "jsonl"):
        return False
    objects = probe.first if isinstance(probe.first, list) else [probe.first]
    return bool(objects) and all(
        isinstance(obj, dict) and all(k in obj for k in keys) for obj in objects
    )


def first_object(probe: Probe) -> dict[str, Any]:
    """The first run object: the document, the first JSON line or the first element of a list."""
    first = probe.first[0] if isinstance(probe.first, list) and probe.first else probe.first
    return first if isinstance(first, dict) else {}
