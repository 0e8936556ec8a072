"""One row model per analysis table: a decision as rows, in the pack's ``evidence.duckdb`` and in
the warehouse alike.

``analyze/decision_rows.py`` makes these rows from a ``decision.json``; ``store/analysis.py``
generates the pack's DDL from them (``store/table_model.py``); the warehouse holds the same tables
with the pack's digest and decision date in front (``warehouse/models.py``). A new column is one
described field here.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from .table_model import JsonText


class DecisionRow(StrictModel):
    """What every analysis row starts with: the decision it belongs to."""

    decision_id: str = Field(description="the decision's id (spec decision.id)")


class DecisionSummaryRow(DecisionRow):
    """One compiled decision: its outcome and the whole decision.json."""

    spec_sha256: Sha256Hex = Field(description="sha256 of the spec the decision was compiled from")
    as_of: dt.date = Field(description="the date the evidence was judged at (spec decision.date)")
    objective: str = Field(description="the objective the eligible candidates are ranked by")
    recommendation: str | None = Field(description="the candidate the analysis recommends")
    chosen: str | None = Field(description="the candidate the spec names as chosen")
    chosen_agrees: bool | None = Field(
        description="whether the chosen candidate is the recommended one (None: none chosen)"
    )
    verdict: str = Field(description="the pack's verdict: PASS, PASS_WITH_WAIVERS or FAIL")
    summary: str = Field(description="the decision in one paragraph")
    document: JsonText = Field(description="the whole decision.json, as JSON")


class CandidateRow(DecisionRow):
    """One candidate of a decision: its stack, verdict, accelerators and costs."""

    candidate: str = Field(description="the candidate's id")
    accelerator: str = Field(description="the accelerator model")
    runtime: str = Field(description="the production runtime (spec candidates[].stack.runtime)")
    runtime_version: str = Field(description="the runtime's version")
    precision: str = Field(description="the production precision")
    eligible: bool = Field(description="whether the candidate passed every hard check")
    is_recommended: bool = Field(description="whether the analysis recommends it")
    is_chosen: bool = Field(description="whether the spec names it as chosen")
    accelerators_needed: int | None = Field(description="accelerators needed at the SLO")
    servers_needed: int | None = Field(description="servers needed at the SLO")
    accelerators_billed: int | None = Field(description="accelerators billed")
    cost_per_month: float | None = Field(description="cost per month, in currency")
    cost_per_year: float | None = Field(description="cost per year, in currency")
    cost_per_million_output_tokens: float | None = Field(
        description="cost per 1M output tokens at the operating point, in currency"
    )
    currency: str = Field(description="ISO 4217 currency of the costs")
    quality_estimate: float | None = Field(description="the quality metric's estimate")
    quality_meets_bar: bool = Field(description="whether the quality bar is met")
    price_per_accelerator_hour: float | None = Field(description="the quoted price, if rented")
    price_as_of: dt.date | None = Field(description="the date the price was quoted")
    price_source: str | None = Field(description="where the price comes from")
    failed_checks: tuple[str, ...] = Field(description="ids of the checks it failed")


class CheckRow(DecisionRow):
    """One check result of a decision, with its waiver if one applied."""

    ordinal: int = Field(description="the check's place in the decision's list of checks")
    check_id: str = Field(description="the check's id (C1..C5, SLO-MET, QUALITY, PROV-*, DECISION)")
    title: str = Field(description="the check's title")
    candidate: str | None = Field(description="the candidate checked (none: the whole decision)")
    status: str = Field(description="PASS, WARN, FAIL, ...")
    hard: bool = Field(description="a FAIL of a hard check blocks the candidate unless waived")
    reason: str = Field(description="why the check came out so")
    evidence: tuple[str, ...] = Field(
        description="the rows it rests on: run ids, score-set ids, MLPerf keys or check ids"
    )
    waived: bool = Field(description="whether a waiver turned its FAIL into a pass")
    waiver_approver: str | None = Field(description="who approved the waiver")
    waiver_expires: dt.date | None = Field(description="the last date the waiver holds")


class FindingRow(DecisionRow):
    """One finding about the evidence (an invalid run, a missing figure)."""

    ordinal: int = Field(description="the finding's place in the decision's list of findings")
    check_id: str = Field(description="the check that reports it")
    candidate: str = Field(description="the candidate concerned")
    subject: str = Field(description="the run or sweep concerned")
    model: str | None = Field(description="the run's model, recorded or declared")
    kind: str = Field(description="what kind of finding it is")
    severity: str = Field(description="FAIL, WARN or NOTE (expected by design)")
    figure: str | None = Field(description="the figure concerned")
    detail: str = Field(description="the finding in words")
    pack_paths: tuple[str, ...] = Field(description="the pack paths of the files it rests on")


class ComparabilityRow(DecisionRow):
    """One piece of evidence against the envelope: like for like, or how it differs."""

    candidate: str = Field(description="the candidate the evidence is cited for")
    subject: str = Field(description="run id, score-set id or MLPerf result key")
    kind: str = Field(description="run, scores, mlperf or reference")
    like_for_like: bool = Field(description="whether it matches the envelope on every field")
    differences: JsonText = Field(
        description="the fields that differ, as a JSON list of {field, envelope, observed, detail}"
    )
    unknown: tuple[str, ...] = Field(description="envelope fields nobody states")
    declared: tuple[str, ...] = Field(description="envelope fields only the spec declares")


class RunRow(DecisionRow):
    """One load point of a candidate's serving runs."""

    candidate: str = Field(description="the candidate's id")
    run_id: str = Field(description="the run's id (its spec path)")
    tool: str | None = Field(description="the tool that measured it")
    offered_rate_rps: float | None = Field(description="the open-loop target rate, if any")
    concurrency: int | None = Field(description="the closed-loop concurrency, if any")
    achieved_rate_rps: float = Field(description="the achieved requests/s")
    output_tokens_per_s: float = Field(description="output tokens/s")
    ttft_p99_ms: float | None = Field(description="time to first token, p99, ms")
    tpot_p99_ms: float | None = Field(description="time per output token, p99, ms")
    e2e_p99_ms: float | None = Field(description="end-to-end latency, p99, ms")
    error_rate: float = Field(description="the fraction of requests that failed")
    meets_slo: bool = Field(description="whether the load point meets the SLO")
    misses: tuple[str, ...] = Field(description="the SLO figures it misses")


