"""What the readers of public reference results share: the stack read from a container image
tag, latency distributions in the source's unit, and the ParsedInput of reference points.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...core.provenance import FileRecord
from .._runs import not_measured, tool_stats
from ..base import ParsedInput, with_tool
from ..models import Definition, LatencyMetric, LatencyStats, ReferencePoint

# Image repository words -> the runtime they ship (the first that matches wins).
_RUNTIMES = (
    ("sglang", "sglang"),
    ("tensorrt", "tensorrt-llm"),
    ("trtllm", "tensorrt-llm"),
    ("llm-d", "llm-d"),
    ("vllm", "vllm"),
    ("dynamo", "dynamo"),
)
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)+(?:[.\-+]?[A-Za-z0-9]+)*)$")


def stack_of_image(image: str | None) -> tuple[str | None, str | None, list[str]]:
    """(runtime, version, warnings) from an image reference such as
    ``vllm/vllm-openai-rocm:v0.21.0`` or ``ghcr.io/llm-d/llm-d-cuda:0.3.1``; a tag that is not a
    version (``latest``, a digest) leaves the version unknown, said in the warnings."""
    if not image:
        return None, None, ["no container image is named: the stack version is unknown"]
    name, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    repo = name.rsplit("/", 1)[-1].lower()
    runtime = next((rt for word, rt in _RUNTIMES if word in repo), repo or None)
    match = _VERSION.match(tag.split("@", 1)[0]) if tag else None
    if match is None:
        return runtime, None, [f"image {image!r} has no version tag: the stack version is unknown"]
    return runtime, match.group(1), []


def stats(
    metric: LatencyMetric,
    values: Mapping[str, float | None],
    *,
    scale: float,
    definition: Definition | None = None,
    extra: Mapping[str, float | None] | None = None,
    warnings: list[str] | None = None,
) -> LatencyStats | None:
    """A source's distribution as LatencyStats in ms (``scale`` converts the source's unit).
    A TPOT or ITL of 0 in every statistic (no request had a second token) is not measured:
    None, said in ``warnings`` where the caller keeps them."""
    found = tool_stats(metric, values, definition=definition, scale=scale, extra=extra)
    unmeasured = not_measured(found)
    if unmeasured is None:
        return found
    if warnings is not None:
        warnings.append(unmeasured)
    return None


def parsed_references(
    format_id: str,
    record: FileRecord,
    tool: str,
    version: str | None,
    points: list[ReferencePoint],
    file_warnings: list[str],
) -> ParsedInput:
    """The ParsedInput of a file of reference points: every warning, the point's prefixed."""
    per_point = [f"{p.point_id}: {w}" for p in points for w in p.warnings]
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, tool, version, file_warnings),
        references=tuple(points),
        warnings=tuple(file_warnings + per_point),
    )
