"""SGLang ``python -m sglang.bench_serving`` (one JSON line appended per run to ``--output-file``).

Detected by ``dataset_name`` + ``mean_e2e_latency_ms`` + ``total_output_tokens_retokenized``.
Aggregates in ms with fixed p90/p95/p99; per-request ``ttfts``/``itls`` (seconds) only with
``--output-details``, which carries no per-request latency, so e2e and TPOT stay the tool's
(already the canonical definitions, as in vLLM). Releases before the full field set wrote a
compact line (medians only, no ``request_throughput``): the request rate is then
``completed / duration``, and the run says so.
"""

from __future__ import annotations

from typing import Any

from ...core.provenance import FileRecord
from ..base import Format, ParsedInput, Probe
from . import _serve_bench

_NEW_FIELDS = ("max_concurrency", "accept_length", "concurrency")


def layout(run: dict[str, Any]) -> str:
    """``compact`` (no ``request_throughput`` or no mean TTFT), else ``new``/``old fields``."""
    if "request_throughput" not in run or "mean_ttft_ms" not in run:
        return "compact (medians only)"
    return "new fields" if any(k in run for k in _NEW_FIELDS) else "old fields"


FLAVOUR = _serve_bench.Flavour(
    format_id="sglang-bench-serving",
    tool="sglang-bench-serving",
    e2e_key="e2e_latency",
    layout=layout,
)


def detect(probe: Probe) -> bool:
    """SGLang's ``bench_serving`` JSON lines: keys only SGLang writes."""
    return _serve_bench.has_keys(
        probe, ("dataset_name", "mean_e2e_latency_ms", "total_output_tokens_retokenized")
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run per line of SGLang's ``bench_serving`` output."""
    return _serve_bench.parse(probe, record, FLAVOUR)


FORMAT = Format(FLAVOUR.format_id, "runs", FLAVOUR.tool, detect, parse)
