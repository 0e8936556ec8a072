"""One strict row model per warehouse table; the Parquet columns and JSON Schemas come from these.

Every row carries the pack's evidence digest, its decision id and its decision date; the Parquet
files add ``decision_year`` (the Hive partition, the year of ``decision_date``).
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from .._models import Sha256Hex, StrictModel


class PackKey(StrictModel):
    """What ties a row to its pack: the evidence digest, the decision id and its date."""

    pack_digest: Sha256Hex = Field(description="sha256 of the pack's manifest.json")
    decision_id: str = Field(description="the decision's id (spec decision.id)")
    decision_date: dt.date = Field(description="the decision's date (spec decision.date)")


class PackRow(PackKey):
    """One held pack: its decision's outcome, who signed it and where it was added from."""

    verdict: str = Field(description="the pack's verdict: PASS, PASS_WITH_WAIVERS or FAIL")
    recommendation: str | None = Field(description="the candidate the analysis recommends")
    chosen: str | None = Field(description="the candidate the spec names as chosen")
    owner: str = Field(description="who owns the decision")
    question: str = Field(description="the question the decision answers")
    tool_version: str = Field(description="the evidencepack version that built the pack")
    signer_mode: str = Field(description="how the pack was signed: key or keyless")
    signer: str | None = Field(
        description="the keyless signer's identity, or sha256:<fingerprint> of the signing key"
    )
    signer_issuer: str | None = Field(description="the keyless identity's OIDC issuer")
    source: str = Field(description="the absolute path of the folder or archive it was added from")
    source_kind: Literal["pack", "archive"] = Field(description="a pack folder or a .tar.gz")


class CandidateRow(PackKey):
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
    failed_checks: str = Field(description="ids of the checks it failed, comma-separated")


class CheckRow(PackKey):
    """One check result of a decision, with its waiver if one applied."""

    check_id: str = Field(description="the check's id (C1..C5, SLO-MET, QUALITY, PROV-*, DECISION)")
    title: str = Field(description="the check's title")
    candidate: str | None = Field(description="the candidate checked (none: the whole decision)")
    status: str = Field(description="PASS, WARN, FAIL, ...")
    hard: bool = Field(description="a FAIL of a hard check blocks the candidate unless waived")
    reason: str = Field(description="why the check came out so")
    waived: bool = Field(description="whether a waiver turned its FAIL into a pass")
    waiver_approver: str | None = Field(description="who approved the waiver")
    waiver_expires: dt.date | None = Field(description="the last date the waiver holds")


class FindingRow(PackKey):
    """One finding about the evidence (an invalid run, a missing figure)."""

    check_id: str = Field(description="the check that reports it")
    candidate: str = Field(description="the candidate concerned")
    subject: str = Field(description="the run or sweep concerned")
    kind: str = Field(description="what kind of finding it is")
    severity: str = Field(description="FAIL or WARN")
    figure: str | None = Field(description="the figure concerned")
    detail: str = Field(description="the finding in words")


class CapacityRow(PackKey):
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


class CostRow(PackKey):
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


class QualityRow(PackKey):
    """One candidate's quality against the bar."""

    candidate: str = Field(description="the candidate's id")
    metric: str = Field(description="the quality metric")
    n_items: int = Field(description="items scored")
    estimate: float | None = Field(description="the metric's estimate")
    ci_low: float | None = Field(description="the interval's low end")
    ci_high: float | None = Field(description="the interval's high end")
    bar_threshold: float = Field(description="the bar")
    judged_on: str = Field(description="point_estimate or confidence_bound")
    meets_bar: bool = Field(description="whether the bar is met")


class WaiverRow(PackKey):
    """One waiver the spec grants, with its expiry and whether the decision applied it."""

    check_id: str = Field(description="the check waived")
    candidate: str | None = Field(description="the candidate it applies to (none: every one)")
    reason: str = Field(description="why the finding is accepted")
    approver: str = Field(description="who accepted it")
    expires: dt.date = Field(description="the last date the waiver holds")
    applied: bool = Field(description="whether it turned a FAIL of this decision into a pass")


class ApprovalRow(PackKey):
    """One sign-off on the decision."""

    name: str = Field(description="who approved the decision")
    role: str = Field(description="their role")
    approved_on: dt.date = Field(description="when they approved it")


