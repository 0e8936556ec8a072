"""SGLang ``python -m sglang.bench_serving`` (one JSON line appended per run to ``--output-file``).

Detected by ``dataset_name`` + ``mean_e2e_latency_ms`` + ``total_output_tokens_retokenized``.
Aggregates in ms with fixed p90/p95/p99; per-request ``ttfts``/``itls`` (seconds) only with
``--output-details``, which carries no per-request latency, so e2e and TPOT stay the tool's
(already the canonical definitions, as in vLLM).
"""

from __future__ import annotations

from ...provenance import FileRecord
from ..base import Format, ParsedInput, Probe
from . import _serve_bench

FLAVOUR = _serve_bench.Flavour(
    format_id="sglang-bench-serving",
    tool="sglang-bench-serving",
    e2e_key="e2e_latency",
    new_fields=("max_concurrency", "accept_length", "concurrency"),
)


def detect(probe: Probe) -> bool:
    return _serve_bench.has_keys(
        probe, ("dataset_name", "mean_e2e_latency_ms", "total_output_tokens_retokenized")
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    return _serve_bench.parse(probe, record, FLAVOUR)


FORMAT = Format(FLAVOUR.format_id, "runs", FLAVOUR.tool, detect, parse)
