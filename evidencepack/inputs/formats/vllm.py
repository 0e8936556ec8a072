"""vLLM ``vllm bench serve --save-result`` (one JSON per run; ``--append-result`` makes JSON lines).

Detected by ``backend`` + ``model_id`` + ``request_throughput`` + ``median_ttft_ms``. Aggregates are
in ms; the per-request arrays written with ``--save-detailed`` are in seconds. TPOT excludes the
first token and ITL pools every chunk gap: both already the canonical definitions. Older
releases lack ``failed``, ``max_*`` and ``rtfx``; every key beyond the core is optional.
"""

from __future__ import annotations

from ...provenance import FileRecord
from ..base import Format, ParsedInput, Probe
from . import _serve_bench

FLAVOUR = _serve_bench.Flavour(
    format_id="vllm-bench-serve",
    tool="vllm-bench-serve",
    e2e_key="e2el",
    new_fields=("failed", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx"),
)


def detect(probe: Probe) -> bool:
    return _serve_bench.has_keys(
        probe, ("backend", "model_id", "request_throughput", "median_ttft_ms")
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    return _serve_bench.parse(probe, record, FLAVOUR)


FORMAT = Format(FLAVOUR.format_id, "runs", FLAVOUR.tool, detect, parse)
