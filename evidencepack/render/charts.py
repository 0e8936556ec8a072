"""Chart geometry for the report's SVG figures: latency against load, cost, quality intervals.

Python computes every coordinate and label here as a formatted string; the SVG itself is drawn by
autoescaped jinja2 macros (``report_templates/_charts.html.j2``), so no value reaches markup
unescaped and the same inputs always give the same bytes. No plotting library is involved.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..analyze.models import Capacity, Cost, Quality
from ..spec.models import Slo
from .formatting import money, ms, score

PALETTE = ("#1f5f99", "#c4661f", "#2f7d3b", "#7a3e9d", "#a8323e", "#4f6b75")
"""Candidate colours, by position in the decision's candidate list (never by a value)."""


def colour(index: int) -> str:
    """The palette colour of the ``index``-th candidate (cycling)."""
    return PALETTE[index % len(PALETTE)]


def _f(value: float) -> str:
    """A coordinate: one decimal, no negative zero."""
    rounded = round(value, 1)
    return f"{0.0 if rounded == 0 else rounded:.1f}"


@dataclass(frozen=True)
class Tick:
    """One axis tick: its position and label."""

    pos: str
    label: str


@dataclass(frozen=True)
class _Scale:
    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.hi - self.lo
        return self.start + (value - self.lo) / span * (self.end - self.start)


def nice_ticks(lo: float, hi: float, count: int = 5) -> tuple[float, ...]:
    """Round tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("tick range must be finite")
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / count
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if raw <= m * magnitude * (1 + 1e-9))
    first = math.floor(lo / step + 1e-9) * step
    ticks: list[float] = []
    value = first
    while value < hi - step * 1e-9:
        ticks.append(value)
        value = first + len(ticks) * step
    ticks.append(value)
    return tuple(round(t, 10) for t in ticks)


def _tick_label(values: Sequence[float]) -> Callable[[float], str]:
    """Label ticks with as many decimals as the step needs (2.5 -> one, 0.25 -> two)."""
    step = values[1] - values[0] if len(values) > 1 else 1.0
    decimals = next(d for d in range(7) if abs(step * 10**d - round(step * 10**d)) < 1e-6 or d == 6)
    return lambda v: f"{0.0 if v == 0 else v:,.{decimals}f}"


# --- latency against load ------------------------------------------------------------------------


@dataclass(frozen=True)
class Marker:
    """One load point on a latency panel, and whether it met the SLO or is the operating point."""

    x: str
    y: str
    meets: bool
    operating: bool
    clipped: str = ""
    """The value of a point beyond the top of the axis, drawn at the top (empty when inside)."""


@dataclass(frozen=True)
class Panel:
    """One latency panel (TTFT or TPOT): its frame, ticks, limit line and markers."""

    title: str
    left: str
    top: str
    right: str
    bottom: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    x_label: str
    x_label_x: str
    x_tick_y: str
    x_label_y: str
    y_label_x: str
    line: str
    markers: tuple[Marker, ...]
    limit_y: str
    limit_label_x: str
    limit_label: str
    empty: bool


@dataclass(frozen=True)
class LatencyChart:
    """One candidate's latency against load, one panel per metric."""

    title: str
    colour: str
    width: int
    height: int
    panels: tuple[Panel, ...]


_LAT_W, _LAT_H = 680, 226
_LAT_TOP, _LAT_BOTTOM = 24.0, 186.0
AXIS_CAP = 2.0
"""The latency axis ends near AXIS_CAP x the SLO limit: one saturated point far above the limit
would otherwise squash every point near it into the bottom of the panel."""


