"""The MLPerf Endpoints curve beside a candidate's own measured points, on the same axes.

x: output tokens per second per user; y: output tokens per second per accelerator. A curve
cited under ``evidence.references`` is drawn as the official step function (each point a step,
the curve holding the last measured value between points; no interpolation) and labelled
"measured elsewhere"; the candidate's own load points are dots (their per-user rate is 1000 /
TPOT p99, the legend says so). Geometry only, as formatted strings; the SVG is drawn by
``report_templates/_curve_chart.html.j2``. It never sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analyze.figures import LoadPoint
from ..analyze.judgements import PublicReference
from .charts import Tick, _f, _tick_label, colour, nice_ticks

ENDPOINTS_TOOL = "mlperf-endpoints"
_W, _H = 680, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 64.0, 660.0, 40.0, 250.0
_CURVE_COLOURS = ("#6b6b6b", "#9a7b4f", "#4f7b9a", "#7b4f9a")


@dataclass(frozen=True)
class Dot:
    """One point drawn: its position and its tooltip text."""

    x: str
    y: str
    title: str


@dataclass(frozen=True)
class Series:
    """One curve (a step line through its points) or the candidate's own points (dots only)."""

    label: str
    colour: str
    steps: str
    dots: tuple[Dot, ...]
    own: bool


@dataclass(frozen=True)
class CurveChart:
    """One candidate's chart: the cited curves and its own measured points."""

    title: str
    width: int
    height: int
    left: str
    right: str
    top: str
    bottom: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    legend_y: tuple[str, ...]


def _short(key: str) -> str:
    """A curve's key without ``endpoints/<layout>/<division>/`` (the legend's width)."""
    return "/".join(key.split("/")[-3:])


def _curve_of(ref: PublicReference) -> str:
    return ref.subject.split("#", 1)[0]


def curve_chart(
    candidate: str,
    index: int,
    refs: Sequence[PublicReference],
    own: Sequence[LoadPoint],
    accelerators_per_replica: int,
) -> CurveChart | None:
    """The chart of one candidate, or None when it cites no Endpoints curve with figures."""
    curves: dict[str, list[tuple[float, float, PublicReference]]] = {}
    for ref in refs:
        if ref.candidate != candidate or ref.source_tool != ENDPOINTS_TOOL:
            continue
        x, y = ref.per_user_tokens_per_s, ref.output_tokens_per_s_per_accelerator
        if x is not None and y is not None and x > 0:
            curves.setdefault(_curve_of(ref), []).append((x, y, ref))
    if not curves:
        return None
    mine = [
        (1000.0 / p.tpot_p99_ms, p.output_tokens_per_s / accelerators_per_replica, p)
        for p in own
        if p.tpot_p99_ms and p.output_tokens_per_s > 0
    ]
    xs = [x for pts in curves.values() for x, _, _ in pts] + [x for x, _, _ in mine]
    ys = [y for pts in curves.values() for _, y, _ in pts] + [y for _, y, _ in mine]
    x_ticks, y_ticks = nice_ticks(0.0, max(xs)), nice_ticks(0.0, max(ys))
    x_hi, y_hi = x_ticks[-1], y_ticks[-1]

    def sx(v: float) -> float:
        return _LEFT + v / x_hi * (_RIGHT - _LEFT)

    def sy(v: float) -> float:
        return _BOTTOM - v / y_hi * (_BOTTOM - _TOP)

    series = []
    for n, (name, pts) in enumerate(sorted(curves.items())):
        ordered = sorted(pts, key=lambda p: (p[0], p[1]))
        path: list[str] = []
        for i, (x, y, _) in enumerate(ordered):
            if i:  # a step: hold the last value, then move to the next point's
                path.append(f"{_f(sx(x))},{_f(sy(ordered[i - 1][1]))}")
            path.append(f"{_f(sx(x))},{_f(sy(y))}")
        definition = ordered[0][2].per_user_definition or "per-user rate"
        series.append(
            Series(
                label=f"{_short(name)}: measured elsewhere (step function; x = {definition})",
                colour=_CURVE_COLOURS[n % len(_CURVE_COLOURS)],
                steps=" ".join(path),
                dots=tuple(
                    Dot(
                        _f(sx(x)),
                        _f(sy(y)),
                        f"{ref.subject}: {ref.load}, {y:,.0f} tok/s per accelerator, "
                        f"{x:,.1f} tok/s per user",
                    )
                    for x, y, ref in ordered
                ),
                own=False,
            )
        )
    if mine:
        series.append(
            Series(
                label=f"{candidate}: its own measured points (x = 1000 / TPOT p99)",
                colour=colour(index),
                steps="",
                dots=tuple(
                    Dot(
                        _f(sx(x)),
                        _f(sy(y)),
                        f"{p.run}: {y:,.0f} tok/s per accelerator, {x:,.1f} tok/s per user",
                    )
                    for x, y, p in sorted(mine, key=lambda m: (m[0], m[1]))
                ),
                own=True,
            )
        )
    x_label, y_label = _tick_label(x_ticks), _tick_label(y_ticks)
    return CurveChart(
        title=f"{candidate}: MLPerf Endpoints curve(s) beside its own measured points",
        width=_W,
        height=_H + 14 * len(series),
        left=_f(_LEFT),
        right=_f(_RIGHT),
        top=_f(_TOP),
        bottom=_f(_BOTTOM),
        x_ticks=tuple(Tick(_f(sx(t)), x_label(t)) for t in x_ticks),
        y_ticks=tuple(Tick(_f(sy(t)), y_label(t)) for t in y_ticks),
        x_label="output tokens/s per user",
        y_label="output tokens/s per accelerator",
        series=tuple(series),
        legend_y=tuple(_f(_H - 14 + 14 * i) for i in range(len(series))),
    )
