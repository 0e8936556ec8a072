"""Where each guidellm ``benchmarks.json`` layout keeps things.

- ``v0.3``: benchmarks carry ``args`` (with ``strategy``), ``run_stats``, ``worker``,
  top-level ``request_totals``/``request_samples``; requests are ``generative_text_response``.
- ``v0.4``: benchmarks carry ``scheduler`` (with ``strategy``) and ``benchmarker`` (with
  ``backend``), ``run_stats`` and ``request_totals``; requests are ``generative_request_stats``.
- ``v0.5-0.6``: the report has ``args`` (and, later, ``metadata`` v1); benchmarks carry
  ``config`` (``strategy``, ``backend``), ``scheduler_state``/``scheduler_metrics`` and
  ``metrics.request_totals``.
- ``v0.7+``: the report has ``metadata`` (version 2, ``guidellm_version``) and ``config.spec``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._json import Node
from .._runs import unbounded_rate
from ..models import Load


@dataclass(frozen=True)
class Layout:
    """Which GuideLLM report layout a file uses (``v0.3``, ``v0.4``, later) and its version."""

    name: str
    version: str | None


def layout_of(root: Node) -> Layout:
    """The layout of a GuideLLM report, from the version in its metadata and its shape."""
    doc = root.value
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else None
    version = meta.get("guidellm_version") if meta else None
    version = version if isinstance(version, str) else None
    if isinstance(doc.get("config"), dict) and (
        "spec" in doc["config"] or (meta or {}).get("version", 0) >= 2
    ):
        return Layout("v0.7+", version)
    if "args" in doc:
        return Layout("v0.5-0.6", version)
    first = next(iter(root.items("benchmarks")), None)
    bench = first.value if first is not None and isinstance(first.value, dict) else {}
    if "scheduler" in bench and "benchmarker" in bench:
        return Layout("v0.4", version)
    if "args" in bench and "run_stats" in bench:
        return Layout("v0.3", version)
    if "config" in bench and ("scheduler_metrics" in bench or "scheduler_state" in bench):
        return Layout("v0.5-0.6", version)
    return Layout("unknown", version)


def strategy(bench: Node, layout: Layout) -> Node | None:
    """A benchmark's load strategy object, wherever its layout keeps it."""
    path = {
        "v0.3": ("args", "strategy"),
        "v0.4": ("scheduler", "strategy"),
    }.get(layout.name, ("config", "strategy"))
    return bench.path(*path).obj()


def load_of(strat: Node | None) -> Load:
    """The load a strategy object describes (its type, rate or concurrency)."""
    if strat is None:
        return Load()
    kind = (strat.str_("type_") or "").lower()
    if unbounded_rate(strat.value.get("rate")) and kind not in ("concurrent", "throughput"):
        # a sentinel rate (1e9, inf): bounded only by its concurrency cap, as vLLM's is
        cap = strat.int_("max_concurrency")
        return Load(kind="closed_loop", concurrency=cap) if cap else Load(kind="offline")
    rate = strat.num("rate")
    if kind == "synchronous":
        return Load(kind="closed_loop", concurrency=1)
    if kind == "concurrent":
        streams = strat.int_("streams") or strat.int_("max_concurrency")
        return Load(kind="closed_loop", concurrency=streams)
    if kind == "throughput":
        return Load(kind="offline", concurrency=strat.int_("max_concurrency"))
    if "poisson" in kind:
        return Load(kind="open_loop", request_rate_per_s=rate, arrival="poisson")
    if "constant" in kind:
        return Load(kind="open_loop", request_rate_per_s=rate, arrival="constant")
    if kind in ("trace", "replay"):
        return Load(kind="open_loop", arrival="trace")
    return Load()


def model_of(bench: Node, root: Node, layout: Layout) -> str | None:
    """The model a benchmark ran, from the benchmark or else from the report."""
    paths: dict[str, tuple[str, ...]] = {
        "v0.3": ("worker", "backend_model"),
        "v0.4": ("benchmarker", "backend", "model"),
    }
    value = bench.path(*paths.get(layout.name, ("config", "backend", "model"))).value
    if isinstance(value, str) and value:
        return value
    for path in (("config", "spec", "backend", "model"), ("args", "model")):
        value = root.path(*path).value
        if isinstance(value, str) and value:
            return value
    return None


def request_totals(bench: Node, layout: Layout) -> Node | None:
    """A benchmark's request totals, wherever its layout keeps them."""
    if layout.name in ("v0.3", "v0.4"):
        return bench.obj("request_totals") or bench.path("metrics", "request_totals").obj()
    return bench.path("metrics", "request_totals").obj() or bench.obj("request_totals")


def backend_kind(bench: Node, layout: Layout) -> str | None:
    """The kind of backend GuideLLM drove, wherever its layout keeps it."""
    paths = {
        "v0.3": ("worker", "backend_type"),
        "v0.4": ("benchmarker", "backend", "type_"),
    }.get(layout.name, ("config", "backend", "kind"))
    value = bench.path(*paths).value
    return value if isinstance(value, str) else None
