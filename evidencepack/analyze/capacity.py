"""Capacity at the SLO: the operating point X* from measured load points, then the accelerators.

X* is the highest measured per-replica request rate whose p99 TTFT and p99 TPOT (and p99
end-to-end latency, when the SLO sets one) are within the SLO and whose error rate is within
bound. SLO terms are inclusive (a p99 equal to the SLO meets it). Closed-loop runs convert with
Little's law: rate = concurrency / mean end-to-end latency. Then
replicas = ceil(peak x (1 + headroom) / X*), accelerators = replicas x accelerators per replica,
servers = ceil(accelerators / accelerators per server).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..spec import Candidate, PackSpec, Slo
from .models import Capacity, LoadPoint


@dataclass(frozen=True)
class RunPoint:
    """One measured run of a candidate, reduced to what sizing needs (per replica)."""

    run: str
    load: str  # "open_loop", "closed_loop" or "offline"
    offered_rate_rps: float | None
    concurrency: int | None
    completed: int
    failed: int
    request_rate_rps: float | None
    output_tokens_per_s: float | None
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    e2e_p99_ms: float | None
    e2e_mean_ms: float | None
    excluded: str | None = None
    """Why the run cannot be an operating point (its data failed PROV-DATA)."""
    invalid: str | None = None
    """Why the measuring tool itself judged the run invalid (LoadGen's INVALID), if it did."""


def achieved_rate(point: RunPoint) -> tuple[float, str]:
    """The measured request rate and how it was obtained."""
    if point.load == "closed_loop" and point.concurrency and point.e2e_mean_ms:
        return point.concurrency / (point.e2e_mean_ms / 1000.0), "littles_law"
    return point.request_rate_rps or 0.0, "open_loop" if point.load != "offline" else "offline"


def error_rate(point: RunPoint) -> float:
    """Failed over sent requests; a run that sent nothing counts as all failed."""
    sent = point.completed + point.failed
    return point.failed / sent if sent else 1.0


def _misses(point: RunPoint, slo: Slo) -> list[str]:
    misses = []
    if point.excluded:
        misses.append(point.excluded)
    if point.completed == 0:
        misses.append("no request completed")
    if point.ttft_p99_ms is None:
        misses.append("TTFT p99 not measured")
    elif point.ttft_p99_ms > slo.ttft_p99_ms:
        misses.append(f"TTFT p99 {point.ttft_p99_ms:.1f} ms > {slo.ttft_p99_ms:g} ms")
    if point.tpot_p99_ms is None:
        misses.append("TPOT p99 not measured")
    elif point.tpot_p99_ms > slo.tpot_p99_ms:
        misses.append(f"TPOT p99 {point.tpot_p99_ms:.1f} ms > {slo.tpot_p99_ms:g} ms")
    if (
        slo.e2e_p99_ms is not None
        and point.e2e_p99_ms is not None
        and (point.e2e_p99_ms > slo.e2e_p99_ms)
    ):
        misses.append(f"end-to-end p99 {point.e2e_p99_ms:.1f} ms > {slo.e2e_p99_ms:g} ms")
    if error_rate(point) > slo.max_error_rate:
        misses.append(f"error rate {error_rate(point):.2%} > {slo.max_error_rate:.2%}")
    if point.invalid is not None:
        misses.append(point.invalid)
    return misses


def load_point(point: RunPoint, slo: Slo) -> LoadPoint:
    """One run as a load point: its achieved rate, its latencies and whether it met the SLO."""
    rate, _ = achieved_rate(point)
    misses = _misses(point, slo)
    return LoadPoint(
        run=point.run,
        offered_rate_rps=point.offered_rate_rps,
        concurrency=point.concurrency,
        achieved_rate_rps=rate,
        output_tokens_per_s=point.output_tokens_per_s or 0.0,
        ttft_p99_ms=point.ttft_p99_ms,
        tpot_p99_ms=point.tpot_p99_ms,
        e2e_p99_ms=point.e2e_p99_ms,
        error_rate=error_rate(point),
        meets_slo=not misses,
        misses=tuple(misses),
    )


def size_candidate(spec: PackSpec, candidate: Candidate, points: Sequence[RunPoint]) -> Capacity:
    """The operating point and the accelerators a candidate needs for the spec's peak traffic."""
    hw = candidate.hardware
    peak, headroom = spec.traffic.peak_requests_per_s, spec.headroom
    required = peak * (1 + headroom)
    ordered = sorted(points, key=lambda p: (achieved_rate(p)[0], p.run))
    loads = tuple(load_point(p, spec.slo) for p in ordered)
    methods = {achieved_rate(p)[1] for p in ordered}
    method: Literal["open_loop", "littles_law", "offline", "none"] = "none"
    for name in ("littles_law", "open_loop", "offline"):
        if name in methods:
            method = name
            break
    confidence: Literal["sweep", "single_point", "none"] = (
        "sweep" if len(loads) > 1 else ("single_point" if loads else "none")
    )
    meeting = [lp for lp in loads if lp.meets_slo and lp.achieved_rate_rps > 0]
    best = max(meeting, key=lambda lp: (lp.achieved_rate_rps, lp.run)) if meeting else None
    x_star = best.achieved_rate_rps if best else None
    replicas = accelerators = servers = None
    arithmetic = f"required = {peak:g} x (1 + {headroom:g}) = {required:.3f} req/s"
    if best is None or x_star is None:
        if not loads:
            reason = "no serving run measured this candidate: capacity cannot be sized"
        elif all(lp.achieved_rate_rps <= 0 for lp in loads):
            reason = "zero throughput measured: capacity cannot be sized"
        else:
            closest = min(loads, key=lambda lp: (len(lp.misses), -lp.achieved_rate_rps))
            reason = (
                f"the SLO was not met at any measured load; at the closest point "
                f"({closest.run}): {'; '.join(closest.misses)}"
            )
        arithmetic += "; no operating point"
    else:
        replicas = math.ceil(required / x_star - 1e-9)
        accelerators = replicas * hw.accelerators_per_replica
        servers = math.ceil(accelerators / hw.accelerators_per_node)
        notes = []
        if confidence == "single_point":
            notes.append("one load point only: X* is a single measurement, lower confidence")
        if not any(lp.achieved_rate_rps > x_star for lp in loads):
            notes.append("no measured load above X* broke the SLO: X* is a lower bound")
        arithmetic = (
            f"X* = {x_star:.3f} req/s per replica ({best.run}); {arithmetic}; "
            f"replicas = ceil({required:.3f} / {x_star:.3f}) = {replicas}; "
            f"accelerators = {replicas} x {hw.accelerators_per_replica} = {accelerators}; "
            f"servers = ceil({accelerators} / {hw.accelerators_per_node}) = {servers}"
        )
        reason = "; ".join(notes) if notes else f"operating point from a {len(loads)}-point sweep"
    return Capacity(
        candidate=candidate.id,
        load_points=loads,
        method=method,
        confidence=confidence,
        operating_point_rps=x_star,
        operating_point_run=best.run if best else None,
        output_tokens_per_s_at_op=best.output_tokens_per_s if best else None,
        required_rate_rps=required,
        replicas=replicas,
        accelerators_per_replica=hw.accelerators_per_replica,
        accelerators=accelerators,
        accelerators_per_server=hw.accelerators_per_node,
        servers=servers,
        arithmetic=arithmetic,
        reason=reason,
    )
