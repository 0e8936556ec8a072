"""Canonical runtime and precision names: aliases meet, different things stay apart."""

from __future__ import annotations

import pytest

from evidencepack.mlperf.stack import parse_stack
from evidencepack.readers.normalise import (
    normalise_precision,
    normalise_runtime,
    serving_rank,
    versions_match,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("TensorRT-LLM", "trtllm"),
        ("tensorrt_llm", "TRT-LLM"),
        ("vLLM", "vllm"),
        ("torch", "PyTorch"),
        # llama.cpp's server names itself "llamacpp" in its metrics; the pip package xllamacpp
        ("llama.cpp", "llamacpp"),
        ("llama-server", "xllamacpp"),
    ],
)
def test_runtime_aliases_meet(a: str, b: str) -> None:
    assert normalise_runtime(a) == normalise_runtime(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("TensorRT-LLM", "TensorRT"),
        ("vllm", "sglang"),
        ("TensorRT Edge-LLM", "trtllm"),
        ("llama.cpp", "vllm"),
    ],
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


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("v0.9.2", "0.9.2", True),
        ("1.0.0+cu128", "1.0.0", True),
        ("0.21.0-rocm", "0.21.0", True),
        ("v0.10.1.1", "0.10.1.1", True),
        ("1.0.0-rc1", "1.0.0rc1", True),
        ("0.9.2", "0.9.1", False),
        ("0.9.20", "0.9.2", False),
        ("0.9", "0.9.2", False),
        ("0.9.2", "0.9.2.1", False),
        ("0.9.2rc1", "0.9.2", False),
        # a development build precedes its release: it is not the release that was frozen
        ("0.9.2.dev108+g71f", "0.9.2", False),
        ("v0.10.1.1", "0.10.1", False),
    ],
)
def test_versions_match_with_real_version_semantics(a: str, b: str, same: bool) -> None:
    """Real runtime version strings: local builds are the same release, nothing else is."""
    assert versions_match(a, b) is same
    assert versions_match(b, a) is same


def test_serving_rank_picks_the_engine_over_its_framework() -> None:
    """Of the runtimes a real stack text names, the serving engine ranks first."""
    stack = parse_stack({"framework": "PyTorch 2.7.0, vLLM 0.9.2", "other_software_stack": None})
    names = sorted((c.name for c in stack.of_kind("runtime")), key=serving_rank)
    assert names == ["vLLM", "PyTorch"]
    assert serving_rank("TensorRT-LLM") < serving_rank("TensorRT") < serving_rank("Saxml") == 99


def test_an_http_client_is_never_the_runtime() -> None:
    """lm-eval's local-completions client sent the requests; it served nothing."""
    from evidencepack.analyze.gather import _observed
    from evidencepack.readers.models import Identity

    seen = _observed(Identity(runtime_name="local-completions", runtime_version="0.4.8"))
    assert (seen.runtime, seen.runtime_version) == (None, None)
    served = _observed(Identity(runtime_name="vllm", runtime_version="0.9.2"))
    assert (served.runtime, served.runtime_version) == ("vllm", "0.9.2")
