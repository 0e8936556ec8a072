"""A run's figures recomputed from the same file, never taken at the file's word.

A serving tool's summary states its request throughput, output token throughput and failed
requests; the same file states the counts and the duration they come from. Each figure is
recomputed from those (``completed / duration``, ``total output tokens / duration``,
``sent - completed`` failed when the file counts fewer) and the recomputed figure, never the
stated one, sizes and prices. A stated figure that disagrees beyond ``FIGURE_TOLERANCE`` is a
PROV-DATA failure naming the file, both figures and how the second was computed. Requests a
run sent that neither completed nor failed count as failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..readers.models import ServingRun
from .judgements import RecomputedFigure

FIGURE_TOLERANCE = 0.05
"""How far (a fraction of the recomputed figure) a stated throughput may lie from the one its
own counts and duration give: 5%, plus half a unit of the last decimal the tool printed."""


@dataclass(frozen=True)
class Recomputed:
    """A run's figures as its own counts give them, and each one beside the stated one."""

    request_rate_rps: float | None
    output_tokens_per_s: float | None
    failed: int
    figures: tuple[RecomputedFigure, ...]

    def disagreements(self) -> list[RecomputedFigure]:
        """The stated figures the file's own counts contradict."""
        return [f for f in self.figures if f.agrees is False]


def _slack(stated: float) -> float:
    """Half a unit of the last decimal a tool that rounds (LoadGen's summary: 2 decimals)
    printed: a figure of 1.82 may stand for 1.8249. A whole number gets none (JSON writes 8.0
    as 8: a rate of 8 is not "8 give or take 0.5")."""
    text = f"{stated:.10g}"
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10.0**-decimals if 1 <= decimals <= 3 else 0.0


def _agrees(stated: float | None, recomputed: float | None) -> bool | None:
    if stated is None or recomputed is None:
        return None
    return abs(stated - recomputed) <= FIGURE_TOLERANCE * abs(recomputed) + _slack(stated)


def recompute(run: ServingRun) -> Recomputed:
    """The run's request rate, output token rate and failed requests from its own counts."""
    duration = run.duration_s if run.duration_s else None
    completed = run.requests_completed
    sent = run.requests_sent
    stated_failed = run.requests_failed
    counted = (completed or 0) + (stated_failed or 0)
    failed = stated_failed or 0
    figures: list[RecomputedFigure] = []
    if sent is not None and completed is not None and sent > counted:
        failed = sent - (completed or 0)
        figures.append(
            RecomputedFigure(
                figure="failed requests",
                stated=float(stated_failed) if stated_failed is not None else None,
                recomputed=float(failed),
                unit="requests",
                how=f"sent - completed = {sent} - {completed}: requests neither completed nor "
                "failed count as failed",
                agrees=False if stated_failed is not None else None,
            )
        )
    rate = None
    if duration is not None and completed is not None:
        rate = completed / duration
        figures.append(
            RecomputedFigure(
                figure="request throughput",
                stated=run.request_throughput_per_s,
                recomputed=rate,
                unit="req/s",
                how=f"completed / duration = {completed} / {duration:.4g} s",
                # LoadGen counts a failed request as a completed sample: its rate may
                # include them (the failed are never what sizes).
                agrees=_agrees(run.request_throughput_per_s, rate)
                or (
                    bool(failed)
                    and _agrees(run.request_throughput_per_s, (completed + failed) / duration)
                ),
            )
        )
    tokens = None
    total_out = run.tokens.output_total_tokens
    if duration is not None and total_out is not None:
        tokens = total_out / duration
        figures.append(
            RecomputedFigure(
                figure="output token throughput",
                stated=run.output_token_throughput_per_s,
                recomputed=tokens,
                unit="tok/s",
                how=f"total output tokens / duration = {total_out} / {duration:.4g} s",
                agrees=_agrees(run.output_token_throughput_per_s, tokens),
            )
        )
    return Recomputed(
        request_rate_rps=rate if rate is not None else run.request_throughput_per_s,
        output_tokens_per_s=tokens if tokens is not None else run.output_token_throughput_per_s,
        failed=failed,
        figures=tuple(figures),
    )


def disagreement_text(name: str, figure: RecomputedFigure) -> str:
    """A disagreement as PROV-DATA names it: the file, both figures and how the second was
    computed."""

    def show(value: float | None) -> str:
        return "nothing" if value is None else f"{value:.4g}"

    return (
        f"{name} states {figure.figure} {show(figure.stated)} {figure.unit} but its own counts "
        f"give {show(figure.recomputed)} {figure.unit} ({figure.how}; tolerance "
        f"{FIGURE_TOLERANCE:.0%}): the recomputed figure is the one used"
    )
