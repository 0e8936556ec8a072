"""Canonical names of runtimes and precisions, so that evidence from different tools compares.

``mlperf.stack`` finds runtime names in a submission's free text and names them for display
("TensorRT-LLM", "vLLM"); this module says when two names mean the same runtime or precision,
for the readers (a measured run's serving engine) and for the analysis (``analyze/normalise.py``).
"""

from __future__ import annotations

import re

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
}
SERVING_RUNTIMES = ("tensorrt-llm", "vllm", "sglang", "tensorrt", "dynamo", "llmboost")
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
