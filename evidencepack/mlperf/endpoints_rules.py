"""The MLPerf Endpoints checker's rules, re-applied to a curve (rule ids as the checker names them).

Regions (rules §5.4-5.5, the reference ``compute_regions``): Ultra Low is 1 to C_min; from C_min to
C_max three equal parts in log-2 space, ``I = log2(C_max - C_min) / 3``, Low ends at
``round(C_min + 2**I)``, Medium at ``round(C_min + 2**(2I))`` (half-to-even, Python's ``round``),
High at C_max, and a 10% margin to ``ceil(1.10 C_max)`` that covers no region. C_min is the curve's
lowest concurrency clamped to 1-32. Minimum durations (§6.2): 600 s Ultra Low, 1,200 s elsewhere,
over the steady-state window when there is one. A dedicated Offline point must reach 98% of the
C_max point's ``system_tps`` at a concurrency of at least C_max (§5.7.2).

Severities as the rules assign them: reject (the submission), reject_points, flag (objection
material), warn, info. Publication status is judged at a decision's date (``publication_checks``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .endpoints_models import (
    EndpointsCheck,
    EndpointsPoint,
    EndpointsPower,
    Layout,
    Region,
    RegionBounds,
    Severity,
)

ULTRA_LOW_MAX = 32
MIN_DURATION_S = {"ultra_low": 600.0}
DEFAULT_MIN_DURATION_S = 1200.0
OFFLINE_TPS_FLOOR = 0.98
PREVIEW_DAYS = 180
RDI_COOLING_OFF_DAYS = 221
ALLOWED_MODELS = ("llama3.1-8b", "gpt-oss-120b", "deepseek-r1")
TPS_REL_TOL = 1e-3
UTILIZATION_ABS_TOL = 1e-3


def compute_regions(c_max: int, c_min: int) -> RegionBounds:
    """The reference region algorithm; ValueError for inputs it refuses."""
    if not 1 <= c_min <= ULTRA_LOW_MAX:
        raise ValueError(f"C_min must be between 1 and {ULTRA_LOW_MAX}, not {c_min}")
    if c_max <= ULTRA_LOW_MAX:
        raise ValueError(f"C_max must be > {ULTRA_LOW_MAX}, not {c_max}")
    step = math.log2(c_max - c_min) / 3
    low_end = round(c_min + 2**step)
    med_end = round(c_min + 2 ** (2 * step))
    return RegionBounds(
        c_max=c_max,
        c_min=c_min,
        ultra_low=(1, c_min),
        low=(c_min + 1, low_end),
        medium=(low_end + 1, med_end),
        high=(med_end + 1, c_max),
        margin=(c_max + 1, math.ceil(1.10 * c_max)),
    )


def derive_c_min(concurrencies: Sequence[int]) -> int:
    """C_min from the curve's own points: the lowest concurrency, clamped to 1-32."""
    return max(1, min(min(concurrencies), ULTRA_LOW_MAX))


def region_of(point: EndpointsPoint, bounds: RegionBounds) -> Region:
    """The region the rules place a point in (a dedicated Offline run counts toward none)."""
    if point.offline == "dedicated":
        return "offline"
    c = point.concurrency
    names: tuple[Region, ...] = ("ultra_low", "low", "medium", "high", "margin")
    for name in names:
        first, last = getattr(bounds, name)
        if first <= c <= last:
            return name
    return "out_of_range"


def make_check(
    rule: str,
    severity: Severity,
    ok: bool | None,
    expected: str,
    actual: str,
    point: int | None = None,
) -> EndpointsCheck:
    """One rule's verdict: ``ok`` None when it cannot be judged."""
    return EndpointsCheck(
        rule=rule,
        severity=severity,
        point=point,
        status="skip" if ok is None else ("pass" if ok else "fail"),
        expected=expected,
        actual=actual,
    )


def _fmt(bounds: tuple[int, int]) -> str:
    return f"{bounds[0]}-{bounds[1]}"