def latency_chart(capacity: Capacity, slo: Slo, index: int) -> LatencyChart:
    """Load (achieved requests/s per replica) against p99 TTFT and p99 TPOT, SLO line on each."""
    points = sorted(capacity.load_points, key=lambda p: (p.achieved_rate_rps, p.run))
    xs = [p.achieved_rate_rps for p in points]
    panels = []
    for number, (title, values, limit) in enumerate(
        (
            ("p99 time to first token (ms)", [p.ttft_p99_ms for p in points], slo.ttft_p99_ms),
            ("p99 time per output token (ms)", [p.tpot_p99_ms for p in points], slo.tpot_p99_ms),
        )
    ):
        left = 56.0 + number * 340.0
        right = left + 270.0
        present = [(x, y, p) for x, y, p in zip(xs, values, points, strict=True) if y is not None]
        x_ticks = nice_ticks(0.0, max(xs, default=1.0) * 1.04)
        y_top = min(max([limit, *(y for _, y, _ in present)]), limit * AXIS_CAP)
        y_ticks = nice_ticks(0.0, y_top * 1.06, 6)
        sx = _Scale(x_ticks[0], x_ticks[-1], left, right)
        sy = _Scale(y_ticks[0], y_ticks[-1], _LAT_BOTTOM, _LAT_TOP)
        x_fmt, y_fmt = _tick_label(x_ticks), _tick_label(y_ticks)
        markers = tuple(
            Marker(
                x=_f(sx(x)),
                y=_f(sy(min(y, y_ticks[-1]))),
                meets=p.meets_slo,
                operating=p.run == capacity.operating_point_run,
                clipped=f"\u2191 {ms(y)}" if y > y_ticks[-1] else "",
            )
            for x, y, p in present
        )
        panels.append(
            Panel(
                title=title,
                left=_f(left),
                top=_f(_LAT_TOP),
                right=_f(right),
                bottom=_f(_LAT_BOTTOM),
                x_ticks=tuple(Tick(_f(sx(t)), x_fmt(t)) for t in x_ticks),
                y_ticks=tuple(Tick(_f(sy(t)), y_fmt(t)) for t in y_ticks),
                x_label="achieved load per replica (requests/s)",
                x_label_x=_f((left + right) / 2),
                x_tick_y=_f(_LAT_BOTTOM + 14),
                x_label_y=_f(_LAT_BOTTOM + 32),
                y_label_x=_f(left - 6),
                line=" ".join(f"{m.x},{m.y}" for m in markers),
                markers=markers,
                limit_y=_f(sy(limit)),
                limit_label_x=_f(left + 4),
                limit_label=f"SLO {y_fmt(limit)} ms",
                empty=not present,
            )
        )
    return LatencyChart(
        title=f"{capacity.candidate}: p99 TTFT and TPOT against load, with the SLO",
        colour=colour(index),
        width=_LAT_W,
        height=_LAT_H,
        panels=tuple(panels),
    )


# --- cost per 1M output tokens -------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One candidate's bar on the cost chart."""

    label: str
    note: str
    colour: str
    eligible: bool
    y: str
    mid: str
    height: str
    x0: str
    width: str
    value_x: str
    value_label: str
    whisker: tuple[str, str] | None
    cap_top: str
    cap_bottom: str


@dataclass(frozen=True)
class Frame:
    """The frame shared by the row charts: one row per candidate over a horizontal value axis."""

    title: str
    width: int
    height: int
    left: str
    right: str
    top: str
    bottom: str
    label_x: str
    ticks: tuple[Tick, ...]
    tick_y: str
    axis_label: str
    axis_label_x: str
    axis_label_y: str


_ROW = 30.0
_ROW_LEFT = 170.0


def _frame(
    title: str,
    rows: int,
    top: float,
    right: float,
    ticks: Sequence[float],
    labels: Sequence[str],
    axis_label: str,
) -> tuple[Frame, _Scale]:
    bottom = top + _ROW * rows
    scale = _Scale(ticks[0], ticks[-1], _ROW_LEFT, right)
    frame = Frame(
        title=title,
        width=680,
        height=int(bottom + 34),
        left=_f(_ROW_LEFT),
        right=_f(right),
        top=_f(top),
        bottom=_f(bottom),
        label_x=_f(_ROW_LEFT - 8),
        ticks=tuple(Tick(_f(scale(t)), label) for t, label in zip(ticks, labels, strict=True)),
        tick_y=_f(bottom + 14),
        axis_label=axis_label,
        axis_label_x=_f((_ROW_LEFT + right) / 2),
        axis_label_y=_f(bottom + 30),
    )
    return frame, scale


@dataclass(frozen=True)
class BarChart:
    """The cost per million output tokens, one bar per candidate."""

    frame: Frame
    bars: tuple[Bar, ...]


