"""MLCommons' endpoint tool (``inference-endpoint``, github mlcommons/endpoints):
``result_summary.json``, which MLPerf Inference v6.1 accepts as a submission's performance result.

Detected by ``n_samples_issued`` + ``n_samples_completed`` + ``duration_ns`` and ``ttft``/
``latency`` distributions. Times are nanoseconds (``min``, ``max``, ``median``, ``avg``,
``std_dev``, ``percentiles`` keyed ``"99.0"``..); ``qps`` is requests/s and ``tps`` output
tokens/s; ``run_config.load_pattern`` gives the load (``type``, ``target_qps``,
``target_concurrency``). Both layouts seen are read: the earlier one, and the later one that adds
``early_stopping_percentiles`` (MLPerf's early-stopping bounds, named in a warning and not read)
and ``finish_reason_counts`` (kept as settings). The tool version is ``version`` and ``git_sha``.
The file names no model, accelerator or publisher: those belong to the submission it is part of.
"""

from __future__ import annotations

from typing import Any

from ...core.provenance import FileRecord
from .._json import Node
from .._runs import unbounded_rate
from ..base import Format, ParsedInput, Probe, item_id
from ..models import LatencyMetric, ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references, stats

_NS_TO_MS = 1e-6
_SLOTS: tuple[tuple[LatencyMetric, str], ...] = (("ttft", "ttft"), ("tpot", "tpot"),
                                                 ("e2e", "latency"))  # fmt: skip
_MAIN = {"p50": "50.0", "p90": "90.0", "p95": "95.0", "p99": "99.0"}
_READ = {
    "version", "git_sha", "test_started_at", "n_samples_issued", "n_samples_completed",
    "n_samples_failed", "duration_ns", "state", "complete", "ttft", "tpot", "latency",
    "output_sequence_lengths", "qps", "tps", "run_config", "finish_reason_counts",
    "legacy_loadgen_window_duration_ns",
}  # fmt: skip


def detect(probe: Probe) -> bool:
    """The endpoint tool's ``result_summary.json``: sample counts, ``duration_ns``, ``ttft``."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, dict)
        and all(k in doc for k in ("n_samples_issued", "n_samples_completed", "duration_ns"))
        and isinstance(doc.get("ttft"), dict)
        and isinstance(doc.get("latency"), dict)
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One measured-elsewhere reference point: the run the summary describes."""
    root = Node(probe.first, probe.name)
    doc: dict[str, Any] = probe.first
    warnings = [
        "the result names no model, accelerator or publisher (they are the submission's): "
        "state them where you cite it"
    ]
    version = " ".join(x for x in (root.str_("version"), _sha(root)) if x) or None
    if root.value.get("complete") is False or root.str_("state") not in (None, "complete"):
        warnings.append(f"the run did not complete (state {root.str_('state')!r}): a partial run")
    latency = {}
    early = []
    for slot, key in _SLOTS:
        node = root.obj(key)
        if node is None:
            continue
        if node.has("early_stopping_percentiles"):
            early.append(key)
        pct = node.obj("percentiles")
        values: dict[str, float | None] = {
            "mean": node.num("avg"),
            "min": node.num("min"),
            "max": node.num("max"),
            "std": node.num("std_dev"),
            **{ours: pct.num(theirs) if pct else None for ours, theirs in _MAIN.items()},
        }
        if values["p50"] is None:
            values["p50"] = node.num("median")
        extra = (
            {_label(pct, k): pct.num(k) for k in pct.value if k not in _MAIN.values()}
            if pct
            else {}
        )
        latency[slot] = stats(slot, values, scale=_NS_TO_MS, extra=extra, warnings=warnings)
    if early:
        warnings.append(
            "early_stopping_percentiles (MLPerf's early-stopping bounds) of "
            + ", ".join(early) + " are not read"
        )  # fmt: skip
    unused = sorted(k for k in doc if k not in _READ)
    if unused:
        warnings.append("field(s) this reader has no place for were dropped: " + ", ".join(unused))
    if any(isinstance(v, dict) and "histogram" in v for v in doc.values()):
        warnings.append("the distributions' histograms are not read")
    completed = root.int_("n_samples_completed")
    duration_ns = root.num("duration_ns")
    point = ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=FORMAT.id,
        source_tool="inference-endpoint",
        tool_version=version,
        provenance="measured_elsewhere",
        load=_load(root),
        figures=ReferenceFigures(
            output_throughput=root.num("tps"),
            request_throughput_per_s=root.num("qps"),
            ttft=latency.get("ttft"),
            tpot=latency.get("tpot"),
            e2e=latency.get("e2e"),
            requests_completed=completed,
            requests_failed=root.int_("n_samples_failed"),
            duration_s=None if duration_ns is None else duration_ns / 1e9,
        ),
        settings=_finish_reasons(root.obj("finish_reason_counts")),
        warnings=tuple(warnings),
    )
    return parsed_references(FORMAT.id, record, "inference-endpoint", version, [point], [])


def _finish_reasons(node: Node | None) -> dict[str, str | int | float | bool | None]:
    """How the responses ended (later layout), as settings: ``finish_reason.tool_calls`` etc."""
    if node is None:
        return {}
    return {f"finish_reason.{k}": v for k, v in node.value.items() if isinstance(v, int)}


def _label(pct: Node, key: str) -> str:
    """``"99.9"`` -> ``p99.9``; a key that is no percentile is an error naming it."""
    try:
        return f"p{float(key):g}"
    except ValueError as exc:
        raise pct.child(key).error("not a percentile (expected a number such as 99.0)") from exc


def _sha(root: Node) -> str | None:
    sha = root.str_("git_sha")
    return f"({sha})" if sha else None


def _load(root: Node) -> ReferenceLoad:
    pattern = root.path("run_config", "load_pattern").obj()
    osl = root.path("output_sequence_lengths").num("avg")
    if pattern is None:
        return ReferenceLoad(output_tokens=osl)
    raw = pattern.value.get("target_qps")
    rate = None if unbounded_rate(raw) else pattern.num("target_qps")  # a sentinel: no limit
    concurrency = pattern.int_("target_concurrency")
    kind = (
        "open_loop" if rate else "single_stream" if concurrency == 1
        else "fixed_concurrency" if concurrency else None
    )  # fmt: skip
    return ReferenceLoad(
        kind=kind,  # type: ignore[arg-type]
        concurrency=concurrency,
        request_rate_per_s=rate,
        output_tokens=osl,
        workload=pattern.str_("type"),
    )


FORMAT = Format("inference-endpoint-summary", "references", "inference-endpoint", detect, parse)
