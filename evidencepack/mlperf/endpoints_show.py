"""``mlperf show endpoints/...``: one MLPerf Endpoints curve, its points and each rule's verdict."""

from __future__ import annotations

from ..store import Store
from .endpoints_import import load_endpoints
from .endpoints_models import EndpointsCheck, EndpointsCurve, EndpointsPoint
from .query import unknown_key

_STATUS = {"pass": "pass", "fail": "FAIL", "skip": "not judged"}
_REGION = {
    "ultra_low": "Ultra Low",
    "low": "Low",
    "medium": "Medium",
    "high": "High",
    "margin": "margin",
    "offline": "Offline",
    "out_of_range": "OUT OF RANGE",
}


def find_curve(store: Store, key: str) -> EndpointsCurve:
    """The stored curve with this key; an unknown key names the nearest ones."""
    found = load_endpoints(store, [key])
    if found:
        return found[0]
    raise unknown_key(store, "mlperf_endpoints_curves", key)


def _fmt(value: float | None, digits: int = 6) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def _point_line(curve: EndpointsCurve, p: EndpointsPoint) -> str:
    region = _REGION.get(p.region or "", "-") + (" + Offline" if p.offline == "elected" else "")
    per_user = p.tps_per_user if curve.layout == "v1.0" else p.tps_per_user_v07
    ttft = p.ttft_p90_ms if curve.layout == "v1.0" else p.ttft_p99_ms
    steady = (
        "steady window"
        if p.steady_official
        else (
            "whole run"
            if p.steady_verdict not in ("drifting_up", "drifting_down")
            else "RANGE (drift)"
        )
    )
    return (
        f"  {p.concurrency:>6}  {region:<18} {_fmt(p.system_tps):>10}  {_fmt(per_user):>9}  "
        f"{_fmt(ttft, 5):>8}  {_fmt(p.tpot_p90_ms, 4):>6}  {'yes' if p.accuracy else '-':<4} "
        f"{_fmt(p.tps_per_kw, 5):>8}  {steady}"
    )


def _check_line(check: EndpointsCheck) -> list[str]:
    where = f"r{check.point}" if check.point is not None else "curve"
    return [
        f"  {_STATUS[check.status]:<10} {check.rule:<34} {where:<7} ({check.severity})",
        f"      expected {check.expected}",
        f"      found    {check.actual}",
    ]


def describe_curve(curve: EndpointsCurve) -> str:
    """The text ``mlperf show`` prints for an Endpoints curve."""
    power = curve.power
    regions = curve.regions
    fields = [
        ("layout", curve.definitions),
        ("division", curve.division or "-"),
        ("model", curve.model_name or curve.model),
        ("system", f"{curve.system_name or curve.system} ({curve.submitter or '-'})"),
        ("accelerators", f"{curve.accelerators_total or '?'} x {curve.accelerator or '?'}"),
        ("stack", f"{curve.serving_framework or '-'}; precision {curve.precision or '-'}"),
        (
            "availability",
            (curve.availability or "not stated")
            + (f", available by {curve.available_by}" if curve.available_by else ""),
        ),
        (
            "power",
            (
                f"{power.watts:,.0f} W provisioned ({power.tier}"
                + (", MLC Estimated Power" if power.tier == "mlc_estimated" else "")
                + (
                    f"; cooling {power.cooling}, overhead {power.overhead_fraction:g}"
                    if power.overhead_fraction is not None and power.tier != "declared"
                    else ""
                )
                + ")"
            )
            if power.watts is not None
            else "none (" + "; ".join(power.problems) + ")",
        ),
    ]
    if regions is not None:
        fields.append(
            (
                "regions",
                f"C_max {regions.c_max}, C_min {regions.c_min}: Ultra Low {regions.ultra_low[0]}-"
                f"{regions.ultra_low[1]}, Low {regions.low[0]}-{regions.low[1]}, Medium "
                f"{regions.medium[0]}-{regions.medium[1]}, High {regions.high[0]}-"
                f"{regions.high[1]}, margin {regions.margin[0]}-{regions.margin[1]}",
            )
        )
    width = max(len(k) for k, _ in fields)
    per_user = "tok/s/user" if curve.layout == "v1.0" else "tps/user*"
    ttft = "TTFT p90" if curve.layout == "v1.0" else "TTFT p99"
    lines = [
        curve.key,
        "",
        "MLPerf Endpoints curve (a step function over concurrency; no interpolation):",
    ]
    lines += [f"  {k:<{width}}  {v}" for k, v in fields]
    lines += [
        "",
        "points:",
        f"  {'conc':>6}  {'region':<18} {'system tok/s':>10}  {per_user:>9}  {ttft:>8}  "
        f"{'TPOT90':>6}  {'acc':<4} {'tok/s/kW':>8}  official basis",
    ]
    lines += [_point_line(curve, p) for p in curve.points]
    if curve.layout == "v0.7":
        lines.append("  * v0.7: tps_per_user = system_tps / concurrency; not the v1.0 figure")
    failed = [c for c in curve.checks if c.status == "fail"]
    skipped = [c for c in curve.checks if c.status == "skip"]
    lines += [
        "",
        f"rules: {len(failed)} failed, {len(skipped)} not judged, "
        f"{len(curve.checks) - len(failed) - len(skipped)} passed (rule ids as the checker's):",
    ]
    for check in sorted(failed + skipped, key=lambda c: (c.status != "fail", c.point or 0)):
        lines += _check_line(check)
    passed: dict[str, list[str]] = {}
    for check in curve.checks:
        if check.status == "pass":
            where = f"r{check.point}" if check.point is not None else "curve"
            passed.setdefault(where, []).append(check.rule)
    lines.append("  passed:")
    lines += [f"    {where:<7} {', '.join(rules)}" for where, rules in passed.items()]
    lines += ["", "files:"] + [
        f"  {s.role:<34} {s.path}  sha256 {s.sha256[:16]}" for s in curve.sources
    ]
    return "\n".join(lines)
