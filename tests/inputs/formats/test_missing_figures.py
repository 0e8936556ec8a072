"""A figure the file does not state is None (not measured), never 0: the analysis then judges
the run on what it has (a missing e2e never meets an e2e limit)."""

from __future__ import annotations

import json
from pathlib import Path

from evidencepack.readers.registry import read_input

from ..builders import requests, vllm_result, write_json

AIPERF = "formats/aiperf/generated/profile_export_aiperf.json"


def test_vllm_default_percentile_metrics_give_no_e2e(tmp_path: Path) -> None:
    """``vllm bench serve`` without ``--percentile-metrics ...,e2el`` writes no e2el figures
    (and, before ``latencies`` were kept, no per-request latency either)."""
    result = vllm_result(requests(n=10, seed=8), new=False, detailed=False)
    assert not any("e2el" in key for key in result)
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.e2e is None
    assert run.ttft is not None


def test_aiperf_without_an_error_count_sends_an_unknown_number(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared_data / AIPERF).read_text())
    doc.pop("error_request_count", None)
    doc.pop("error_summary", None)
    (run,) = read_input(write_json(tmp_path / "profile_export_aiperf.json", doc)).runs
    assert run.requests_failed is None
    assert run.requests_sent is None
    assert run.requests_completed == int(doc["request_count"]["avg"])
