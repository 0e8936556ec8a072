"""One strict row model per warehouse table; the Parquet columns and JSON Schemas come from these.

The tables a decision fills (candidates, checks, findings, capacity, cost, quality, waivers,
approvals, cited_results, runs) are the pack's own analysis tables: their row models are
``store/analysis_rows.py``'s, with the pack's key in front.

Every row carries the pack's evidence digest, its decision id and its decision date; the Parquet
files add ``decision_year`` (the Hive partition, the year of ``decision_date``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

import pydantic
from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..store.analysis import TABLES as ANALYSIS_TABLES
from ..store.table_model import column_types


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


class WatchRow(PackKey):
    """One held watch of a decision (``evidencepack watch``): its status as of a date, and why."""

    # The key is the watched pack's; the figures are the watch report's, the pack's beside the
    # new measurement at the operating point (None where the report has none).

    watch_digest: Sha256Hex = Field(
        description="sha256 of the watch folder's watch.json: the watch's identity"
    )
    statement_sha256: Sha256Hex = Field(
        description="sha256 of the watch's signed statement (its pack.sigstore.json)"
    )
    status: Literal["holds", "degraded", "broken"] = Field(
        description="whether the decision holds, as of as_of: holds, degraded or broken"
    )
    summary: str = Field(description="the status in one sentence, with its main reason")
    reasons: tuple[str, ...] = Field(
        description="why: each SLO figure missed or met with a smaller margin, and each "
        "finding that degrades or breaks the decision, one line each"
    )
    as_of: dt.date = Field(description="the date the watch judged the decision at")
    watched_at: str | None = Field(
        description="when the watch's run started, ISO 8601 UTC (None: the run does not say)"
    )
    endpoint: str = Field(description="the endpoint measured (no credentials)")
    candidate: str = Field(description="the candidate watched")
    operating_point_rps: float = Field(
        description="X*: the per-replica request rate the decision sized with, offered again"
    )
    achieved_rate_rps: float | None = Field(
        description="completed requests per second over the watch's run"
    )
    requests_ok: int = Field(description="requests of the watch's run that completed")
    requests_failed: int = Field(description="requests of the watch's run that failed")
    ttft_p99_ms_limit: float | None = Field(description="the SLO's TTFT p99 limit, ms")
    ttft_p99_ms_pack: float | None = Field(description="the pack's TTFT p99 at X*, ms")
    ttft_p99_ms_measured: float | None = Field(description="the watch's TTFT p99, ms")
    tpot_p99_ms_limit: float | None = Field(description="the SLO's TPOT p99 limit, ms")
    tpot_p99_ms_pack: float | None = Field(description="the pack's TPOT p99 at X*, ms")
    tpot_p99_ms_measured: float | None = Field(description="the watch's TPOT p99, ms")
    e2e_p99_ms_limit: float | None = Field(description="the SLO's end-to-end p99 limit, ms")
    e2e_p99_ms_pack: float | None = Field(description="the pack's end-to-end p99 at X*, ms")
    e2e_p99_ms_measured: float | None = Field(description="the watch's end-to-end p99, ms")
    error_rate_limit: float | None = Field(description="the SLO's error-rate limit")
    error_rate_pack: float | None = Field(description="the pack's error rate at X*")
    error_rate_measured: float | None = Field(description="the watch's error rate")
    signer_mode: str = Field(description="how the watch was signed: key or keyless")
    signer: str | None = Field(
        description="the keyless signer's identity, or sha256:<fingerprint> of the signing key"
    )
    signer_issuer: str | None = Field(description="the keyless identity's OIDC issuer")
    source: str = Field(description="the absolute path of the watch folder it was added from")
    source_kind: Literal["pack", "archive"] = Field(
        description="a watch folder (pack) or a .tar.gz of one (archive)"
    )


def _keyed(model: type[pydantic.BaseModel]) -> type[PackKey]:
    """An analysis table's row model with the pack's key in front of its own columns."""
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in model.model_fields.items()
        if name not in PackKey.model_fields
    }
    keyed = pydantic.create_model(  # the same name, text and columns as the pack's table
        model.__name__, __base__=PackKey, __doc__=model.__doc__, __module__=__name__, **fields
    )
    return keyed


DECISION_TABLES = (
    "candidates",
    "checks",
    "findings",
    "capacity",
    "cost",
    "quality",
    "waivers",
    "approvals",
    "cited_results",
    "runs",
)
"""The warehouse tables that are the pack's own analysis tables (``store/analysis.py``): the
same row model, the same columns, with ``pack_digest`` and ``decision_date`` beside the decision
id."""

_ANALYSIS = {name: _keyed(ANALYSIS_TABLES[name].model) for name in DECISION_TABLES}

TABLES: dict[str, type[PackKey]] = {
    "packs": PackRow,
    **_ANALYSIS,
    "inputs": InputFileRow,
    "requests": RequestRow,
    "watches": WatchRow,
}
"""Table name -> row model, in the order the README lists them (``requests`` only with
``add --requests``: its rows are copied in bulk from the pack's evidence store; ``watches``: one
row per watch folder added)."""


def columns(model: type[PackKey]) -> dict[str, str]:
    """Column name -> DuckDB type of a row model, in field order."""
    return column_types(model)


PACK_COLUMNS = tuple(columns(PackRow))
"""The catalog's columns, in order."""


def to_pack(row: tuple[object, ...]) -> PackRow:
    """A catalog row (in PACK_COLUMNS order) as a PackRow."""
    return PackRow.model_validate(dict(zip(PACK_COLUMNS, row, strict=True)))


WATCH_COLUMNS = tuple(columns(WatchRow))
"""The catalog's columns of held watches, in order."""


def to_watch(row: tuple[object, ...]) -> WatchRow:
    """A catalog row (in WATCH_COLUMNS order) as a WatchRow."""
    return WatchRow.model_validate(dict(zip(WATCH_COLUMNS, row, strict=True)))


@dataclass(frozen=True)
class HeldFile:
    """One Parquet file of the dataset as recorded when it was written."""

    file: str
    """Its path under the warehouse folder (``tables/<table>/decision_year=YYYY/<name>``)."""
    sha256: str
    size_bytes: int
    packs: tuple[str, ...]
    """The evidence digests of the packs (or watch digests of the watches) whose rows it holds
    (several after a compaction)."""
