"""Canonical names of runtimes and precisions, so that evidence from different tools compares.

``mlperf.stack`` finds runtime names in a submission's free text and names them for display
("TensorRT-LLM", "vLLM"); this module says when two names mean the same runtime, precision or
release, for the analysis and for picking a stack's serving engine.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

_PRECISIONS = {
    "fp8": ("fp8", "float8", "float8_e4m3fn", "e4m3", "fp8_e4m3"),
    "bf16": ("bf16", "bfloat16"),
    "fp16": ("fp16", "float16", "half"),
    "fp32": ("fp32", "float32", "float"),
    "fp4": ("fp4", "nvfp4", "mxfp4"),
    "int8": ("int8", "w8a8"),
    "int4": ("int4", "w4a16", "awq", "gptq"),
}
_RUNTIMES = {
    "tensorrt-llm": ("tensorrt-llm", "tensorrt_llm", "trtllm", "trt-llm", "tensorrtllm"),
    "vllm": ("vllm",),
    "sglang": ("sglang",),
    "tgi": ("tgi", "text-generation-inference"),
    "tensorrt": ("tensorrt", "trt"),
    "pytorch": ("pytorch", "torch"),
    "llama.cpp": ("llama.cpp", "llamacpp", "llama-cpp", "llama_cpp", "llama-server", "xllamacpp"),
}
SERVING_RUNTIMES = ("tensorrt-llm", "vllm", "sglang", "tensorrt", "dynamo", "llmboost", "llama.cpp")
"""Serving engines by canonical name, most specific first: of the runtimes a stack names
(vLLM on PyTorch, TensorRT-LLM with TensorRT), the first listed here is the one that serves."""


def normalise_precision(value: str | None) -> str | None:
    """The canonical precision ("bf16" for "bfloat16" or "torch.bfloat16"); unknown: lower-cased."""
    if value is None:
        return None
    text = value.strip().lower().replace("torch.", "")
    for canonical, aliases in _PRECISIONS.items():
        if text in aliases:
            return canonical
    return text


def normalise_runtime(value: str | None) -> str | None:
    """The canonical runtime ("tensorrt-llm" for "TensorRT-LLM" or "trtllm"); unknown: lower-cased
    with spaces as hyphens."""
    if value is None:
        return None
    text = re.sub(r"\s+", "-", value.strip().lower())
    for canonical, aliases in _RUNTIMES.items():
        if text in aliases:
            return canonical
    return text


def serving_rank(name: str) -> int:
    """Where a runtime stands in ``SERVING_RUNTIMES`` (99 for one that does not serve)."""
    key = normalise_runtime(name)
    return SERVING_RUNTIMES.index(key) if key in SERVING_RUNTIMES else 99


def release(text: str) -> Version | None:
    """A runtime version string as a PEP 440 version without its local build part, or None.

    Build variants are local parts: ``1.0.0+cu128`` and ``0.21.0-rocm`` are releases 1.0.0 and
    0.21.0 built for CUDA 12.8 and ROCm; ``v0.10.1.1`` is 0.10.1.1. Pre-releases, development
    builds and post-releases stay what they are: ``0.9.2rc1`` and ``0.9.2.dev108`` are not 0.9.2.
    """
    text = text.strip()
    if text[:1] in ("v", "V"):
        text = text[1:]
    for candidate in (text, re.split(r"[+]|-(?=[A-Za-z_][A-Za-z0-9_.]*$)", text, maxsplit=1)[0]):
        try:
            return Version(Version(candidate).public)
        except InvalidVersion:
            continue
    return None


def versions_match(a: str, b: str) -> bool:
    """Same release, with real version semantics: equal public versions (``0.9`` is not
    ``0.9.2``, ``0.9.2`` is not ``0.9.2.1``, a release candidate or development build is not the
    release), whatever local build each carries (``1.0.0+cu128``, ``0.21.0-rocm``). Strings that
    are no version at all must be equal."""
    left, right = release(a), release(b)
    if left is None or right is None:
        return a.strip().lower().lstrip("v") == b.strip().lower().lstrip("v")
    return left == right
