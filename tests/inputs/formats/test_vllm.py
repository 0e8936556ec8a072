"""vLLM bench serve: files built from vllm/benchmarks/serve.py's field list, old and new."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import distributions, requests, vllm_result, write_json, write_jsonl


def test_new_detailed_run_is_recomputed_from_its_arrays(tmp_path: Path) -> None:
    r = requests(n=60, seed=1, failures=3)
    result = vllm_result(r, max_concurrency=8)
    parsed = read_input(write_json(tmp_path / "vllm.json", result))
    assert parsed.format_id == "vllm-bench-serve"
    (run,) = parsed.runs
    assert run.layout == "new fields"
    assert (run.requests_sent, run.requests_completed, run.requests_failed) == (60, 57, 3)
    assert run.per_request_rows == 60
    assert run.load.kind == "closed_loop"
    assert run.load.concurrency == 8
    assert run.identity.model_name == result["model_id"]
    dist = distributions(r)
    for slot, key in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl"), ("e2e", "e2el")):
        stats = run.latency(slot)  # type: ignore[arg-type]
        assert stats is not None
        assert stats.source == "per_request"
        assert stats.canonical
        assert stats.count == len(dist[key])
        assert stats.mean_ms == pytest.approx(np.mean(dist[key]))
        assert stats.p99_ms == pytest.approx(np.percentile(dist[key], 99))
        assert stats.p90_ms == pytest.approx(result[f"p90_{key}_ms"])
    assert run.checks
    assert all(check.ok for check in run.checks)
    assert parsed.requests is not None
    assert len(parsed.requests["run_index"]) == 60
    assert int(np.sum(~parsed.requests["ok"])) == 3


def test_old_field_set_without_arrays_keeps_the_tool_aggregates(tmp_path: Path) -> None:
    r = requests(n=30, seed=2)
    result = vllm_result(r, new=False, detailed=False, request_rate=4.0, burstiness=0.5)
    assert "failed" not in result
    assert "latencies" not in result
    (run,) = read_input(write_json(tmp_path / "old.json", result)).runs
    assert run.layout == "old fields"
    assert run.per_request_rows == 0
    assert run.requests_failed == 0  # num_prompts - completed
    assert run.load.kind == "open_loop"
    assert run.load.request_rate_per_s == 4.0
    assert run.load.arrival == "gamma"
    assert run.load.burstiness == 0.5
    assert run.ttft is not None
    assert run.ttft.source == "tool_aggregate"
    assert run.ttft.p99_ms == result["p99_ttft_ms"]
    assert run.tpot is not None
    assert run.tpot.mean_ms == result["mean_tpot_ms"]
    assert run.e2e is None  # old releases wrote no e2el
    assert any("no per-request arrays" in w for w in run.warnings)


def test_new_run_without_save_detailed_recomputes_e2e_only(tmp_path: Path) -> None:
    result = vllm_result(requests(n=20, seed=3), detailed=False)
    (run,) = read_input(write_json(tmp_path / "v.json", result)).runs
    assert run.e2e is not None
    assert run.e2e.source == "per_request"
    assert run.ttft is not None
    assert run.ttft.source == "tool_aggregate"


def test_appended_results_are_one_run_per_line(tmp_path: Path) -> None:
    lines = [vllm_result(requests(n=20, seed=s), request_rate=float(s + 1)) for s in range(3)]
    parsed = read_input(write_jsonl(tmp_path / "runs.jsonl", lines))
    assert [run.run_id.split("#")[1] for run in parsed.runs] == ["0", "1", "2"]
    assert [run.load.request_rate_per_s for run in parsed.runs] == [1.0, 2.0, 3.0]
    assert [run.ttft.p99_ms for run in parsed.runs] == pytest.approx(  # type: ignore[union-attr]
        [line["p99_ttft_ms"] for line in lines]
    )
    assert parsed.requests is not None
    assert len(parsed.requests["run_index"]) == 60


def test_an_aggregate_that_disagrees_with_the_arrays_is_reported(tmp_path: Path) -> None:
    result = vllm_result(requests(n=40, seed=4))
    result["p99_ttft_ms"] *= 1.5
    (run,) = read_input(write_json(tmp_path / "v.json", result)).runs
    bad = [c for c in run.checks if not c.ok]
    assert [(c.metric, c.statistic) for c in bad] == [("ttft", "p99")]
    assert any("ttft p99: the tool reports" in w for w in run.warnings)


def test_negative_latency_in_the_arrays_names_the_element(tmp_path: Path) -> None:
    result = vllm_result(requests(n=10, seed=5))
    result["ttfts"][3] = -0.01
    with pytest.raises(InputError, match=r"v\.json: \$\.ttfts\[3\]: negative"):
        read_input(write_json(tmp_path / "v.json", result))


def test_nan_aggregate_names_its_json_path(tmp_path: Path) -> None:
    result = vllm_result(requests(n=10, seed=6), detailed=False)
    text = json.dumps(result).replace(json.dumps(result["mean_tpot_ms"]), "NaN")
    path = tmp_path / "v.json"
    path.write_text(text)
    with pytest.raises(InputError, match=r"\$\.mean_tpot_ms: NaN"):
        read_input(path)


def test_zero_completed_requests_is_refused(tmp_path: Path) -> None:
    result = vllm_result(requests(n=10, seed=7), detailed=False)
    result["completed"] = 0
    with pytest.raises(InputError, match=r"\$\.completed: zero completed requests"):
        read_input(write_json(tmp_path / "v.json", result))


def test_truncated_jsonl_is_refused(tmp_path: Path) -> None:
    lines = [vllm_result(requests(n=10, seed=s), detailed=False) for s in range(2)]
    path = write_jsonl(tmp_path / "runs.jsonl", lines)
    path.write_text(path.read_text()[:-40])
    with pytest.raises(InputError, match="runs.jsonl.*truncated"):
        read_input(path)
