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
from dataclasses import dataclass, replace
from typing import Literal

from ..spec.models import Candidate, PackSpec, Slo
from .api_candidate import size_api
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
    latency_count: int | None = None
    """How many requests the p99 latencies rest on (the smallest count among them)."""
    ttft_max_ms: float | None = None
    tpot_max_ms: float | None = None
    e2e_max_ms: float | None = None
    notes: tuple[str, ...] = ()
    """What the reader of the figures should know (a p99 replaced by the maximum, a rate
    cross-check), shown with the load point."""


RATE_AGREEMENT = 0.25
"""Little's law and a file's own measured rate agreeing within +-25% need no remark."""


def achieved_rate(point: RunPoint) -> tuple[float, str]:
    """The measured request rate and how it was obtained.

    The file's own measured rate wins: it is what happened. Little's law (concurrency / mean
    end-to-end latency) stands in only for a closed-loop run that states no rate, with the
    concurrency capped at the requests it completed (16 prompts at concurrency 64 never had more
    than 16 in flight).
    """
    if point.request_rate_rps:
        kind = {"offline": "offline", "open_loop": "open_loop"}.get(point.load, "measured")
        return point.request_rate_rps, kind
    if point.load == "closed_loop" and point.concurrency and point.e2e_mean_ms:
        in_flight = min(point.concurrency, point.completed) if point.completed else 0
        return in_flight / (point.e2e_mean_ms / 1000.0), "littles_law"
    return 0.0, {"offline": "offline", "open_loop": "open_loop"}.get(point.load, "measured")


def littles_law_check(point: RunPoint) -> str | None:
    """A remark when Little's law and the run's measured rate disagree beyond the tolerance."""
    if not (point.load == "closed_loop" and point.concurrency and point.e2e_mean_ms):
        return None
    if not point.request_rate_rps:
        return None
    in_flight = min(point.concurrency, point.completed) if point.completed else point.concurrency
    law = in_flight / (point.e2e_mean_ms / 1000.0)
    measured = point.request_rate_rps
    if abs(law - measured) <= RATE_AGREEMENT * measured:
        return None
    return (
        f"Little's law gives {law:.3f} req/s ({in_flight} in flight / "
        f"{point.e2e_mean_ms / 1000.0:.3f} s mean latency) but the file measured "
        f"{measured:.3f} req/s; the measured rate is used"
    )


def per_replica(point: RunPoint, replicas: int) -> RunPoint:
    """A run's figures per replica: rates and throughput divided by the replicas it served."""
    if replicas <= 1:
        return point

    def div(value: float | None) -> float | None:
        return value / replicas if value is not None else None

    return replace(
        point,
        offered_rate_rps=div(point.offered_rate_rps),
        request_rate_rps=div(point.request_rate_rps),
        output_tokens_per_s=div(point.output_tokens_per_s),
        concurrency=point.concurrency // replicas if point.concurrency else point.concurrency,
    )


def conservative(point: RunPoint, min_requests: int) -> RunPoint:
    """Below ``min_requests`` a p99 is no estimate: the largest observed latency (the
    conservative order statistic) stands in, and the load point says so; without a maximum
    the p99 counts as not measured."""
    count = point.latency_count if point.latency_count is not None else point.completed
    if count >= min_requests:
        return point
    notes = list(point.notes)
    updates: dict[str, float | None] = {}
    for name, p99, largest in (
        ("TTFT", point.ttft_p99_ms, point.ttft_max_ms),
        ("TPOT", point.tpot_p99_ms, point.tpot_max_ms),
        ("end-to-end", point.e2e_p99_ms, point.e2e_max_ms),
    ):
        if p99 is None:
            continue
        field = {"TTFT": "ttft_p99_ms", "TPOT": "tpot_p99_ms", "end-to-end": "e2e_p99_ms"}[name]
        updates[field] = max(largest, p99) if largest is not None else None
        if largest is None:
            notes.append(
                f"{name} p99 rests on {count} requests (fewer than {min_requests}) and the file "
                "gives no maximum: not used"
            )
        else:
            notes.append(
                f"{name} p99 rests on {count} requests (fewer than {min_requests}): the maximum "
                f"{max(largest, p99):.1f} ms is used instead of {p99:.1f} ms"
            )
    return replace(point, notes=tuple(notes), **updates)  # type: ignore[arg-type]


def error_rate(point: RunPoint) -> float:
    """Failed over sent requests; a run that sent nothing counts as all failed."""
    sent = point.completed + point.failed
    return point.failed / sent if sent else 1.0