def curve_checks(
    layout: Layout,
    points: Sequence[EndpointsPoint],
    bounds: RegionBounds | None,
    *,
    c_max: int | None,
    model_name: str | None,
    differing: Sequence[str],
    power: EndpointsPower,
) -> list[EndpointsCheck]:
    """The curve-wide rules: model, one system, regions and coverage, Offline, counts, power."""
    out: list[EndpointsCheck] = []
    canonical = (model_name or "").replace("_", ".").lower()
    out.append(
        make_check(
            "model-name-valid",
            "reject",
            model_name in ALLOWED_MODELS,
            f"one of {', '.join(ALLOWED_MODELS)}",
            repr(model_name)
            + (
                f" (write {canonical!r})"
                if canonical in ALLOWED_MODELS and model_name != canonical
                else ""
            ),
        )
    )
    out.append(
        make_check(
            "system-description-consistency",
            "flag",
            not differing,
            "every point describes the same system (one system per curve)",
            "the same system at every point"
            if not differing
            else "differs in: " + ", ".join(differing),
        )
    )
    if bounds is None:
        out.append(
            make_check(
                "region-computation",
                "reject",
                False,
                "max_supported_concurrency > 32 and C_min in 1-32",
                f"C_max {c_max!r}",
            )
        )
        return out
    out.append(
        make_check(
            "region-basis",
            "info",
            True,
            "C_min derived from the points (clamped to 1-32)",
            f"C_min = {bounds.c_min}, C_max = {bounds.c_max}: Ultra Low {_fmt(bounds.ultra_low)}, "
            f"Low {_fmt(bounds.low)}, Medium {_fmt(bounds.medium)}, High {_fmt(bounds.high)}, "
            f"margin {_fmt(bounds.margin)}",
        )
    )
    regions = {p.concurrency: p.region for p in points}
    for name, rule, label in (
        ("ultra_low", "ultra-low-concurrency-coverage", "Ultra Low Concurrency"),
        ("low", "low-concurrency-coverage", "Low Concurrency"),
        ("medium", "med-concurrency-coverage", "Medium Concurrency"),
        ("high", "high-concurrency-coverage", "High Concurrency"),
    ):
        covered = sorted(c for c, r in regions.items() if r == name)
        span = bounds.ultra_low if name == "ultra_low" else getattr(bounds, name)
        out.append(
            make_check(
                rule,
                "reject",
                bool(covered),
                f"at least one point in {label} ({_fmt(span)})",
                ", ".join(f"r{c}" for c in covered) or "no point",
            )
        )
    offline = [p for p in points if p.offline in ("dedicated", "elected")]
    dedicated = [p for p in offline if p.offline == "dedicated"]
    elected_ok = all(p.concurrency == bounds.c_max for p in offline if p.offline == "elected")
    out.append(
        make_check(
            "offline-point-present",
            "reject",
            len(offline) == 1 and elected_ok,
            "exactly one Offline point; elected only on the C_max point",
            ", ".join(f"r{p.concurrency} ({p.offline})" for p in offline) or "no Offline point",
        )
    )
    if dedicated:
        run = dedicated[0]
        at_max = next(
            (p for p in points if p.concurrency == bounds.c_max and p.offline != "dedicated"), None
        )
        floor = OFFLINE_TPS_FLOOR * at_max.system_tps if at_max and at_max.system_tps else None
        ok = (
            None
            if floor is None or run.system_tps is None
            else run.system_tps >= floor and run.concurrency >= bounds.c_max
        )
        out.append(
            make_check(
                "offline-ordering",
                "flag",
                ok,
                "dedicated Offline system_tps >= 0.98 x the C_max point's"
                + (f" ({floor:.6g})" if floor is not None else " (no point at C_max: not compared)")
                + f", concurrency >= C_max {bounds.c_max}",
                f"r{run.concurrency}: system_tps {run.system_tps}",
                run.concurrency,
            )
        )
    minimum = 8 if dedicated else 7
    out.append(
        make_check(
            "point-count",
            "reject",
            len(points) >= minimum,
            f">= {minimum} points",
            str(len(points)),
        )
    )
    out.append(
        make_check(
            "point-cap", "reject_points", len(points) <= 32, "<= 32 points", str(len(points))
        )
    )
    if layout == "v1.0":
        out += _accuracy_coverage(points)
        out.append(
            make_check(
                "power-descriptor",
                "reject",
                power.watts is not None,
                "results/<system>/system_power.json yields a provisioned power",
                f"{power.watts:.6g} W ({power.tier})"
                if power.watts is not None
                else "; ".join(power.problems),
            )
        )
        if power.tier == "mlc_estimated":
            out.append(
                make_check(
                    "power-estimated",
                    "warn",
                    False,
                    "component values from the submitter",
                    "MLC Estimated Power",
                )
            )
        datasets = sorted({p.dataset or "-" for p in points})
        out.append(
            make_check(
                "config-consistency-dataset",
                "flag",
                len(datasets) == 1,
                "one dataset",
                ", ".join(datasets),
            )
        )
        seeds = sorted({p.seed_set or "-" for p in points})
        out.append(
            make_check(
                "seed-set-consistency", "reject", len(seeds) == 1, "one seed set", ", ".join(seeds)
            )
        )
    return out


def _accuracy_coverage(points: Sequence[EndpointsPoint]) -> list[EndpointsCheck]:
    wanted = {"ultra_low": "Ultra Low", "low": "Low", "medium": "Medium", "high": "High"}
    missing = [
        label
        for name, label in wanted.items()
        if not any(p.accuracy and p.region == name for p in points)
    ]
    offline = next((p for p in points if p.offline in ("dedicated", "elected")), None)
    if offline is not None and not offline.accuracy:
        missing.append(f"Offline (r{offline.concurrency})")
    return [
        make_check(
            "accuracy-coverage",
            "reject",
            not missing,
            "accuracy at a point in each of Ultra Low, Low, Medium, High and at the Offline point",
            "missing at: " + ", ".join(missing) if missing else "all covered",
        )
    ]
