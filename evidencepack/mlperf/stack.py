"""Parse a system's free-text software stack into comparable components, keeping the raw text.

``framework`` and ``other_software_stack`` are free text (``"vLLM 0.9.0.2.dev108+g71f...,
Pytorch 2.7.0+gitf717b2a, ROCm 6.4.1..."``, ``"TensorRT 10.11, CUDA 12.9"``) or, in a few
files, a dict. Each known component becomes (kind, name, version); unknown text stays in the
raw string only. Kinds: ``runtime`` (the serving or inference engine), ``platform`` (CUDA,
ROCm, ...), ``library``, ``driver``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from ..core._models import StrictModel

Kind = Literal["runtime", "platform", "library", "driver"]

# underscores end a version: "rocm6.4.1_vllm_0.9.1" is ROCm 6.4.1
_VERSION = r"(?P<version>\d[A-Za-z0-9.+~-]*)"
# separators seen between a name and its version: space, ":", "==", "-", "_", "(v", " v"
_SEP = r"(?:\s*(?:==|:|=|\(|-|_)?\s*v?)"

# (kind, canonical name, pattern). Order matters: TensorRT-LLM before TensorRT.
_COMPONENTS: tuple[tuple[Kind, str, str], ...] = (
    ("runtime", "TensorRT-LLM", r"tensorrt[-_ ]?llm|trt[-_ ]?llm"),
    ("runtime", "TensorRT Edge-LLM", r"tensorrt edge[- ]llm"),
    ("runtime", "TensorRT", r"tensorrt(?![-_ ]?(?:llm|edge))"),
    ("runtime", "vLLM", r"vllm(?![-_]openai)"),
    ("runtime", "SGLang", r"sglang"),
    ("runtime", "Dynamo", r"dynamo"),
    ("runtime", "LLMBoost", r"mango llmboost(?: ai enterprise platform)?|llmboost"),
    ("runtime", "Saxml", r"saxml"),
    ("runtime", "PyTorch", r"pytorch|torch"),
    ("runtime", "JAX", r"jax"),
    ("runtime", "ONNX Runtime", r"onnx\s?runtime"),
    ("runtime", "OpenVINO", r"openvino"),
    ("platform", "CUDA", r"cuda(?!_driver)(?:_version)?"),
    ("platform", "ROCm", r"rocm"),
    ("platform", "SynapseAI", r"synapse\s?ai"),
    ("platform", "libtpu", r"libtpu(?:_nightly)?"),
    ("library", "cuDNN", r"cudnn"),
    ("library", "hipBLASLt", r"hipblas(?:lt|t)"),
    ("library", "flash-attn", r"flash[-_]attn"),
    ("library", "AITER", r"aiter"),
    ("driver", "Driver", r"(?:cuda_)?driver(?:_version)?"),
)
_COMPILED = tuple(
    (kind, name, re.compile(rf"(?<![\w.])(?:{pattern})(?:{_SEP}{_VERSION})?", re.IGNORECASE))
    for kind, name, pattern in _COMPONENTS
)
_PRECISION = re.compile(
    r"(?<![\w])(mxfp4|nvfp4|fp4|fp6|fp8|int4|uint4|int8|bf16|bfloat16|fp16|float16|fp32)(?![\w])",
    re.IGNORECASE,
)


class StackComponent(StrictModel):
    """One recognised piece of a software stack, with the text it was read from."""

    kind: Kind = Field(
        description=(
            "runtime (serving or inference engine), platform (CUDA, ROCm, ...), library or driver"
        )
    )
    name: str = Field(description="the component's canonical name (e.g. vLLM, TensorRT-LLM, ROCm)")
    version: str | None = Field(
        default=None, description="the version written after the name; None when none is written"
    )
    field: str = Field(
        description=(
            "the system description's field it was read from (framework or other_software_stack)"
        )
    )
    text: str = Field(description="the text it was read from, as written")


class Stack(StrictModel):
    """A parsed stack: components in the order written (framework first), and the raw text."""

    components: tuple[StackComponent, ...] = ()
    precision_hint: str | None = None
    raw: str = ""

    def of_kind(self, kind: Kind) -> tuple[StackComponent, ...]:
        """The components of one kind, in the submitter's order."""
        return tuple(c for c in self.components if c.kind == kind)

    @property
    def runtime(self) -> StackComponent | None:
        """The primary runtime: the first one the submitter named."""
        runtimes = self.of_kind("runtime")
        return runtimes[0] if runtimes else None


def stack_text(value: object) -> str:
    """A stack field as one string: dicts become ``key: value`` pairs, None empty."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(stack_text(v) for v in value)
    return str(value)


def parse_stack(fields: dict[str, object]) -> Stack:
    """Parse ``{"framework": ..., "other_software_stack": ...}`` (in that order) into a Stack."""
    found: dict[tuple[str, str], tuple[int, int, StackComponent]] = {}
    raw_parts: list[str] = []
    precision = None
    for order, (field, value) in enumerate(fields.items()):
        text = normalise_space(stack_text(value))
        if not text:
            continue
        raw_parts.append(f"{field}: {text}")
        if precision is None and (match := _PRECISION.search(text)):
            precision = match.group(1).lower()
        taken: list[tuple[int, int]] = []
        for kind, name, pattern in _COMPILED:
            for match in pattern.finditer(text):
                span = match.span()
                if any(a < span[1] and span[0] < b for a, b in taken):
                    continue  # already part of a longer name (TensorRT-LLM vs TensorRT)
                taken.append(span)
                version = match.group("version")
                component = StackComponent(
                    kind=kind,
                    name=name,
                    version=version.rstrip(".-") if version else None,
                    field=field,
                    text=match.group(0),
                )
                earlier = found.get((kind, name))
                # the first mention wins, unless only a later one carries the version
                if earlier is None or (earlier[2].version is None and component.version):
                    position = earlier[:2] if earlier else (order, span[0])
                    found[(kind, name)] = (*position, component)
    ordered = sorted(found.values(), key=lambda item: (item[0], item[1]))
    return Stack(
        components=tuple(c for _, _, c in ordered),
        precision_hint=precision,
        raw="; ".join(raw_parts),
    )


def normalise_space(text: str) -> str:
    """Collapse whitespace, including U+202F and other Unicode spaces, and strip."""
    return " ".join(text.replace("\u202f", " ").replace("\u00a0", " ").split())
