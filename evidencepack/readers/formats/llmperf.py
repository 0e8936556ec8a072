"""llmperf (ray-project, archived): ``*_summary.json`` and ``*_individual_responses.json``.

Detected by ``version == "2023-08-31"`` or ``results_ttft_s_*`` keys (summary) and by a list of
records with ``ttft_s`` + ``end_to_end_latency_s`` (responses). Everything is in seconds.
llmperf's inter-token latency counts the TTFT as the first gap; it has no TPOT. From the
per-request responses TPOT is derived without the first token; the summary keeps its ITL,
marked ``itl_incl_first``.
"""

from __future__ import annotations

from ...core.provenance import FileRecord
from ...staging.stage import Staging, max_object_size
from ...store.connection import literal_path
from .._json import Node
from .._runs import build_run, one_run, reconcile, staged_tokens, tool_stats
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id, require_completed
from ..models import Definition, Identity, LatencyMetric, LatencyStats, Load, TokenStats

SUMMARY_VERSION = "2023-08-31"
_METRICS: dict[str, tuple[LatencyMetric, Definition]] = {
    "ttft_s": ("ttft", "ttft"),
    "inter_token_latency_s": ("itl", "itl_incl_first"),
    "end_to_end_latency_s": ("e2e", "e2e"),
}


def detect_summary(probe: Probe) -> bool:
    """LLMPerf's ``*_summary.json``: its version or its ``results_*`` keys."""
    doc = probe.first
    if probe.container != "json" or not isinstance(doc, dict):
        return False
    return doc.get("version") == SUMMARY_VERSION or any(
        isinstance(k, str) and k.startswith("results_ttft_s_") for k in doc
    )


def parse_summary(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from an LLMPerf summary."""
    root = Node(probe.first, probe.name)
    completed = root.int_("results_num_completed_requests")
    if completed is not None:
        require_completed(probe.name, "$.results_num_completed_requests", completed)
    latency: dict[str, LatencyStats | None] = {}
    for key, (slot, definition) in _METRICS.items():
        prefix = f"results_{key}_"
        values = {
            "mean": root.num(prefix + "mean"),
            "p50": root.num(prefix + "quantiles_p50"),
            "p90": root.num(prefix + "quantiles_p90"),
            "p95": root.num(prefix + "quantiles_p95"),
            "p99": root.num(prefix + "quantiles_p99"),
            "min": root.num(prefix + "min"),
            "max": root.num(prefix + "max"),
            "std": root.num(prefix + "stddev"),
        }
        extra = {
            "p25": root.num(prefix + "quantiles_p25"),
            "p75": root.num(prefix + "quantiles_p75"),
        }
        latency[slot] = tool_stats(
            slot,
            values,
            definition=definition,
            weighting="request",
            scale=1000.0,
            extra=extra,
        )
    settled = reconcile(None, 0, latency)
    per_min = root.num("results_num_completed_requests_per_min")
    duration = completed * 60.0 / per_min if completed and per_min else None
    concurrency = root.int_("num_concurrent_requests")
    failed = root.int_("results_number_errors")
    warnings = ["llmperf reports no TPOT; its inter-token latency includes the TTFT"]
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=SUMMARY_FORMAT.id,
        tool="llmperf",
        tool_version=root.str_("version"),
        label=root.str_("name"),
        timestamp=iso_from_epoch(root.num("timestamp")),
        identity=Identity(model_name=root.str_("model"), concurrency=concurrency),
        load=Load(kind="closed_loop", concurrency=concurrency) if concurrency else Load(),
        requests_sent=root.int_("results_num_requests_started"),
        requests_completed=completed,
        requests_failed=failed,
        duration_s=duration,
        request_throughput_per_s=per_min / 60.0 if per_min else None,
        output_token_throughput_per_s=root.num("results_mean_output_throughput_token_per_s"),
        tokens=TokenStats(
            input_mean_tokens=root.num("results_number_input_tokens_mean"),
            output_mean_tokens=root.num("results_number_output_tokens_mean"),
        ),
    )
    return one_run(SUMMARY_FORMAT.id, record, run)


_RESPONSE_COLUMNS = {
    "error_code": "JSON",
    "error_msg": "VARCHAR",
    "ttft_s": "DOUBLE",
    "end_to_end_latency_s": "DOUBLE",
    "inter_token_latency_s": "DOUBLE",
    "number_input_tokens": "DOUBLE",
    "number_output_tokens": "DOUBLE",
}

_RESPONSES = """
SELECT 0 AS run_index, request_index, NULL AS line,
       (error_code IS NULL OR json_type(error_code) = 'NULL') AND coalesce(error_msg, '') = ''
           AS ok,
       nullif(coalesce(nullif(error_msg, ''), CAST(error_code AS VARCHAR)), 'null') AS error,
       number_input_tokens AS input_tokens, number_output_tokens AS output_tokens,
       ttft_s * 1000 AS ttft_ms, end_to_end_latency_s * 1000 AS e2e_ms,
       inter_token_latency_s * 1000 AS tool_itl_ms
FROM (SELECT row_number() OVER () - 1 AS request_index, *
      FROM read_json(?, format='array', columns=?, maximum_object_size=?))
"""
_FIELD = {
    "ttft_ms": "ttft_s",
    "e2e_ms": "end_to_end_latency_s",
    "tool_itl_ms": "inter_token_latency_s",
    "input_tokens": "number_input_tokens",
    "output_tokens": "number_output_tokens",
}


def detect_responses(probe: Probe) -> bool:
    """LLMPerf's ``*_individual_responses.json``: per-request objects with ``ttft_s``."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, list)
        and bool(doc)
        and isinstance(doc[0], dict)
        and "ttft_s" in doc[0]
        and "end_to_end_latency_s" in doc[0]
    )


def parse_responses(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from LLMPerf's per-request responses, staged in DuckDB and reduced there."""
    staging = Staging(
        probe.path,
        lambda run, req, line, col: f"$[{req}].{_FIELD.get(col, col)}",
        probe.name,
        probe.context,
    )
    try:
        staging.insert(
            _RESPONSES,
            [literal_path(probe.path), _RESPONSE_COLUMNS, max_object_size(record.size_bytes)],
        )
        staging.finish()
        rows, ok = staging.counts(0)
        require_completed(probe.name, f"{rows} response(s)", ok)
        settled = reconcile(staging, 0, {}, tool_itl_definition="itl_incl_first")
        run_id = item_id(record, 0)
        warnings = [
            "individual responses name no model, load or timing window; throughput is unknown",
        ]
        run = build_run(
            settled,
            warnings,
            run_id=run_id,
            index=0,
            format_id=RESPONSES_FORMAT.id,
            tool="llmperf",
            requests_sent=rows,
            requests_completed=ok,
            requests_failed=rows - ok,
            tokens=staged_tokens(staging, 0),
            per_request_rows=rows,
        )
        columns = staging.columns()
    finally:
        staging.close()
    return one_run(RESPONSES_FORMAT.id, record, run, file_warnings=warnings, requests=columns)


SUMMARY_FORMAT = Format("llmperf-summary", "runs", "llmperf", detect_summary, parse_summary)
RESPONSES_FORMAT = Format("llmperf-responses", "runs", "llmperf", detect_responses, parse_responses)