class ReferenceRow(PackKey):
    """One cited public result: an MLPerf result (by key) or another public reference."""

    candidate: str = Field(description="the candidate it is cited for")
    kind: Literal["mlperf", "public"] = Field(description="an MLPerf result or a public reference")
    key: str = Field(description="the MLPerf result key, or the public reference's spec path")
    round: str | None = Field(description="the MLPerf round, if any")
    source: str | None = Field(description="the benchmark (MLPerf) or the publishing tool")
    accelerator: str | None = Field(description="the accelerator the result was measured on")
    validity: str | None = Field(description="the MLPerf validity (VALID, ...), if any")
    per_accelerator_value: float | None = Field(description="the headline per accelerator")
    measured_ratio: float | None = Field(description="the candidate's own measurement over it")


class RunRow(PackKey):
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


class InputFileRow(PackKey):
    """One input file the pack holds."""

    pack_path: str = Field(description="the file's path inside the pack")
    role: str = Field(description="spec, dataset, mlperf, runs, scores or references")
    candidate: str | None = Field(description="the candidate it belongs to")
    tool: str | None = Field(description="the tool that wrote it")
    tool_version: str | None = Field(description="that tool's version")
    sha256: Sha256Hex = Field(description="the file's sha256")
    size_bytes: int = Field(description="the file's size")


class RequestRow(PackKey):
    """One request of a candidate's serving run, as the pack's evidence store holds it."""

    candidate: str | None = Field(description="the candidate the run was cited for")
    run_id: str | None = Field(
        description="the run's id as the decision names it (runs.run_id for a load point); "
        "None when the decision does not name the run"
    )
    stored_run_id: str = Field(
        description="the evidence store's id of the run: <first 12 hex of the file's "
        "sha256>#<index of the run in the file>"
    )
    run_file: str = Field(description="the pack path of the file the run was read from")
    tool: str = Field(description="the tool that measured the run")
    request_index: int = Field(description="the request's index in its run")
    ok: bool = Field(description="whether the request succeeded")
    error: str | None = Field(description="the tool's error for a failed request")
    input_tokens: int | None = Field(description="prompt tokens")
    output_tokens: int | None = Field(description="generated tokens")
    start_s: float | None = Field(description="when the request was sent, epoch seconds")
    ttft_ms: float | None = Field(description="time to first token, ms")
    e2e_ms: float | None = Field(description="end-to-end latency, ms")
    tpot_ms: float | None = Field(description="time per output token after the first, ms")
    tool_itl_ms: float | None = Field(description="the tool's own inter-token latency, ms")
    itl_gap_count: int | None = Field(description="inter-token gaps recorded")
    itl_gap_max_ms: float | None = Field(description="the longest inter-token gap, ms")


TABLES: dict[str, type[PackKey]] = {
    "packs": PackRow,
    "candidates": CandidateRow,
    "checks": CheckRow,
    "findings": FindingRow,
    "capacity": CapacityRow,
    "cost": CostRow,
    "quality": QualityRow,
    "waivers": WaiverRow,
    "approvals": ApprovalRow,
    "cited_results": ReferenceRow,
    "runs": RunRow,
    "inputs": InputFileRow,
    "requests": RequestRow,
}
"""Table name -> row model, in the order the README lists them (``requests`` only with
``add --requests``: its rows are copied in bulk from the pack's evidence store)."""

_DUCKDB_TYPES: dict[object, str] = {
    str: "VARCHAR",
    int: "BIGINT",
    float: "DOUBLE",
    bool: "BOOLEAN",
    dt.date: "DATE",
}


def _duckdb_type(annotation: object) -> str:
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return _duckdb_type(inner)
    if origin is Literal:
        return "VARCHAR"
    if origin is typing.Annotated:
        return _duckdb_type(args[0])
    return _DUCKDB_TYPES[annotation]


def columns(model: type[PackKey]) -> dict[str, str]:
    """Column name -> DuckDB type of a row model, in field order."""
    hints = typing.get_type_hints(model, include_extras=True)
    return {name: _duckdb_type(hints[name]) for name in model.model_fields}


PACK_COLUMNS = tuple(columns(PackRow))
"""The catalog's columns, in order."""


def to_pack(row: tuple[object, ...]) -> PackRow:
    """A catalog row (in PACK_COLUMNS order) as a PackRow."""
    return PackRow.model_validate(dict(zip(PACK_COLUMNS, row, strict=True)))


@dataclass(frozen=True)
class HeldFile:
    """One Parquet file of the dataset as recorded when it was written."""

    file: str
    """Its path under the warehouse folder (``tables/<table>/decision_year=YYYY/<name>``)."""
    sha256: str
    size_bytes: int
    packs: tuple[str, ...]
    """The evidence digests of the packs whose rows it holds (several after a compaction)."""
