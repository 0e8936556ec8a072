"""kubernetes-sigs inference-perf lifecycle reports, built in tmp_path in the layout its
``reportgen/base.py`` writes (``summarize_requests``: ``load_summary``, ``successes`` with
``latency`` in seconds, ``throughput``, token summaries; ``failures``): each stage file is one
load point whose figures equal the file's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import write_json


def _dist(mean: float, *, spread: float = 0.5, p99: bool = False) -> dict[str, float]:
    """inference-perf's ``summarize``: mean, min, max, then the configured percentiles (default
    10, 50 as ``median``, 90)."""
    out = {"mean": mean, "min": mean * (1 - spread), "max": mean * (1 + 2 * spread)}
    out |= {"p10": mean * 0.7, "median": mean * 0.95, "p90": mean * 1.4}
    if p99:
        out["p99"] = mean * 1.9
    return out


def lifecycle(
    *,
    completed: int = 60,
    failed: int = 0,
    rate: float | None = 2.0,
    concurrency: int | None = None,
    later: bool = False,
    goodput: bool = False,
) -> dict[str, Any]:
    """One ``stage_<N>_lifecycle_metrics.json`` (``rate`` None: the summary's load_summary)."""
    sent = completed + failed
    load: dict[str, Any] = {"count": sent, "schedule_delay": _dist(0.001, spread=3.0)}
    load["schedule_delay"]["min"] = -0.0006  # negative by nature, not read
    if rate is not None:
        load |= {"send_duration": sent / rate, "requested_rate": rate, "achieved_rate": rate * 0.99}
        if concurrency is not None:
            load["concurrency"] = concurrency
    p99 = later
    successes: dict[str, Any] = {
        "count": completed,
        "latency": {
            "request_latency": _dist(2.5, p99=p99),
            "normalized_time_per_output_token": _dist(0.021, p99=p99),
            "time_per_output_token": _dist(0.0115, p99=p99),
            "time_to_first_token": _dist(0.083, p99=p99),
            "inter_token_latency": _dist(0.0117, spread=0.99, p99=p99),
        },
        "throughput": {
            "input_tokens_per_sec": 410.5,
            "output_tokens_per_sec": 388.25,
            "total_tokens_per_sec": 798.75,
            "requests_per_sec": 1.875,
        },
    }
    doc: dict[str, Any] = {"load_summary": load, "successes": successes}
    if later:
        doc = {"benchmark_time_seconds": completed / 1.875, **doc}
        successes |= {
            "prompt_tokens": {"total": 13137.0, "cached": 512.0, "uncached": 12625.0}
            | _dist(218.95),
            "output_len": _dist(204.0),
            "output_tokens": {"total": 12424.0} | _dist(207.07),
            "token_count_mismatches": 0,
            "client_fallback_requests": {"prompt": 0, "output": 0},
        }
    else:
        successes |= {"prompt_len": _dist(218.95), "output_len": _dist(207.07)}
    if goodput:
        successes["goodput_metrics"] = {
            "goodput_percentage": 75.0,
            "request_goodput": 1.40625,
            "token_goodput": 598.5,
            "good_requests": 45,
            "total_requests": completed,
            "ttft_attainment_percentage": 90.0,
            "tpot_attainment_percentage": 80.0,
        }
    doc["failures"] = {"count": failed, "request_latency": None, "prompt_len": None}
    return doc


def test_a_rate_stage_reads_with_the_files_figures(tmp_path: Path) -> None:
    doc = lifecycle(failed=2)
    parsed = read_input(write_json(tmp_path / "stage_0_lifecycle_metrics.json", doc))
    assert parsed.format_id == "inference-perf-lifecycle"
    (run,) = parsed.runs
    assert (run.tool, run.label) == ("inference-perf", "stage 0")
    assert run.load.kind == "open_loop"
    assert run.load.request_rate_per_s == 2.0
    assert run.load.arrival is None  # constant or poisson: the report does not say
    assert run.identity.settings["achieved_rate_per_s"] == pytest.approx(1.98)
    assert (run.requests_sent, run.requests_completed, run.requests_failed) == (62, 60, 2)
    throughput = doc["successes"]["throughput"]
    assert run.request_throughput_per_s == throughput["requests_per_sec"]
    assert run.output_token_throughput_per_s == throughput["output_tokens_per_sec"]
    assert run.total_token_throughput_per_s == throughput["total_tokens_per_sec"]
    assert run.duration_s == pytest.approx(60 / 1.875)
    latency = doc["successes"]["latency"]
    for stats, key in (
        (run.ttft, "time_to_first_token"),
        (run.tpot, "time_per_output_token"),
        (run.e2e, "request_latency"),
        (run.itl, "inter_token_latency"),
    ):
        assert stats is not None
        assert stats.mean_ms == pytest.approx(latency[key]["mean"] * 1000)
        assert stats.p50_ms == pytest.approx(latency[key]["median"] * 1000)
        assert stats.p90_ms == pytest.approx(latency[key]["p90"] * 1000)
        assert stats.max_ms == pytest.approx(latency[key]["max"] * 1000)
        assert stats.extra_percentiles_ms["p10"] == pytest.approx(latency[key]["p10"] * 1000)
    assert run.tpot is not None
    assert run.tpot.canonical
    assert run.itl is not None
    assert not run.itl.canonical
    assert run.itl.definition == "itl_token_gap"
    assert run.tokens.input_mean_tokens == 218.95
    assert run.tokens.output_mean_tokens == 207.07
    assert run.goodput is None


def test_a_concurrent_stage_of_the_later_layout(tmp_path: Path) -> None:
    doc = lifecycle(completed=48, rate=10.0, concurrency=16, later=True, goodput=True)
    (run,) = read_input(write_json(tmp_path / "stage_3_lifecycle_metrics.json", doc)).runs
    assert run.label == "stage 3"
    assert run.load.kind == "closed_loop"
    assert run.load.concurrency == 16
    assert run.identity.concurrency == 16
    assert run.duration_s == doc["benchmark_time_seconds"]
    assert run.tokens.input_total_tokens == 13137
    assert run.tokens.output_total_tokens == 12424  # the server's count, not output_len
    assert run.tokens.output_mean_tokens == 207.07
    assert run.ttft is not None
    assert run.ttft.p99_ms == pytest.approx(0.083 * 1.9 * 1000)
    assert run.goodput is not None
    assert run.goodput.requests_per_s == 1.40625
    assert run.goodput.tokens_per_s == 598.5
    assert (run.goodput.good_requests, run.goodput.judged_requests) == (45, 48)
    assert run.goodput.slo_source == "not stated in the file"
    assert any("goodput judged on tpot, ttft" in w for w in run.warnings)


def test_the_summary_is_not_one_load_point(tmp_path: Path) -> None:
    doc = lifecycle(completed=420, rate=None)
    (run,) = read_input(write_json(tmp_path / "summary_lifecycle_metrics.json", doc)).runs
    assert run.label == "summary of all stages"
    assert run.load.kind is None
    assert any("not one load point" in w for w in run.warnings)


def test_detected_by_content_not_name(tmp_path: Path) -> None:
    (run,) = read_input(write_json(tmp_path / "results.json", lifecycle())).runs
    assert run.format_id == "inference-perf-lifecycle"
    assert run.label is None
    assert any("the file's name does not say which" in w for w in run.warnings)


def test_the_prometheus_report_is_refused_with_a_pointer(tmp_path: Path) -> None:
    doc = {
        "benchmark_time_seconds": 0.0,
        "load_summary": {},
        "successes": {"count": 60, "rate": 1.0, "kv_cache_usage_percentage": {"mean": 0.2}},
        "failures": {},
    }
    path = write_json(tmp_path / "stage_0_prometheus_metrics.json", doc)
    with pytest.raises(InputError, match="Prometheus report.*cite stage_<N>_lifecycle"):
        read_input(path)


def test_no_successful_request_is_refused(tmp_path: Path) -> None:
    path = write_json(tmp_path / "stage_1_lifecycle_metrics.json", lifecycle(completed=0, failed=5))
    with pytest.raises(InputError, match=r"\$\.successes\.count"):
        read_input(path)


def test_inspect_prints_each_stage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [
        write_json(tmp_path / f"stage_{n}_lifecycle_metrics.json", lifecycle(rate=rate))
        for n, rate in enumerate((1.0, 4.0))
    ]
    assert main(["inspect", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert out.count("inference-perf-lifecycle (inference-perf)") == 2
    assert "open_loop 1 req/s" in out
    assert "open_loop 4 req/s" in out
    assert "TTFT mean 83 p50 78.85" in out
    assert json.loads(paths[0].read_text())["failures"]["count"] == 0
