"""AIPerf's per-request ``profile_export.jsonl``: one record per request, read by DuckDB.

Each record has ``metadata`` (``request_start_ns``, ``benchmark_phase``, ``was_cancelled``),
``metrics`` (``{"value": .., "unit": ..}``) and ``error``. Only profiling-phase records count.
The records name no model, version or load; throughput comes from their own timestamps.
AIPerf 0.1.x writes the send time as ``metadata.timestamp_ns``, the phase as
``metadata.credit_phase`` and TTFT as ``metrics.ttft``; both spellings are read.
"""

from __future__ import annotations

from ...core.provenance import FileRecord
from ...staging.stage import Staging
from ...store.connection import literal_path
from .._runs import build_run, one_run, request_window
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id
from .aiperf import is_metric

_JSONL_COLUMNS = {
    "metadata": "STRUCT(request_start_ns UBIGINT, request_end_ns UBIGINT, "
    "benchmark_phase VARCHAR, was_cancelled BOOLEAN, timestamp_ns UBIGINT, credit_phase VARCHAR)",
    "metrics": "STRUCT("
    + ", ".join(
        f"{name} STRUCT(value {kind}, unit VARCHAR)"
        for name, kind in (
            ("time_to_first_token", "DOUBLE"),
            ("ttft", "DOUBLE"),
            ("request_latency", "DOUBLE"),
            ("input_sequence_length", "DOUBLE"),
            ("output_sequence_length", "DOUBLE"),
            ("inter_chunk_latency", "DOUBLE[]"),
        )
    )
    + ")",
    "error": "JSON",
}

_JSONL_SELECT = """
SELECT 0 AS run_index, line - 1 AS request_index, line,
       (error IS NULL OR json_type(error) = 'NULL')
           AND NOT coalesce(metadata.was_cancelled, false) AS ok,
       CASE WHEN error IS NULL OR json_type(error) = 'NULL' THEN NULL
            ELSE coalesce(error ->> '$.message', CAST(error AS VARCHAR)) END AS error,
       metrics.input_sequence_length.value AS input_tokens,
       metrics.output_sequence_length.value AS output_tokens,
       coalesce(metadata.request_start_ns, metadata.timestamp_ns) / 1e9 AS start_s,
       coalesce(metrics.time_to_first_token.value, metrics.ttft.value) AS ttft_ms,
       metrics.request_latency.value AS e2e_ms,
       metrics.inter_chunk_latency.value AS itl_gaps_ms,
       -- Units are checked in the same pass; finish() reports the first bad row.
       CASE
         WHEN metrics.time_to_first_token.unit <> 'ms'
           THEN '$.metrics.time_to_first_token.unit: expected ms, found '
                || metrics.time_to_first_token.unit
         WHEN metrics.ttft.unit <> 'ms'
           THEN '$.metrics.ttft.unit: expected ms, found ' || metrics.ttft.unit
         WHEN metrics.request_latency.unit <> 'ms'
           THEN '$.metrics.request_latency.unit: expected ms, found '
                || metrics.request_latency.unit
         WHEN metrics.inter_chunk_latency.unit <> 'ms'
           THEN '$.metrics.inter_chunk_latency.unit: expected ms, found '
                || metrics.inter_chunk_latency.unit
       END AS problem
FROM (SELECT row_number() OVER () AS line, * FROM read_json(?, format='newline_delimited',
      columns=?))
WHERE coalesce(metadata.benchmark_phase, metadata.credit_phase, 'profiling') = 'profiling'
"""


_FIELD = {
    "ttft_ms": "$.metrics.time_to_first_token.value (or $.metrics.ttft.value)",
    "e2e_ms": "$.metrics.request_latency.value",
    "input_tokens": "$.metrics.input_sequence_length.value",
    "output_tokens": "$.metrics.output_sequence_length.value",
    "itl_gaps_ms": "$.metrics.inter_chunk_latency.value",
    "problem": "",
}


def detect_jsonl(probe: Probe) -> bool:
    """AIPerf's per-request ``profile_export.jsonl``: ``metadata`` and metric ``metrics``."""
    first = probe.first
    return (
        probe.container == "jsonl"
        and isinstance(first, dict)
        and isinstance(first.get("metadata"), dict)
        and isinstance(first.get("metrics"), dict)
        and any(is_metric(v) for v in first["metrics"].values())
    )


def parse_jsonl(probe: Probe, record: FileRecord) -> ParsedInput:
    """One run from AIPerf's per-request records, staged in DuckDB and reduced there."""
    path = probe.path

    def locate(run: int, request: int, line: int | None, column: str) -> str:
        return f"line {line}: {_FIELD.get(column, column)}"

    staging = Staging(path, locate, probe.name, probe.context)
    try:
        staging.insert(_JSONL_SELECT, [literal_path(path), _JSONL_COLUMNS])
        staging.finish()
        window = request_window(staging, staging.name)
        warnings = [
            "per-request records name no model, tool version or load; throughput is derived "
            "from the requests' own timestamps",
        ]
        run = build_run(
            window.settled,
            warnings,
            run_id=item_id(record, 0),
            index=0,
            format_id=JSONL_FORMAT.id,
            tool="aiperf",
            timestamp=iso_from_epoch(window.start_s),
            **window.run_fields,
        )
        columns = staging.columns()
    finally:
        staging.close()
    return one_run(JSONL_FORMAT.id, record, run, file_warnings=warnings, requests=columns)


JSONL_FORMAT = Format("aiperf-requests", "runs", "aiperf", detect_jsonl, parse_jsonl)
