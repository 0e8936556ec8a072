"""Canonical runtime and precision names: aliases meet, different things stay apart."""

from __future__ import annotations

import pytest

from evidencepack.analyze.normalise import (
    normalise_precision,
    normalise_runtime,
    serving_rank,
    versions_match,
)
from evidencepack.mlperf.stack import parse_stack


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("TensorRT-LLM", "trtllm"),
        ("tensorrt_llm", "TRT-LLM"),
        ("vLLM", "vllm"),
        ("torch", "PyTorch"),
    ],
)
def test_runtime_aliases_meet(a: str, b: str) -> None:
    assert normalise_runtime(a) == normalise_runtime(b)


@pytest.mark.parametrize(
    ("a", "b"), [("TensorRT-LLM", "TensorRT"), ("vllm", "sglang"), ("TensorRT Edge-LLM", "trtllm")]
)
def test_different_runtimes_stay_apart(a: str, b: str) -> None:
    assert normalise_runtime(a) != normalise_runtime(b)


def test_unknown_runtime_compared_as_written() -> None:
    assert normalise_runtime("  ONNX   Runtime ") == "onnx-runtime"
    assert normalise_runtime(None) is None


def test_precisions() -> None:
    assert normalise_precision("torch.bfloat16") == normalise_precision("BF16") == "bf16"
    assert normalise_precision("float8_e4m3fn") == "fp8"
    assert normalise_precision("fp8") != normalise_precision("fp16")
    assert normalise_precision("FP6") == "fp6"


def test_versions_match_local_builds_not_other_releases() -> None:
    assert versions_match("v0.9.2", "0.9.2")
    assert versions_match("0.9.2.dev108+g71f", "0.9.2")
    assert versions_match("1.0.0+cu128", "1.0.0")
    assert not versions_match("0.9.2", "0.9.1")
    assert not versions_match("0.9.20", "0.9.2")


def test_serving_rank_picks_the_engine_over_its_framework() -> None:
    """Of the runtimes a real stack text names, the serving engine ranks first."""
    stack = parse_stack({"framework": "PyTorch 2.7.0, vLLM 0.9.2", "other_software_stack": None})
    names = sorted((c.name for c in stack.of_kind("runtime")), key=serving_rank)
    assert names == ["vLLM", "PyTorch"]
    assert serving_rank("TensorRT-LLM") < serving_rank("TensorRT") < serving_rank("Saxml") == 99
