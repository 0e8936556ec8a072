"""The watch report (``watch.json``): whether a signed decision still holds, and why."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ..core._models import NonNegativeFloat, Sha256Hex, StrictModel

WATCH_API_VERSION: Literal["evidencepack/watch/v1"] = "evidencepack/watch/v1"
WatchStatus = Literal["holds", "degraded", "broken"]
"""holds: the SLO is met at the operating point with the pack's margin and nothing dated lapsed;
degraded: still met, but with a smaller margin, or something the decision rests on lapsed;
broken: the SLO is missed at the operating point, or the decision no longer stands."""
Effect = Literal["broken", "degraded", "note"]


class WatchedPack(StrictModel):
    """The pack whose decision was watched."""

    source: str = Field(description="the pack folder or archive, as given")
    evidence_digest: Sha256Hex = Field(
        description="sha256 of the pack's signed in-toto statement payload: the pack's identity"
    )
    bundle_sha256: Sha256Hex = Field(description="sha256 of the pack's signature bundle")
    signer: str = Field(description="who signed the pack, as its verification proved")
    decision_id: str = Field(description="the decision's id")
    decided_on: dt.date = Field(description="the decision's date")
    verdict: str = Field(description="the pack's own verdict")
    candidate: str = Field(description="the candidate watched: the chosen one (or recommended)")
    operating_point_rps: float = Field(
        description="X*: the per-replica request rate the decision sized with"
    )
    operating_point_run: str | None = Field(
        default=None, description="the pack's run at X*, by pack path"
    )


class WatchRun(StrictModel):
    """The new measurement of the endpoint at the operating point."""

    folder: str = Field(description="the run folder, relative to the watch folder")
    endpoint: str = Field(description="the endpoint measured (no credentials)")
    offered_rate_rps: float = Field(description="the Poisson rate offered: the pack's X*")
    achieved_rate_rps: float | None = Field(
        default=None, description="completed requests per second over the run"
    )
    duration_s: float | None = Field(default=None, description="how long the run took")
    requests_ok: int = Field(ge=0, description="requests that completed")
    requests_failed: int = Field(ge=0, description="requests that failed (429s and errors too)")
    error_rate: float | None = Field(
        default=None, ge=0, le=1, description="failed / (completed + failed)"
    )
    output_tokens_mean: float | None = Field(
        default=None, description="mean output tokens per completed request"
    )
    traffic_output_tokens_mean: float = Field(
        description="the pack's traffic: mean output tokens per request"
    )


class WatchFigure(StrictModel):
    """One SLO figure: its limit, what the pack measured at X*, what the watch measured."""

    metric: Literal["ttft_p99_ms", "tpot_p99_ms", "e2e_p99_ms", "error_rate"] = Field(
        description="the SLO figure"
    )
    limit: float | None = Field(description="the SLO's limit (None: the SLO sets none)")
    pack: float | None = Field(description="the pack's figure at its operating point")
    measured: float | None = Field(description="the watch's figure (None: not measured)")
    change: float | None = Field(
        default=None, description="measured / pack - 1 (None where either is missing or zero)"
    )
    status: Literal["met", "met, margin smaller", "missed", "not measured", "no limit"] = Field(
        description="the figure against its limit and against the pack's"
    )


class WatchFinding(StrictModel):
    """Something the decision rests on that lapsed or changed: a date, the spec, the run."""

    kind: Literal["price", "waiver", "approval", "reference", "traffic", "slo", "run"] = Field(
        description="what the finding is about"
    )
    candidate: str | None = Field(default=None, description="the candidate it concerns, if one")
    effect: Effect = Field(description="what it does to the decision")
    detail: str = Field(description="the finding in words, with its dates and figures")


class WatchReport(StrictModel):
    """``watch.json``: the decision watched, the new run, the findings and the status."""

    api_version: Literal["evidencepack/watch/v1"] = Field(
        default=WATCH_API_VERSION, alias="apiVersion", description="document version"
    )
    status: WatchStatus = Field(description="holds, degraded or broken")
    summary: str = Field(description="the status in one sentence, with its main reason")
    as_of: dt.date = Field(description="the date the dated things were judged at")
    pack: WatchedPack = Field(description="the pack watched")
    run: WatchRun = Field(description="the new run at the operating point")
    figures: tuple[WatchFigure, ...] = Field(description="each SLO figure, pack beside watch")
    findings: tuple[WatchFinding, ...] = Field(
        default=(), description="what lapsed or changed, each with its effect"
    )
    headroom: NonNegativeFloat = Field(description="the pack's headroom over the peak")
    tool_version: str = Field(description="the evidencepack version that watched")
