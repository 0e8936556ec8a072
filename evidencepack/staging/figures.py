"""What staging takes and gives back: columnar rows, and the figures it reduces them to.

``Columns`` are a file's rows as staging returns them (one numpy array per column); a
``LatencyStats`` is one latency distribution with what it measures (see ``DEFINITIONS``), an
``AggregateCheck`` a tool's own figure against the one recomputed from the rows. The readers'
models (``readers/models.py``) are built from these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pydantic import Field

from ..core._models import StrictModel

if TYPE_CHECKING:  # numpy loads with the first columns built (small files), not at import
    import numpy as np

Columns = Mapping[str, "np.ndarray[Any, Any]"]
"""Columnar rows (one numpy array per column, masked where NULL) bound for a store table."""

LatencyMetric = Literal["ttft", "tpot", "itl", "e2e"]
Definition = Literal[
    "ttft",
    "tpot_excl_first",
    "tpot_incl_first",
    "itl_gap",
    "itl_incl_first",
    "itl_token_gap",
    "e2e",
]
Weighting = Literal["request", "token", "gap"]
StatsSource = Literal["per_request", "tool_aggregate"]

DEFINITIONS: dict[str, str] = {
    "ttft": "time from sending the request to receiving the first output token",
    "tpot_excl_first": "per request (e2e latency - TTFT) / (output tokens - 1): excludes the "
    "first token",
    "tpot_incl_first": "per request latency / output tokens: includes the first token "
    "(guidellm's time_per_output_token_ms)",
    "itl_gap": "each gap between consecutive streamed output chunks, pooled over requests",
    "itl_incl_first": "per request mean gap between tokens counting the TTFT as the first gap "
    "(llmperf's inter_token_latency)",
    "itl_token_gap": "each gap between consecutive output token times, pooled over requests, "
    "a streamed chunk's tokens sharing its arrival time when the tool re-tokenizes (0 ms gaps "
    "inside a chunk; inference-perf)",
    "e2e": "time from sending the request to receiving the complete response",
}
"""What each definition means; the README and ``inspect`` print these."""

CANONICAL: dict[str, Definition] = {
    "ttft": "ttft",
    "tpot": "tpot_excl_first",
    "itl": "itl_gap",
    "e2e": "e2e",
}
"""The definition evidencepack compares on, per metric. Anything else is marked, never mixed."""


class LatencyStats(StrictModel):
    """One latency distribution in milliseconds, with what it measures and how it was weighted.

    ``weighting``: ``request`` (one value per request), ``token`` (each request's value counted
    once per output token, guidellm's aggregates) or ``gap`` (every inter-chunk gap pooled).
    ``source``: ``per_request`` when recomputed in SQL from the file's per-request rows,
    ``tool_aggregate`` when it is the tool's own figure.
    """

    metric: LatencyMetric
    definition: Definition
    weighting: Weighting
    source: StatsSource
    count: int | None = Field(default=None, ge=0)
    mean_ms: float | None = None
    p50_ms: float | None = None
    p90_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    min_ms: float | None = None
    max_ms: float | None = None
    std_ms: float | None = None
    extra_percentiles_ms: dict[str, float] = Field(default_factory=dict)

    @property
    def canonical(self) -> bool:
        """True when this is the definition evidencepack compares on, per request or per gap."""
        return self.definition == CANONICAL[self.metric] and self.weighting != "token"


class AggregateCheck(StrictModel):
    """The tool's own figure against the value recomputed in SQL from the per-request rows.

    ``ok`` when ``tool_value`` lies in ``[lower, upper]``: for a mean, the recomputed value
    widened by the tolerance; for a percentile, the order statistics that any standard
    percentile definition could pick (see ``staging/stage.compare``), widened the same way.
    """

    metric: str
    statistic: str
    tool_value: float
    recomputed_value: float
    lower: float
    upper: float
    ok: bool


class RunSummary(NamedTuple):
    """What one statement reads of each staged run: counts, token means and sums, and the window of
    its successful requests (``stage.Staging.run_summary``)."""

    rows: int
    ok: int
    empty: int
    mean_in: float | None
    mean_out: float | None
    total_in: float
    total_out: float
    first_start: float | None
    last_end: float | None


NO_ROWS = RunSummary(0, 0, 0, None, None, 0, 0, None, None)


class SummaryReads:
    """What a staged run's ``RunSummary`` answers, for a file staged alone (``Staging``) or in a
    batch (``StagedRun``); ``run_summary`` gives the summary of one run."""

    def run_summary(self, run_index: int) -> RunSummary:
        """The summary of one staged run."""
        raise NotImplementedError

    def counts(self, run_index: int) -> tuple[int, int]:
        """(rows, ok rows) of one run."""
        summary = self.run_summary(run_index)
        return int(summary.rows), int(summary.ok)

    def empty_outputs(self, run_index: int) -> int:
        """Requests of one run the tool counted as successes that produced no output token."""
        return int(self.run_summary(run_index).empty)

    def token_means(self, run_index: int) -> tuple[float | None, float | None, int, int]:
        """Mean and total input and output tokens over one run's successful requests."""
        s = self.run_summary(run_index)
        return s.mean_in, s.mean_out, int(s.total_in), int(s.total_out)

    def window(self, run_index: int) -> tuple[float | None, float | None]:
        """The first successful request's start and the last one's end (epoch seconds)."""
        s = self.run_summary(run_index)
        return s.first_start, s.last_end
