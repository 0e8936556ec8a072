"""The MLPerf Endpoints checker's per-point rules and the publication status at a decision's date.

Per point: the concurrency's region, the minimum duration of its region (600 s Ultra Low, 1,200 s
elsewhere) over the steady-state window when there is one, the steady-state basis (windowable and
STEADY STATE, else the whole-run total; a drifting metric is a range), load pattern and streaming,
metric consistency (accounting, duration, system_tps, TPOT p90, ``tps_per_user = 1000 /
tpot_p90_ms``) and ``tps_utilization``. Publication (rules, publication status): a Preview past its
available-by date, an RDI result and a Serviced result without prices are findings.
"""

from __future__ import annotations

import datetime as dt
import math

from .endpoints_models import EndpointsCheck, EndpointsCurve, EndpointsPoint, Layout
from .endpoints_rules import (
    DEFAULT_MIN_DURATION_S,
    MIN_DURATION_S,
    RDI_COOLING_OFF_DAYS,
    TPS_REL_TOL,
    UTILIZATION_ABS_TOL,
    make_check,
)

_SSTATUS = ("windowable", "insufficient_duration", "insufficient_passes", "partial_dataset")
_SVERDICT = ("STEADY STATE", "drifting_up", "drifting_down", "anomaly", "not found")


def point_checks(
    layout: Layout, point: EndpointsPoint, curve_max_tps: float | None, utilization: float | None
) -> list[EndpointsCheck]:
    """The per-point rules: range, durations, steady state, metric consistency, utilization."""
    c = point.concurrency
    out: list[EndpointsCheck] = []
    if point.region is not None and point.region != "offline":
        out.append(
            make_check(
                "concurrency-in-range",
                "flag",
                point.region != "out_of_range",
                "a region, the 10% margin included",
                point.region,
                c,
            )
        )
    if point.region is not None and point.region != "offline":
        minimum = MIN_DURATION_S.get(point.region, DEFAULT_MIN_DURATION_S)
        basis, span = (
            ("steady-state window", point.window_s)
            if point.window_s is not None
            else ("whole run", point.duration_s)
        )
        out.append(
            make_check(
                "point-duration",
                "flag",
                None if span is None else span >= minimum,
                f">= {minimum:.0f} s ({point.region})",
                "not stated" if span is None else f"{basis} {span:.6g} s",
                c,
            )
        )
    if layout == "v1.0":
        out.append(_steady_basis(point))
        consistency = _steady_consistency(point)
        if consistency is not None:
            out.append(consistency)
        if point.offline != "dedicated":
            out.append(
                make_check(
                    "load-pattern",
                    "reject_points",
                    point.load_pattern == "concurrency",
                    "load_pattern concurrency",
                    repr(point.load_pattern),
                    c,
                )
            )
        out.append(
            make_check(
                "streaming-config",
                "flag",
                point.stream_all_chunks is True,
                "stream_all_chunks true",
                repr(point.stream_all_chunks),
                c,
            )
        )
        out += _metric_checks(point)
        if utilization is not None and curve_max_tps and point.system_tps is not None:
            expected = point.system_tps / curve_max_tps
            out.append(
                make_check(
                    "tps-utilization",
                    "flag",
                    abs(utilization - expected) <= UTILIZATION_ABS_TOL,
                    f"system_tps / curve max = {expected:.4f}",
                    f"{utilization}",
                    c,
                )
            )
    return out


def _steady_basis(point: EndpointsPoint) -> EndpointsCheck:
    c = point.concurrency
    if point.offline == "dedicated":
        return make_check(
            "steady-state-basis",
            "info",
            None,
            "steady-state window",
            "dedicated Offline run: whole-run total",
            c,
        )
    if point.steady_status is None:
        return make_check(
            "steady-state-basis",
            "warn",
            False,
            "a steady_state block",
            "none: whole-run figures",
            c,
        )
    valid = point.steady_status in _SSTATUS and (point.steady_verdict in _SVERDICT)
    if not valid:
        return make_check(
            "steady-state-valid",
            "info",
            False,
            "permitted status and verdict",
            f"{point.steady_status} / {point.steady_verdict}",
            c,
        )
    if point.steady_verdict in ("drifting_up", "drifting_down"):
        return make_check(
            "steady-state-basis",
            "warn",
            False,
            "STEADY STATE",
            f"{point.steady_verdict}: a range, never a point",
            c,
        )
    return make_check(
        "steady-state-basis",
        "warn",
        point.steady_official,
        "windowable and STEADY STATE (the window is the official result)",
        f"{point.steady_status} / {point.steady_verdict}"
        + ("" if point.steady_official else ": whole-run total is the official result"),
        c,
    )


MIN_SUPER_PASSES = 4
"""The trend test needs 4 super-passes (``MIN_TREND_N``): a window spans at least 4."""


