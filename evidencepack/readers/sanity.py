"""Values no real run can have, found in any reader's run: each becomes a FAIL finding.

Negative latencies or throughputs, more requests completed than sent, and "successful"
requests that produced no output token (FAIL); requests sent that neither completed nor failed
(WARN: ``unaccounted_requests``; the analysis counts them as failed). A reader that keeps such
a figure would let it size capacity; here it becomes a row of ``run_findings`` that the
PROV-DATA check reads.
"""

from __future__ import annotations

from .models import LatencyStats, RunFinding, ServingRun

_STATS = ("mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "min_ms", "max_ms")


def impossible_values(run: ServingRun) -> tuple[RunFinding, ...]:
    """The impossible figures of ``run`` (none for a sound run)."""
    found: list[RunFinding] = []
    for metric in ("ttft", "tpot", "itl", "e2e"):
        stats: LatencyStats | None = getattr(run, metric)
        if stats is None:
            continue
        for name in _STATS:
            value = getattr(stats, name)
            if value is not None and value < 0:
                figure = f"{metric.upper()} {name.removesuffix('_ms')}"
                found.append(_impossible(figure, f"{figure} is negative ({value:g} ms)"))
    sent, completed = run.requests_sent, run.requests_completed
    if sent is not None and completed is not None and completed > sent:
        found.append(
            _impossible(
                "requests completed", f"{completed} requests completed but only {sent} sent"
            )
        )
    out_mean = run.tokens.output_mean_tokens
    if completed and out_mean is not None and out_mean <= 0:
        found.append(
            _impossible(
                "output tokens",
                f"{completed} successful requests with {out_mean:g} output tokens on average",
            )
        )
    return tuple(found)


def unaccounted_requests(run: ServingRun) -> tuple[RunFinding, ...]:
    """Requests a run sent that neither completed nor failed (guidellm's "incomplete": in
    flight when the benchmark ended, or cancelled). The analysis counts them as failed
    (``analyze/recompute.py``), so the gap is said, not dropped: WARN."""
    sent, completed, failed = run.requests_sent, run.requests_completed, run.requests_failed
    if sent is None or completed is None or failed is None or sent <= completed + failed:
        return ()
    gap = sent - completed - failed
    return (
        RunFinding(
            kind="unaccounted-requests",
            severity="WARN",
            figure="requests sent",
            detail=(
                f"{gap} of the {sent} requests sent neither completed nor failed (in flight "
                f"when the run ended, or cancelled): they count as failed, {sent - completed} "
                f"of {sent}"
            ),
        ),
    )


def verdict_findings(run: ServingRun) -> tuple[RunFinding, ...]:
    """A run its own tool judged INVALID, unless the reader already said so (LoadGen cites
    the log line): WARN, and never an operating point (``RunPoint.invalid``)."""
    if run.verdict != "INVALID" or any(f.kind.startswith("invalid-run") for f in run.findings):
        return ()
    why = "; ".join(run.verdict_reasons) or "no reason given"
    return (
        RunFinding(
            kind="invalid-run",
            severity="WARN",
            figure="verdict",
            detail=f"{run.tool} judged the run INVALID: {why}",
        ),
    )


def _impossible(figure: str, detail: str) -> RunFinding:
    return RunFinding(kind="impossible-value", severity="FAIL", figure=figure, detail=detail)
