"""The new run against the pack: each SLO figure at the operating point X*, beside the pack's.

A figure over its limit is *missed* (the decision is broken: the sizing assumed X* meets the
SLO); a figure within its limit but worse than the pack's by more than the tolerance is *met,
margin smaller* (degraded: the decision still stands, with less room than it was sized with);
a limit with no measured figure is *not measured*, never met.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analyze.models import LoadPoint
from ..readers.models import LatencyStats, ServingRun
from ..spec.models import Slo
from .models import Effect, WatchFigure, WatchFinding, WatchStatus

DEFAULT_TOLERANCE = 0.10
"""How much worse than the pack's a figure may be (relative) before its margin counts as smaller."""

_LATENCIES = (
    ("ttft_p99_ms", "TTFT p99", "ttft"),
    ("tpot_p99_ms", "TPOT p99", "tpot"),
    ("e2e_p99_ms", "end-to-end p99", "e2e"),
)


def _p99(stats: LatencyStats | None) -> float | None:
    return None if stats is None else stats.p99_ms


def _figure(
    metric: str, limit: float | None, pack: float | None, measured: float | None, tolerance: float
) -> WatchFigure:
    change = None if measured is None or not pack else measured / pack - 1
    if limit is None:
        status = "no limit"
    elif measured is None:
        status = "not measured"
    elif measured > limit:
        status = "missed"
    elif change is not None and change > tolerance:
        status = "met, margin smaller"
    else:
        status = "met"
    return WatchFigure.model_validate(
        {
            "metric": metric,
            "limit": limit,
            "pack": pack,
            "measured": measured,
            "change": change,
            "status": status,
        }
    )


def judge_figures(
    slo: Slo,
    pack_point: LoadPoint | None,
    run: ServingRun | None,
    error_rate: float | None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
) -> tuple[WatchFigure, ...]:
    """Each SLO figure of the new ``run`` against its limit and the pack's ``pack_point``."""
    figures = []
    for metric, _, attr in _LATENCIES:
        limit = getattr(slo, metric)
        pack = getattr(pack_point, metric) if pack_point is not None else None
        measured = _p99(getattr(run, attr)) if run is not None else None
        figures.append(_figure(metric, limit, pack, measured, tolerance))
    pack_errors = pack_point.error_rate if pack_point is not None else None
    # An error rate is judged on its limit only: 0 errors in the pack make any error "worse".
    figures.append(_figure("error_rate", slo.max_error_rate, pack_errors, error_rate, float("inf")))
    return tuple(figures)


def _words(figure: WatchFigure) -> str:
    name = next((n for m, n, _ in _LATENCIES if m == figure.metric), "error rate")
    unit = "" if figure.metric == "error_rate" else " ms"

    def num(value: float | None) -> str:
        if value is None:
            return "none"
        return f"{value:.2%}" if figure.metric == "error_rate" else f"{value:,.1f}{unit}"

    pack = f" against {num(figure.pack)} in the pack" if figure.pack is not None else ""
    change = f" ({figure.change:+.0%})" if figure.change is not None else ""
    return f"{name} {num(figure.measured)}{pack}{change}, limit {num(figure.limit)}"


def figure_findings(figures: Sequence[WatchFigure]) -> list[WatchFinding]:
    """The figures that are not simply met, as findings with their effect."""
    found = []
    for figure in figures:
        effect: Effect | None = {
            "missed": "broken",
            "not measured": "degraded",
            "met, margin smaller": "degraded",
        }.get(figure.status)  # type: ignore[assignment]
        if effect is None:
            continue
        what = {
            "missed": "missed at the operating point",
            "not measured": "not measured: the watch cannot say it is met",
            "met, margin smaller": "still met, with a smaller margin than the pack's",
        }[figure.status]
        found.append(WatchFinding(kind="run", effect=effect, detail=f"{_words(figure)}: {what}"))
    return found


def status_of(findings: Sequence[WatchFinding]) -> WatchStatus:
    """broken if any finding breaks the decision, degraded if any degrades it, else holds."""
    effects = {f.effect for f in findings}
    if "broken" in effects:
        return "broken"
    return "degraded" if "degraded" in effects else "holds"


def describe(figure: WatchFigure) -> str:
    """One figure in words, for the summary and the Markdown."""
    return _words(figure)
