"""llmperf summary and individual responses, built from token_benchmark_ray.py's field list."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import distributions, llmperf_responses, llmperf_summary, requests, write_json


def test_summary_keeps_its_itl_marked_and_converts_seconds(tmp_path: Path) -> None:
    r = requests(n=30, seed=31, failures=2)
    summary = llmperf_summary(r)
    parsed = read_input(write_json(tmp_path / "x_summary.json", summary))
    assert parsed.format_id == "llmperf-summary"
    (run,) = parsed.runs
    assert (run.requests_completed, run.requests_failed) == (28, 2)
    assert run.load.concurrency == summary["num_concurrent_requests"]
    assert run.ttft is not None
    assert run.ttft.p99_ms == pytest.approx(summary["results_ttft_s_quantiles_p99"] * 1000)
    assert run.itl is not None
    assert run.itl.definition == "itl_incl_first"
    assert not run.itl.canonical
    assert run.itl.mean_ms == pytest.approx(summary["results_inter_token_latency_s_mean"] * 1000)
    assert run.tpot is None
    assert run.duration_s == pytest.approx(
        28 * 60 / summary["results_num_completed_requests_per_min"]
    )


def test_responses_derive_tpot_without_the_first_token(tmp_path: Path) -> None:
    r = requests(n=30, seed=32, failures=1)
    parsed = read_input(write_json(tmp_path / "x_individual_responses.json", llmperf_responses(r)))
    assert parsed.format_id == "llmperf-responses"
    (run,) = parsed.runs
    assert (run.requests_completed, run.requests_failed) == (29, 1)
    dist = distributions(r)
    assert run.tpot is not None
    assert run.tpot.canonical
    assert run.tpot.mean_ms == pytest.approx(np.mean(dist["tpot"]))
    # No chunk gaps in the file: the ITL slot holds llmperf's own per-request figure, marked.
    assert run.itl is not None
    assert run.itl.definition == "itl_incl_first"
    assert run.itl.mean_ms == pytest.approx(
        np.mean([r.latencies[i] / r.output_lens[i] * 1000 for i in r.ok])
    )
    assert run.e2e is not None
    assert run.e2e.p99_ms == pytest.approx(np.percentile(dist["e2el"], 99))


def test_all_requests_failed_is_refused(tmp_path: Path) -> None:
    r = requests(n=3, seed=33, failures=3)
    with pytest.raises(InputError, match="zero completed requests"):
        read_input(write_json(tmp_path / "resp.json", llmperf_responses(r)))


def test_negative_ttft_in_a_response_is_located(tmp_path: Path) -> None:
    records = llmperf_responses(requests(n=5, seed=34))
    records[4]["ttft_s"] = -0.2
    with pytest.raises(InputError, match=r"\$\[4\]\.ttft_s: negative"):
        read_input(write_json(tmp_path / "resp.json", records))
