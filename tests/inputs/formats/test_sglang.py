"""SGLang bench_serving: JSON lines built from python/sglang/bench_serving.py's field list."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import distributions, requests, sglang_result, write_jsonl


def test_new_lines_with_details_recompute_ttft_and_itl(tmp_path: Path) -> None:
    r = requests(n=50, seed=11, failures=2)
    line = sglang_result(r)
    parsed = read_input(write_jsonl(tmp_path / "sglang.jsonl", [line]))
    assert parsed.format_id == "sglang-bench-serving"
    (run,) = parsed.runs
    assert run.layout == "new fields"
    assert run.requests_completed == 48
    assert run.identity.concurrency == 16
    dist = distributions(r)
    assert run.ttft is not None
    assert run.ttft.source == "per_request"
    assert run.ttft.mean_ms == pytest.approx(np.mean(dist["ttft"]))
    assert run.itl is not None
    assert run.itl.count == len(dist["itl"])
    assert run.itl.p95_ms == pytest.approx(line["p95_itl_ms"])
    # No per-request latency in SGLang's details: e2e and TPOT stay the tool's own.
    assert run.e2e is not None
    assert run.e2e.source == "tool_aggregate"
    assert run.e2e.p99_ms == line["p99_e2e_latency_ms"]
    assert run.tpot is not None
    assert run.tpot.source == "tool_aggregate"
    assert run.tpot.canonical
    assert run.tpot.p99_ms == line["p99_tpot_ms"]
    assert all(check.ok for check in run.checks)
    assert len(run.checks) >= 4


def test_old_lines_without_details(tmp_path: Path) -> None:
    lines = [sglang_result(requests(n=20, seed=s), new=False, details=False) for s in (1, 2)]
    parsed = read_input(write_jsonl(tmp_path / "old.jsonl", lines))
    assert [run.layout for run in parsed.runs] == ["old fields", "old fields"]
    assert parsed.requests is None
    assert [run.ttft.mean_ms for run in parsed.runs] == [  # type: ignore[union-attr]
        line["mean_ttft_ms"] for line in lines
    ]
    assert parsed.runs[0].e2e is not None
    assert parsed.runs[0].e2e.p99_ms is None


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [sglang_result(requests(n=5), details=False)] * 2)
    path.write_text(path.read_text() + "{oops\n")
    with pytest.raises(InputError, match=r"s\.jsonl: line 3"):
        read_input(path)


def test_sglang_05_server_info_gives_model_and_version(tmp_path: Path) -> None:
    line = sglang_result(requests(n=20, seed=44), details=False)
    assert "model_id" not in line  # 0.5.x names the model only in server_info
    line["server_info"] = {
        "model_path": "/models/Qwen3-32B",
        "served_model_name": "Qwen/Qwen3-32B",
        "tp_size": 2,
        "dtype": "bfloat16",
        "quantization": "fp8",
        "kv_cache_dtype": "auto",
        "version": "0.5.3",
        "internal_states": [{"avg_spec_accept_length": None}],
    }
    (run,) = read_input(write_jsonl(tmp_path / "sglang.jsonl", [line])).runs
    info = line["server_info"]
    assert run.identity.model_name == info["served_model_name"]
    assert (run.identity.runtime_name, run.identity.runtime_version) == ("sglang", info["version"])
    assert run.identity.precision == info["quantization"]
    assert run.identity.settings["tp_size"] == info["tp_size"]
    # Prefill/decode split: the decode server's info.
    line["server_info"] = {"decode": [dict(info, served_model_name=None)], "prefill": [{}]}
    (split,) = read_input(write_jsonl(tmp_path / "pd.jsonl", [line])).runs
    assert split.identity.model_name == info["model_path"]
    assert split.identity.runtime_version == info["version"]
