"""MLPerf Endpoints curves cited under ``evidence.references``: each point a reference point.

A folder holding MLPerf Endpoints curves (a v1.0 bundle or v0.7 results; ``mlperf/
endpoints_read.py``) is read whole from the build's private copies, its rules re-applied, and
each point of each curve becomes a ``ReferencePoint`` measured elsewhere: its fixed concurrency,
system tokens/s (per accelerator too), the per-user rate under the layout's own definition
(v1.0 ``1000 / tpot_p90_ms``; v0.7 ``system_tps / concurrency``), TTFT at the layout's percentile,
and as warnings every rule the curve or the point fails and the publication status at the
decision's date (a Preview past its date, RDI, a Serviced result without prices). It never sizes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..errors import InputError
from ..mlperf.context import ImportContext
from ..mlperf.endpoints_build import build_curve
from ..mlperf.endpoints_checks import publication_checks
from ..mlperf.endpoints_models import EndpointsCurve, EndpointsPoint
from ..mlperf.endpoints_read import CurveFiles, find_endpoints
from ..readers.models import LatencyStats, ReferenceFigures, ReferenceLoad, ReferencePoint
from .collect import Collector
from .records import FileProblem, InputFile

SOURCE_TOOL = "mlperf-endpoints"
PER_USER = {
    "v1.0": "1000 / TPOT p90 (MLPerf Endpoints v1.0)",
    "v0.7": "system tok/s / concurrency (MLPerf Endpoints v0.7)",
}
"""How each layout defines its per-user rate (``tps_per_user``)."""
FINDING = "MLPerf Endpoints "
"""Warnings that start so are the rules' findings: C1 reads them (``analyze/public.py``)."""


def endpoints_curves(source: Path) -> list[CurveFiles]:
    """The Endpoints curves in a cited folder (none for a file or another kind of folder)."""
    return list(find_endpoints(source)) if source.is_dir() else []


def _ttft(curve: EndpointsCurve, point: EndpointsPoint) -> LatencyStats | None:
    if not point.ttft_ms:
        return None
    shown = {k: v for k, v in point.ttft_ms.items() if k not in ("50", "90", "95", "99")}
    return LatencyStats(
        metric="ttft",
        definition="ttft",
        weighting="request",
        source="tool_aggregate",
        count=point.completed,
        p50_ms=point.ttft_ms.get("50"),
        p90_ms=point.ttft_p90_ms if curve.layout == "v1.0" else point.ttft_ms.get("90"),
        p95_ms=point.ttft_ms.get("95"),
        p99_ms=point.ttft_p99_ms if point.ttft_p99_ms is not None else point.ttft_ms.get("99"),
        extra_percentiles_ms=shown,
    )


def _tpot(point: EndpointsPoint) -> LatencyStats | None:
    if not point.tpot_ms:
        return None
    return LatencyStats(
        metric="tpot",
        definition="tpot_excl_first",
        weighting="request",
        source="tool_aggregate",
        count=point.completed,
        p50_ms=point.tpot_ms.get("50"),
        p90_ms=point.tpot_p90_ms,
        p95_ms=point.tpot_ms.get("95"),
        p99_ms=point.tpot_ms.get("99"),
    )


def _warnings(curve: EndpointsCurve, point: EndpointsPoint, as_of: dt.date) -> tuple[str, ...]:
    found = [
        f"{FINDING}rule {c.rule} ({c.severity}) fails"
        + (f" at r{c.point}" if c.point is not None else " for the curve")
        + f": expected {c.expected}; found {c.actual}"
        for c in curve.checks
        if c.status == "fail"
        and c.rule not in ("publication-preview",)
        and (c.point is None or c.point == point.concurrency)
    ]
    found += [
        f"{FINDING}{c.rule}: {c.actual}"
        for c in publication_checks(curve, as_of)
        if c.status == "fail"
    ]
    notes = []
    if curve.layout == "v0.7":
        notes.append("v0.7 definitions: tps_per_user = system_tps / concurrency, TTFT p99")
    if not point.steady_official and point.offline != "dedicated":
        notes.append(
            "the official figure is the whole-run total, not a steady-state window"
            + (" (a drifting metric: a range, not a point)" if point.steady_verdict else "")
        )
    if point.offline in ("dedicated", "elected"):
        notes.append(f"the Offline point ({point.offline}): the curve's throughput ceiling")
    return tuple(found + notes)


