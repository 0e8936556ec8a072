"""vLLM ``vllm bench serve --save-result`` (one JSON per run; ``--append-result`` makes JSON lines).

Detected by its whole field set, not one key: ``model_id`` + ``completed`` + ``duration`` +
``request_throughput``, a ttft or e2el aggregate, and who was benchmarked: ``backend``
(``benchmarks/benchmark_serving.py`` and ``vllm bench serve`` up to 0.9) or ``endpoint_type``
(``vllm/benchmarks/serve.py`` from 0.10 on, which dropped ``backend``). Aggregates are in ms; the
per-request arrays written with ``--save-detailed`` are in seconds. TPOT excludes the first token
and ITL pools every chunk gap: both already the canonical definitions. Older releases lack
``failed``, ``max_*`` and ``rtfx``; every key beyond the core is optional. ``vllm bench sweep
serve`` writes a ``summary.json`` that is a JSON list of such results (each with its
``run_number`` and the sweep's overrides): one run per element, a sweep of load points.
"""

from __future__ import annotations

from typing import Any

from ...core.provenance import FileRecord
from ..base import Format, ParsedInput, Probe
from . import _serve_bench

_CORE = ("model_id", "completed", "duration", "request_throughput")
_TARGET = ("backend", "endpoint_type")
_AGGREGATE = ("median_ttft_ms", "mean_ttft_ms", "median_e2el_ms", "mean_e2el_ms")
# Keys only SGLang's bench_serving writes: its lines are not vLLM's even where both agree.
_SGLANG = ("mean_e2e_latency_ms", "total_output_tokens_retokenized")
_NEW_FIELDS = ("failed", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx")


def layout(run: dict[str, Any]) -> str:
    """``old fields`` (no ``failed``/``max_*``), ``new fields``, or 0.10+ ``endpoint_type``."""
    if "backend" not in run and "endpoint_type" in run:
        return "new fields, endpoint_type (0.10+)"
    return "new fields" if any(k in run for k in _NEW_FIELDS) else "old fields"


FLAVOUR = _serve_bench.Flavour(
    format_id="vllm-bench-serve", tool="vllm-bench-serve", e2e_key="e2el", layout=layout
)


def detect(probe: Probe) -> bool:
    """vLLM's ``bench serve`` result JSON: its core keys, and none only SGLang writes."""
    if not _serve_bench.has_keys(probe, _CORE):
        return False
    first = _serve_bench.first_object(probe)
    return (
        any(k in first for k in _TARGET)
        and any(k in first for k in _AGGREGATE)
        and not any(k in first for k in _SGLANG)
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per result of vLLM's ``bench serve``."""
    return _serve_bench.parse(probe, record, FLAVOUR)


FORMAT = Format(FLAVOUR.format_id, "runs", FLAVOUR.tool, detect, parse)