def _broke(point: RunPoint, slo: Slo) -> list[str]:
    """The SLO terms a run's measured figures exceed (a figure not measured breaks nothing)."""
    broke = []
    for name, value, limit in (
        ("TTFT", point.ttft_p99_ms, slo.ttft_p99_ms),
        ("TPOT", point.tpot_p99_ms, slo.tpot_p99_ms),
        ("end-to-end", point.e2e_p99_ms, slo.e2e_p99_ms),
    ):
        if value is not None and limit is not None and value > limit:
            broke.append(f"{name} p99 {value:.1f} ms > {limit:g} ms")
    if point.completed + point.failed and error_rate(point) > slo.max_error_rate:
        broke.append(f"error rate {error_rate(point):.2%} > {slo.max_error_rate:.2%}")
    return broke


def slo_outcome(points: Sequence[RunPoint], slo: Slo) -> tuple[object, ...]:
    """All that ``load_points(points, slo)`` reads of ``slo`` but the limits its texts quote:
    which limits are set, the error-rate limit, and each run's verdict on each latency limit
    (``_broke``, ``_misses``). Two SLOs of one outcome give load points whose every figure and
    verdict are the same, so a capacity sized under one has the other's accelerators and cost
    (a robustness search sizes once per outcome, not per SLO tried)."""
    limits = (slo.ttft_p99_ms, slo.tpot_p99_ms, slo.e2e_p99_ms)
    return (
        tuple(limit is None for limit in limits),
        slo.max_error_rate,
        tuple(
            tuple(
                value is not None and limit is not None and value > limit
                for value, limit in zip(
                    (p.ttft_p99_ms, p.tpot_p99_ms, p.e2e_p99_ms), limits, strict=True
                )
            )
            for p in points
        ),
    )


def _misses(point: RunPoint, slo: Slo) -> list[str]:
    misses = []
    if point.excluded:
        misses.append(point.excluded)
    if point.completed == 0:
        misses.append("no request completed")
    broke = _broke(point, slo)
    for name, value in (
        ("TTFT", point.ttft_p99_ms),
        ("TPOT", point.tpot_p99_ms),
        ("end-to-end", point.e2e_p99_ms if slo.e2e_p99_ms is not None else 0.0),
    ):
        # A limit with no measured figure is not measured, never met.
        if value is None:
            misses.append(f"{name} p99 not measured")
    misses += broke
    if not point.completed + point.failed:
        misses.append(f"error rate {error_rate(point):.2%} > {slo.max_error_rate:.2%}")
    if point.invalid is not None:
        misses.append(point.invalid)
    return misses


def break_load(point: RunPoint) -> float:
    """The load a run was measured at: the lower of its offered and achieved rates."""
    rate, _ = achieved_rate(point)
    if point.offered_rate_rps is not None and point.load == "open_loop":
        return min(rate, point.offered_rate_rps) if rate > 0 else point.offered_rate_rps
    return rate


def _below_breaks(
    points: Sequence[RunPoint], loads: Sequence[LoadPoint], slo: Slo
) -> list[LoadPoint]:
    """No operating point at or above a load at which another run of the candidate broke the
    SLO, whatever either run's loop kind (a closed loop at 2.6 req/s never stands above an open
    loop that broke the SLO at 2.4)."""
    breaks = [
        (break_load(p), lp.run, broke)
        for p, lp in zip(points, loads, strict=True)
        if (broke := _broke(p, slo))
    ]
    out = []
    for lp in loads:
        above = [b for b in breaks if b[1] != lp.run and lp.achieved_rate_rps >= b[0] > 0]
        if not lp.meets_slo or not above:
            out.append(lp)
            continue
        rate, run, broke = min(above)
        out.append(
            lp.model_copy(
                update={
                    "meets_slo": False,
                    "misses": (
                        f"at or above {rate:.3f} req/s, where {run} broke the SLO "
                        f"({'; '.join(broke)})",
                    ),
                }
            )
        )
    return out


def load_point(point: RunPoint, slo: Slo) -> LoadPoint:
    """One run as a load point: its achieved rate, its latencies and whether it met the SLO."""
    rate, _ = achieved_rate(point)
    misses = _misses(point, slo)
    notes = list(point.notes)
    if (remark := littles_law_check(point)) is not None:
        notes.append(remark)
    return LoadPoint(
        run=point.run,
        offered_rate_rps=point.offered_rate_rps,
        concurrency=point.concurrency,
        achieved_rate_rps=rate,
        output_tokens_per_s=point.output_tokens_per_s or 0.0,
        ttft_p99_ms=point.ttft_p99_ms,
        tpot_p99_ms=point.tpot_p99_ms,
        e2e_p99_ms=point.e2e_p99_ms,
        latency_requests=point.latency_count
        if point.latency_count is not None
        else point.completed or None,
        error_rate=error_rate(point),
        meets_slo=not misses,
        misses=tuple(misses),
        notes=tuple(notes),
    )