class CapacityRow(DecisionRow):
    """How one candidate was sized: its operating point, replicas and accelerators."""

    candidate: str = Field(description="the candidate's id")
    method: str = Field(description="how the operating point was found")
    confidence: str = Field(description="sweep, single_point or none")
    operating_point_rps: float | None = Field(description="requests/s per replica at the SLO")
    operating_point_run: str | None = Field(description="the run the operating point comes from")
    output_tokens_per_s_at_op: float | None = Field(description="output tok/s per replica there")
    required_rate_rps: float = Field(description="peak requests/s times (1 + headroom)")
    replicas: int | None = Field(description="replicas needed")
    accelerators: int | None = Field(description="accelerators needed")
    servers: int | None = Field(description="servers needed")
    arithmetic: str = Field(description="the sizing arithmetic written out")
    reason: str = Field(description="why the candidate was sized so, or could not be")


class CostRow(DecisionRow):
    """One candidate's cost at its operating point."""

    candidate: str = Field(description="the candidate's id")
    currency: str = Field(description="ISO 4217 currency")
    price_per_accelerator_hour: float | None = Field(
        description="the price per accelerator-hour (None: it could not be read from its file)"
    )
    billed_per: str = Field(description="server or accelerator")
    utilisation: float = Field(description="the utilisation the cost assumes")
    per_million_output_tokens: float | None = Field(description="cost per 1M output tokens")
    per_request: float | None = Field(description="cost per request")
    per_month: float | None = Field(description="cost per month")
    per_year: float | None = Field(description="cost per year")
    spread_min: float | None = Field(
        description="the lowest cost per 1M output tokens over repeated runs at the operating load"
    )
    spread_max: float | None = Field(
        description="the highest cost per 1M output tokens over repeated runs at the operating load"
    )
    arithmetic: str = Field(description="the cost arithmetic written out")


