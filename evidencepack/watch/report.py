"""The watch report in words: Markdown (``watch.md``, a CI summary), HTML and PDF (one page, in
the pack's style). Every value from the pack or the endpoint is escaped."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import jinja2

from ..diff.summary import md
from ..errors import RenderError
from .judge import describe
from .models import WatchFigure, WatchReport

TEMPLATE = "watch.html.j2"
_MARK = {"holds": "\u2705", "degraded": "\u26a0\ufe0f", "broken": "\u274c"}


def _num(figure: WatchFigure, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if figure.metric == "error_rate" else f"{value:,.1f} ms"


def figure_rows(report: WatchReport) -> list[tuple[str, ...]]:
    """One row per SLO figure: name, limit, pack, watch, change, status."""
    names = {
        "ttft_p99_ms": "TTFT p99",
        "tpot_p99_ms": "TPOT p99",
        "e2e_p99_ms": "end-to-end p99",
        "error_rate": "error rate",
    }
    return [
        (
            names[f.metric],
            _num(f, f.limit),
            _num(f, f.pack),
            _num(f, f.measured),
            "-" if f.change is None else f"{f.change:+.0%}",
            f.status,
        )
        for f in report.figures
    ]


def run_line(report: WatchReport) -> str:
    """The new run in one sentence."""
    run = report.run
    achieved = "-" if run.achieved_rate_rps is None else f"{run.achieved_rate_rps:.3g}"
    tokens = (
        ""
        if run.output_tokens_mean is None
        else f"; {run.output_tokens_mean:.0f} output tokens a request on average (the traffic's: "
        f"{run.traffic_output_tokens_mean:.0f})"
    )
    return (
        f"Offered {run.offered_rate_rps:.3g} requests/s (Poisson), achieved {achieved}; "
        f"{run.requests_ok} completed, {run.requests_failed} failed{tokens}."
    )


def markdown(report: WatchReport) -> str:
    """``watch.md``: the status, the figures and the findings."""
    lines = [
        f"### {_MARK[report.status]} evidencepack watch: {md(report.pack.decision_id)}: "
        f"{report.status}",
        "",
        md(report.summary),
        "",
        f"Pack {md(report.pack.source)} (evidence digest {md(report.pack.evidence_digest)}), "
        f"candidate {md(report.pack.candidate)}, as of {report.as_of.isoformat()}.",
        "",
        "| figure | limit | pack at X* | watch | change | status |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in figure_rows(report)]
    lines += ["", md(run_line(report))]
    if report.findings:
        lines += ["", "| effect | about | finding |", "|---|---|---|"]
        lines += [
            f"| {f.effect} | {md(f.kind)}{' (' + md(f.candidate) + ')' if f.candidate else ''} "
            f"| {md(f.detail)} |"
            for f in report.findings
        ]
    return "\n".join(lines) + "\n"


def text(report: WatchReport) -> str:
    """The terminal's lines: status, summary, the figures and the findings."""
    lines = [f"{report.pack.decision_id}: {report.status.upper()}", report.summary]
    lines += [f"  {describe(f)}: {f.status}" for f in report.figures if f.status != "no limit"]
    lines += [f"  {f.effect}: {f.detail}" for f in report.findings if f.kind != "run"]
    return "\n".join(lines)


@dataclass(frozen=True)
class WatchView:
    """The rows the template shows, in words."""

    rate: str
    figures: list[tuple[str, ...]]
    run: str


def render_html(report: WatchReport) -> str:
    """The one-page watch report's HTML (deterministic: its date is the watch's as-of)."""
    from ..render.html import environment

    view = WatchView(
        rate=f"{report.pack.operating_point_rps:.3g} req/s",
        figures=figure_rows(report),
        run=run_line(report),
    )
    try:
        return environment().get_template(TEMPLATE).render(w=report, t=view)
    except jinja2.TemplateError as exc:
        raise RenderError(f"the watch template failed: {exc}") from exc


def render_pdf_bytes(report: WatchReport, html: str, watch_json: bytes) -> bytes:
    """The watch report as PDF/A-3b with ``watch.json`` embedded."""
    from ..render.pdf import Attachment, render_pdf

    created = dt.datetime.combine(report.as_of, dt.time(0), tzinfo=dt.UTC)
    return render_pdf(
        html,
        created=created,
        attachments=[
            Attachment(
                name="watch.json",
                data=watch_json,
                mime_type="application/json",
                description="the watch report",
            )
        ],
    )
