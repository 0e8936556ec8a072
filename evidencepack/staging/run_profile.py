"""What a run's per-request rows say about its shape (one query for all stored runs; a run
folder's rows, read beside its log and never stored, from their columns alike).

The token-length distribution (p50, p90, p99 of prompt and output lengths, not only the
means), the run's span and its steady-state window: from the first response (before it the
server was filling: warm-up) to the last request sent (after it the load drains). Over that
window: the completion rate, TTFT p99, and the TTFT p99 and completion rate of each third of it
(a figure that drifts through the run is reported as a range). Only rows with a send time have
a window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..store import Store


@dataclass(frozen=True)
class RowProfile:
    """One run's per-request rows reduced: lengths, span, steady-state window and drift."""

    rows: int
    ok: int
    input_p50: float | None
    input_p90: float | None
    input_p99: float | None
    output_p50: float | None
    output_p90: float | None
    output_p99: float | None
    span_s: float | None
    """First send to last completion, seconds."""
    window_start_s: float | None
    """Seconds after the first send at which the first response completed (warm-up ends)."""
    window_end_s: float | None
    """Seconds after the first send at which the last request was sent (drain begins)."""
    window_completed: int = 0
    """Requests completed inside the window."""
    window_ttft_p99_ms: float | None = None
    """TTFT p99 of the successful requests sent inside the window."""
    thirds_ttft_p50_ms: tuple[float | None, ...] = ()
    """Median TTFT of the requests sent in each third of the window."""
    thirds_rate_rps: tuple[float | None, ...] = ()
    """Completions per second in each third of the window."""

    @property
    def window_s(self) -> float | None:
        """The steady-state window's length, seconds (0 or less: no steady state)."""
        if self.window_start_s is None or self.window_end_s is None:
            return None
        return self.window_end_s - self.window_start_s

    @property
    def window_rate_rps(self) -> float | None:
        """Completions per second inside the steady-state window."""
        length = self.window_s
        return self.window_completed / length if length and length > 0 else None


_COLUMNS = ("ok", "input_tokens", "output_tokens", "start_s", "ttft_ms", "e2e_ms")


def _array(columns: Mapping[str, Any], name: str) -> np.ndarray[Any, Any]:
    """A column as floats, NaN where NULL (masked)."""
    values = columns.get(name)
    if values is None:
        return np.full(len(columns["ok"]), np.nan)
    return np.ma.filled(np.ma.asarray(values, dtype=float), np.nan)


def _quantile(values: np.ndarray[Any, Any], q: float) -> float | None:
    seen = values[~np.isnan(values)]
    return float(np.quantile(seen, q)) if seen.size else None


def profile_of(columns: Mapping[str, Any]) -> RowProfile | None:
    """One run's rows (numpy columns named as ``run_requests``'s) reduced; None without rows."""
    if "ok" not in columns or len(columns["ok"]) == 0:
        return None
    ok: np.ndarray[Any, Any] = np.ma.filled(np.ma.asarray(columns["ok"], dtype=bool), False)
    inputs, outputs = _array(columns, "input_tokens"), _array(columns, "output_tokens")
    start, ttft, e2e = (
        _array(columns, "start_s"),
        _array(columns, "ttft_ms"),
        _array(columns, "e2e_ms"),
    )
    done = start + e2e / 1000.0
    base = RowProfile(
        rows=len(ok),
        ok=int(ok.sum()),
        input_p50=_quantile(inputs, 0.5),
        input_p90=_quantile(inputs, 0.9),
        input_p99=_quantile(inputs, 0.99),
        output_p50=_quantile(outputs[ok], 0.5),
        output_p90=_quantile(outputs[ok], 0.9),
        output_p99=_quantile(outputs[ok], 0.99),
        span_s=None,
        window_start_s=None,
        window_end_s=None,
    )
    timed = ~np.isnan(start)
    finished = ok & ~np.isnan(done)
    if not timed.any() or not finished.any():
        return base
    t0 = float(np.nanmin(start))
    w0, w1 = float(np.min(done[finished])), float(np.nanmax(start))
    span = float(np.nanmax(np.where(np.isnan(done), start, done))) - t0
    sent_in = ok & timed & (start >= w0) & (start <= w1)
    done_in = finished & (done >= w0) & (done <= w1)
    thirds_ttft: list[float | None] = []
    thirds_rate: list[float | None] = []
    if w1 > w0:
        third = (w1 - w0) / 3
        for k in range(3):
            low, high = w0 + k * third, w0 + (k + 1) * third
            last = k == 2
            sent = sent_in & (start >= low) & ((start <= high) if last else (start < high))
            came = done_in & (done >= low) & ((done <= high) if last else (done < high))
            thirds_ttft.append(_quantile(ttft[sent], 0.5))
            thirds_rate.append(float(came.sum()) / third)
    return replace(
        base,
        span_s=span,
        window_start_s=w0 - t0,
        window_end_s=w1 - t0,
        window_completed=int(done_in.sum()),
        window_ttft_p99_ms=_quantile(ttft[sent_in], 0.99),
        thirds_ttft_p50_ms=tuple(thirds_ttft),
        thirds_rate_rps=tuple(thirds_rate),
    )


def row_profiles(store: Store, run_ids: Sequence[str]) -> dict[str, RowProfile]:
    """Each stored run's row profile, by run id (runs without rows are absent): one query."""
    if not run_ids:
        return {}
    cursor = store.execute(
        f"SELECT run_id, {', '.join(_COLUMNS)} FROM run_requests "
        "WHERE list_contains(?::VARCHAR[], run_id) ORDER BY run_id, request_index",
        [list(run_ids)],
    )
    columns = cursor.fetchnumpy()
    ids = np.asarray(columns["run_id"], dtype=object)
    out: dict[str, RowProfile] = {}
    if ids.size == 0:
        return out
    bounds = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    for begin, end in zip(
        np.concatenate(([0], bounds)), np.concatenate((bounds, [ids.size])), strict=True
    ):
        part = {name: columns[name][begin:end] for name in _COLUMNS}
        if (profile := profile_of(part)) is not None:
            out[str(ids[begin])] = profile
    return out