class QualityRow(DecisionRow):
    """One candidate's quality against the bar."""

    candidate: str = Field(description="the candidate's id")
    metric: str = Field(description="the quality metric")
    n_items: int = Field(description="items scored")
    estimate: float | None = Field(description="the metric's estimate")
    ci_low: float | None = Field(description="the interval's low end")
    ci_high: float | None = Field(description="the interval's high end")
    confidence_level: float = Field(description="the interval's confidence level")
    method: str = Field(description="how the interval was computed: wilson, bootstrap or none")
    bar_threshold: float = Field(description="the bar")
    judged_on: str = Field(description="point_estimate or confidence_bound")
    judged_value: float | None = Field(description="the value judged against the bar")
    meets_bar: bool = Field(description="whether the bar is met")


class ReferenceRow(DecisionRow):
    """One cited public result: an MLPerf result (by key) or another public reference."""

    candidate: str = Field(description="the candidate it is cited for")
    kind: Literal["mlperf", "public"] = Field(description="an MLPerf result or a public reference")
    key: str = Field(description="the MLPerf result key, or the public reference's spec path")
    round: str | None = Field(description="the MLPerf round, if any")
    source: str | None = Field(description="the benchmark (MLPerf) or the publishing tool")
    scenario: str | None = Field(description="the MLPerf scenario, if any")
    accelerator: str | None = Field(description="the accelerator the result was measured on")
    validity: str | None = Field(description="the MLPerf validity (VALID, ...), if any")
    per_accelerator_value: float | None = Field(description="the headline per accelerator")
    stack_matches: bool | None = Field(
        description="whether the MLPerf result's stack is the candidate's (None: public)"
    )
    discount: float | None = Field(description="the discount applied to the MLPerf headline")
    discounted_per_accelerator_value: float | None = Field(
        description="the MLPerf headline per accelerator after the discount"
    )
    measured_ratio: float | None = Field(description="the candidate's own measurement over it")


class ClaimRow(DecisionRow):
    """One figure the report shows, typed by where it comes from."""

    claim_id: str = Field(description="the claim's id")
    kind: str = Field(description="measured, proxy, inherited or simulated")
    candidate: str | None = Field(description="the candidate it is about (none: the decision)")
    statement: str = Field(description="what the figure is, in words")
    value: float | None = Field(description="the figure, in unit")
    unit: str = Field(description="the figure's unit")


class ClaimEvidenceRow(DecisionRow):
    """One evidence row a claim rests on."""

    claim_id: str = Field(description="the claim's id")
    row_id: str = Field(description="run id, score-set id, MLPerf result key or check id")
    file_sha256: str | None = Field(description="sha256 of the file the row was read from")
    pack_path: str | None = Field(description="that file's path inside the pack")


class WaiverRow(DecisionRow):
    """One waiver the spec grants, with its expiry and whether the decision applied it."""

    check_id: str = Field(description="the check waived")
    candidate: str | None = Field(description="the candidate it applies to (none: every one)")
    reason: str = Field(description="why the finding is accepted")
    approver: str = Field(description="who accepted it")
    expires: dt.date = Field(description="the last date the waiver holds")
    applied: bool = Field(description="whether it turned a FAIL of this decision into a pass")


class ApprovalRow(DecisionRow):
    """One sign-off on the decision."""

    name: str = Field(description="who approved the decision")
    role: str = Field(description="their role")
    approved_on: dt.date = Field(description="when they approved it")
