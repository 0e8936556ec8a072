"""A one-token (prefill-only) run: no request has a second token, so TPOT and ITL were not
measured. vLLM and SGLang write 0.0 for them (``np.mean(tpots or 0)``); the readers say "not
measured" (None), never 0 ms measured."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from evidencepack.readers.registry import read_input

from ..builders import requests, sglang_result, vllm_result, write_json, write_jsonl


def _one_token(result: dict[str, Any], detailed: bool) -> dict[str, Any]:
    """What the tool writes when every request stopped after its first token."""
    n = result["completed"]
    for key in list(result):
        if re.fullmatch(r"(mean|median|std|p[\d.]+)_(tpot|itl)_ms", key):
            result[key] = 0.0  # vLLM and SGLang: np.mean(tpots or 0), np.percentile(... or 0)
    result["total_output_tokens"] = n
    result["output_throughput"] = n / result["duration"]
    if detailed:
        result["output_lens"] = [1] * n
        result["itls"] = [[] for _ in range(n)]
        result["latencies"] = list(result["ttfts"])
    return result


@pytest.mark.parametrize("detailed", [False, True])
def test_vllm_one_token_run_has_no_tpot_or_itl(tmp_path: Path, detailed: bool) -> None:
    result = _one_token(vllm_result(requests(n=12, seed=3), detailed=detailed), detailed)
    (run,) = read_input(write_json(tmp_path / "one.json", result)).runs
    assert run.tpot is None
    assert run.itl is None
    assert run.ttft is not None
    assert run.ttft.mean_ms == pytest.approx(result["mean_ttft_ms"])
    said = [w for w in run.warnings if "not measured, not 0 ms" in w]
    assert [w.split(":")[0] for w in said] == ["tpot", "itl"]


def test_sglang_one_token_run_has_no_tpot_or_itl(tmp_path: Path) -> None:
    result = _one_token(sglang_result(requests(n=12, seed=4), details=False), False)
    (run,) = read_input(write_jsonl(tmp_path / "sglang.jsonl", [result])).runs
    assert run.tpot is None
    assert run.itl is None


def test_a_measured_tpot_is_kept(tmp_path: Path) -> None:
    result = vllm_result(requests(n=12, seed=3), detailed=False)
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.tpot is not None
    assert run.tpot.mean_ms == pytest.approx(result["mean_tpot_ms"])


def test_reference_readers_apply_the_same_rule() -> None:
    """InferenceX, llm-d reports and MLCommons' endpoint summaries share ``_reference.stats``."""
    from evidencepack.readers.formats._reference import stats

    said: list[str] = []
    assert stats("itl", {"mean": 0.0, "p50": 0.0, "p99": 0.0}, scale=1e-6, warnings=said) is None
    assert said
    assert "not measured, not 0 ms" in said[0]
    ttft = stats("ttft", {"mean": 0.0}, scale=1.0, warnings=said)
    assert ttft is not None
    assert len(said) == 1