def _steady_consistency(point: EndpointsPoint) -> EndpointsCheck | None:
    """``steady-state-consistency``: the declared status agrees with the window it describes
    (windowable: >= 4 super-passes and the region's minimum span; insufficient_duration: >= 4
    super-passes, a shorter span; insufficient_passes: 1-3 super-passes)."""
    if point.steady_status not in _SSTATUS or point.window_super_passes is None:
        return None
    first, last = point.window_super_passes
    passes = last - first + 1
    minimum = MIN_DURATION_S.get(point.region or "", DEFAULT_MIN_DURATION_S)
    span = point.window_s
    long_enough = span is not None and span >= minimum
    expected = {
        "windowable": passes >= MIN_SUPER_PASSES and long_enough,
        "insufficient_duration": passes >= MIN_SUPER_PASSES and not long_enough,
        "insufficient_passes": 1 <= passes < MIN_SUPER_PASSES,
        "partial_dataset": passes < 1,
    }[point.steady_status or ""]
    return make_check(
        "steady-state-consistency",
        "info",
        expected,
        f"status {point.steady_status!r} matches its window (>= {MIN_SUPER_PASSES} "
        f"super-passes, >= {minimum:.0f} s for windowable)",
        f"{passes} super-pass(es) {first}-{last}, {span if span is not None else '?'} s",
        point.concurrency,
    )


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TPS_REL_TOL)


def _metric_checks(point: EndpointsPoint) -> list[EndpointsCheck]:
    c = point.concurrency
    out = []
    if point.issued is not None and point.completed is not None and point.failed is not None:
        out.append(
            make_check(
                "metric-consistency-accounting",
                "flag",
                point.completed + point.failed == point.issued,
                "completed + failed == issued",
                f"{point.completed} + {point.failed} vs {point.issued}",
                c,
            )
        )
    out.append(
        make_check(
            "metric-consistency-duration",
            "flag",
            bool(point.duration_s and point.duration_s > 0),
            "duration_ns > 0",
            f"{point.duration_s} s",
            c,
        )
    )
    if point.output_tokens is not None and point.duration_s and point.system_tps is not None:
        derived = point.output_tokens / point.duration_s
        out.append(
            make_check(
                "metric-consistency-system-tps",
                "flag",
                _close(point.system_tps, derived),
                f"output tokens / duration = {derived:.6g}",
                f"{point.system_tps:.6g}",
                c,
            )
        )
    tpot = point.tpot_p90_ms
    out.append(
        make_check(
            "metric-consistency-tpot-p90",
            "flag",
            tpot is not None and math.isfinite(tpot) and tpot > 0,
            "TPOT p90 > 0",
            f"{tpot}",
            c,
        )
    )
    if tpot and point.tps_per_user is not None:
        out.append(
            make_check(
                "metric-consistency-tps-per-user",
                "flag",
                _close(point.tps_per_user, 1000 / tpot),
                f"1000 / tpot_p90_ms = {1000 / tpot:.6g}",
                f"{point.tps_per_user:.6g}",
                c,
            )
        )
    return out


def publication_checks(curve: EndpointsCurve, as_of: dt.date | None) -> list[EndpointsCheck]:
    """Publication status at a decision's date: a Preview past its date, an RDI result or a
    Serviced result without prices is a finding; none supports a candidate as available."""
    status = (curve.availability or "").strip().lower()
    division = (curve.division or "").strip().lower()
    out: list[EndpointsCheck] = []
    if status == "preview":
        by = _date(curve.available_by)
        if as_of is None or by is None:
            ok: bool | None = None
            actual = f"Preview, available by {curve.available_by or 'no date stated'}" + (
                "" if as_of else " (no decision date to judge it at)"
            )
        else:
            ok = as_of <= by
            actual = (
                f"Preview, available by {by.isoformat()}; decision date {as_of.isoformat()}"
                + (
                    ""
                    if ok
                    else f": past its date by {(as_of - by).days} day(s) (removed unless confirmed)"
                )
            )
        out.append(
            make_check(
                "publication-preview", "flag", ok, "a Preview within its available-by date", actual
            )
        )
    elif status == "rdi" or division == "rdi":
        out.append(
            make_check(
                "publication-rdi",
                "flag",
                False,
                "Available (RDI: research, development or internal; not purchasable)",
                f"RDI (cannot be Available or Preview for {RDI_COOLING_OFF_DAYS} days)",
            )
        )
    elif status and status != "available":
        out.append(
            make_check(
                "publication-status",
                "flag",
                False,
                "Available, Preview or RDI",
                curve.availability or "",
            )
        )
    if division == "serviced":
        out.append(
            make_check(
                "publication-serviced-prices",
                "flag",
                bool(curve.prices_disclosed),
                "a Serviced (commercial API) result discloses its prices",
                "prices disclosed" if curve.prices_disclosed else "no prices disclosed",
            )
        )
    return out


def _date(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None