def cost_chart(costs: Sequence[tuple[int, Cost, bool]]) -> BarChart | None:
    """Horizontal bars of cost per 1M output tokens, one per candidate, spread as a whisker.

    ``costs`` holds (candidate position, cost, eligible). Returns None when no candidate has
    a figure (the report then says so instead of drawing an empty axis).
    """
    values = [
        c.per_million_output_tokens for _, c, _ in costs if c.per_million_output_tokens is not None
    ]
    if not values:
        return None
    highs = [
        c.spread_per_million_output_tokens.maximum
        for _, c, _ in costs
        if c.spread_per_million_output_tokens is not None
    ]
    ticks = nice_ticks(0.0, max([*values, *highs]) * 1.08)
    currencies = sorted({c.currency for _, c, _ in costs})
    currency = currencies[0] if len(currencies) == 1 else "mixed currencies, not comparable"
    fmt = _tick_label(ticks)
    frame, scale = _frame(
        "Cost per 1M output tokens at the SLO operating point, per candidate",
        len(costs),
        8.0,
        590.0,
        ticks,
        [fmt(t) for t in ticks],
        f"cost per 1M output tokens ({currency})",
    )
    bars = []
    for row, (index, cost, eligible) in enumerate(costs):
        y = 8.0 + row * _ROW + 6.0
        mid = y + (_ROW - 12.0) / 2
        value = cost.per_million_output_tokens
        spread = cost.spread_per_million_output_tokens
        end = scale(value) if value is not None else _ROW_LEFT
        bars.append(
            Bar(
                label=cost.candidate,
                note="" if eligible else "ineligible",
                colour=colour(index),
                eligible=eligible,
                y=_f(y),
                mid=_f(mid),
                height=_f(_ROW - 12.0),
                x0=_f(_ROW_LEFT),
                width=_f(end - _ROW_LEFT),
                value_x=_f(max(end, scale(spread.maximum) if spread else end) + 6.0),
                value_label=money(value, cost.currency) if value is not None else "no figure",
                whisker=(_f(scale(spread.minimum)), _f(scale(spread.maximum))) if spread else None,
                cap_top=_f(mid - 5),
                cap_bottom=_f(mid + 5),
            )
        )
    return BarChart(frame=frame, bars=tuple(bars))


# --- quality with intervals ----------------------------------------------------------------------


@dataclass(frozen=True)
class IntervalRow:
    """One candidate's quality estimate and its confidence interval."""

    label: str
    colour: str
    meets: bool
    y: str
    cap_top: str
    cap_bottom: str
    est: str | None
    lo: str | None
    hi: str | None
    value_label: str


@dataclass(frozen=True)
class IntervalChart:
    """Quality estimates with their intervals against the bar."""

    frame: Frame
    value_x: str
    bar_x: str
    bar_label: str
    rows: tuple[IntervalRow, ...]


def quality_chart(qualities: Sequence[tuple[int, Quality]]) -> IntervalChart | None:
    """Point estimate and confidence interval per candidate against the team's bar."""
    if not qualities:
        return None
    binary = all(q.binary for _, q in qualities)
    bar = qualities[0][1].bar_threshold
    values = [bar]
    for _, q in qualities:
        values.extend(v for v in (q.estimate, q.ci_low, q.ci_high) if v is not None)
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.15, 0.01 if binary else 0.01 * max(abs(hi), 1.0))
    lo, hi = lo - pad, hi + pad
    if binary:
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    ticks = nice_ticks(lo, hi, 6)
    if binary:
        ticks = tuple(t for t in ticks if 0.0 <= t <= 1.0)
    metric = qualities[0][1].metric
    fmt = _tick_label([t * 100 for t in ticks] if binary else ticks)
    top, right = 22.0, 600.0
    frame, scale = _frame(
        f"{metric} per candidate with confidence intervals, against the bar",
        len(qualities),
        top,
        right,
        ticks,
        [fmt(t * 100 if binary else t) for t in ticks],
        f"{metric} ({'%' if binary else 'score'})",
    )

    def clamp(value: float | None) -> str | None:
        if value is None:
            return None
        return _f(min(max(scale(value), _ROW_LEFT), right))

    rows = []
    for row, (index, q) in enumerate(qualities):
        y = top + row * _ROW + _ROW / 2
        rows.append(
            IntervalRow(
                label=q.candidate,
                colour=colour(index),
                meets=q.meets_bar,
                y=_f(y),
                cap_top=_f(y - 5),
                cap_bottom=_f(y + 5),
                est=clamp(q.estimate),
                lo=clamp(q.ci_low),
                hi=clamp(q.ci_high),
                value_label=score(q.estimate, q.binary) if q.estimate is not None else "no score",
            )
        )
    return IntervalChart(
        frame=frame,
        value_x=_f(right + 8),
        bar_x=_f(scale(bar)),
        bar_label=f"bar {score(bar, binary)}",
        rows=tuple(rows),
    )