def reference_point(
    curve: EndpointsCurve, point: EndpointsPoint, index: int, sha256: str, as_of: dt.date
) -> ReferencePoint:
    """One point of a curve as a public result measured elsewhere."""
    per_user = point.tps_per_user if curve.layout == "v1.0" else point.tps_per_user_v07
    # v1.0: 1000 / TPOT p90, the per-user rate 90% of responses reach or beat (its p10);
    # v0.7: system tokens/s over the users in flight (a mean)
    key = "p10" if curve.layout == "v1.0" else "mean"
    accelerators = curve.accelerators_total
    tps = point.system_tps
    runtime = (curve.serving_framework or "").split(" ", 1)
    return ReferencePoint(
        point_id=f"{sha256[:12]}#{index}",
        index=index,
        format_id=f"mlperf-endpoints-{curve.layout}",
        source_tool=SOURCE_TOOL,
        tool_version=curve.layout,
        provenance="measured_elsewhere",
        publisher=curve.submitter,
        label=f"{curve.key} r{point.concurrency}",
        accelerator=curve.accelerator,
        accelerator_count=accelerators,
        model_name=curve.model_name or curve.model,
        precision=curve.precision,
        runtime_name=runtime[0] or None,
        runtime_version=runtime[1] if len(runtime) > 1 else None,
        load=ReferenceLoad(kind="fixed_concurrency", concurrency=point.concurrency),
        figures=ReferenceFigures(
            output_throughput=tps,
            output_throughput_per_accelerator=tps / accelerators if tps and accelerators else None,
            interactivity={key: per_user} if per_user is not None else {},
            ttft=_ttft(curve, point),
            tpot=_tpot(point),
            requests_completed=point.completed,
            requests_failed=point.failed,
            duration_s=point.window_s if point.steady_official else point.duration_s,
        ),
        settings={
            "region": point.region,
            "offline": point.offline,
            "tokens_per_s_per_kw": point.tps_per_kw,
            "power_tier": curve.power.tier,
            "steady_state": point.steady_status,
        },
        warnings=_warnings(curve, point, as_of),
    )


def read_endpoints(
    collector: Collector, curves: list[CurveFiles], as_of: dt.date
) -> tuple[list[tuple[str, InputFile, ReferencePoint]], list[FileProblem]]:
    """Every point of every curve, read from the files ``collector`` took (``add_ref`` first),
    as (label, the point's file, reference point); a curve that cannot be read is a problem."""
    files = collector.result.files

    def read(path: Path) -> tuple[Path, str, int]:
        pack_path = collector.pack_path(path)
        taken = files[pack_path]
        return collector.result.sources[pack_path], taken.sha256, taken.size_bytes

    context = ImportContext(read=read, name=collector.pack_path)
    out: list[tuple[str, InputFile, ReferencePoint]] = []
    problems: list[FileProblem] = []
    for curve_files in curves:
        try:
            curve = build_curve(curve_files, context)
        except (InputError, KeyError) as exc:
            message = exc.message if isinstance(exc, InputError) else f"not taken: {exc}"
            problems.append(FileProblem(f"{collector.pack_path(curve_files.folder)}: {message}"))
            continue
        for source in curve.sources:
            collector.annotate(
                source.path,
                fmt=f"mlperf-endpoints-{curve.layout}",
                tool=SOURCE_TOOL,
                tool_version=curve.layout,
            )
        for index, (point, path) in enumerate(zip(curve.points, curve_files.points, strict=True)):
            anchor = path / "result_summary.json" if curve.layout == "v1.0" else path
            file = files[collector.pack_path(anchor)]
            label = f"{curve.key}#r{point.concurrency}"
            out.append((label, file, reference_point(curve, point, index, file.sha256, as_of)))
    return out, problems