def _load_key(point: RunPoint) -> tuple[str, float | None, int | None]:
    """Runs at one load: the same shape, offered rate and concurrency (repeats of each other)."""
    rate = round(point.offered_rate_rps, 6) if point.offered_rate_rps is not None else None
    return point.load, rate, point.concurrency


def _repeats_held(points: Sequence[RunPoint], loads: Sequence[LoadPoint]) -> list[LoadPoint]:
    """Repeats at one load count conservatively: a load meets the SLO only if every repeat
    does, and only its slowest repeat can be the operating point."""
    groups: dict[tuple[str, float | None, int | None], list[int]] = {}
    for index, point in enumerate(points):
        if point.offered_rate_rps is not None or point.concurrency is not None:
            groups.setdefault(_load_key(point), []).append(index)
    out = list(loads)
    for members in groups.values():
        if len(members) < 2:
            continue
        missed = [loads[i] for i in members if not loads[i].meets_slo]
        slowest = min(members, key=lambda i: (loads[i].achieved_rate_rps, loads[i].run))
        for i in members:
            lp = loads[i]
            others = ", ".join(loads[j].run for j in members if j != i)
            if missed and lp.meets_slo:
                first = missed[0]
                out[i] = lp.model_copy(
                    update={
                        "meets_slo": False,
                        "misses": (
                            f"a repeat at this load ({first.run}) missed the SLO: "
                            + "; ".join(first.misses),
                        ),
                    }
                )
            elif not missed and i != slowest:
                out[i] = lp.model_copy(
                    update={
                        "notes": (
                            *lp.notes,
                            f"repeat of {others}: the slowest repeat "
                            f"({loads[slowest].run}) stands for this load",
                        ),
                        "repeat_not_used": True,
                    }
                )
    return out


def load_points(points: Sequence[RunPoint], slo: Slo) -> tuple[LoadPoint, ...]:
    """Every run as a load point against ``slo``, by achieved rate: repeats at one load held to
    the slowest, a rate at or above a break fails. What sizing reads, whatever the traffic."""
    ordered = sorted(points, key=lambda p: (achieved_rate(p)[0], p.run))
    return tuple(
        _below_breaks(ordered, _repeats_held(ordered, [load_point(p, slo) for p in ordered]), slo)
    )


def size_candidate(
    spec: PackSpec,
    candidate: Candidate,
    points: Sequence[RunPoint],
    loads: tuple[LoadPoint, ...] | None = None,
) -> Capacity:
    """The operating point and the accelerators a candidate needs for the spec's peak traffic.

    ``loads``: ``load_points(points, spec.slo)`` when the caller has them (a robustness search
    sizes one candidate's points under many traffics and one SLO)."""
    hw = candidate.hardware
    peak, headroom = spec.traffic.peak_requests_per_s, spec.headroom
    required = peak * (1 + headroom)
    ordered = sorted(points, key=lambda p: (achieved_rate(p)[0], p.run))
    if loads is None:
        loads = load_points(points, spec.slo)
    methods = {achieved_rate(p)[1] for p in ordered}
    method: Literal["open_loop", "measured", "littles_law", "offline", "none"] = "none"
    for name in ("littles_law", "measured", "open_loop", "offline"):
        if name in methods:
            method = name
            break
    confidence: Literal["sweep", "single_point", "none"] = (
        "sweep" if len(loads) > 1 else ("single_point" if loads else "none")
    )
    meeting = [
        lp for lp in loads if lp.meets_slo and lp.achieved_rate_rps > 0 and not lp.repeat_not_used
    ]
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
        notes += [f"{best.run}: {note}" for note in best.notes]
        arithmetic = (
            f"X* = {x_star:.3f} req/s per replica ({best.run}); {arithmetic}; "
            f"replicas = ceil({required:.3f} / {x_star:.3f}) = {replicas}; "
            f"accelerators = {replicas} x {hw.accelerators_per_replica} = {accelerators}; "
            f"servers = ceil({accelerators} / {hw.accelerators_per_node}) = {servers}"
        )
        reason = "; ".join(notes) if notes else f"operating point from a {len(loads)}-point sweep"
    capacity = Capacity(
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
    if candidate.api is not None:
        return size_api(spec, candidate.api, capacity)
    return capacity
