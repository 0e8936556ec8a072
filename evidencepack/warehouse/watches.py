"""A verified watch folder (``evidencepack watch``) as a ``watches`` row, bound to a held pack.

A watch is held only beside the pack it watched: its ``watch.json`` must name a pack this
warehouse holds (evidence digest, decision id and date), and the watched pack's signature bundle
the watch carries must be the one the report names. The watch's identity is the sha256 of its
``watch.json``; a second add of the same watch is skipped, as a pack's is.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import pydantic

from ..errors import InputError
from ..mlperf.measure_record import MeasureRunRecord
from ..signing.signer import SignerInfo
from ..watch.models import WatchReport
from ..watch.run import RUN_FOLDER, WATCH_FILES, WATCHED_BUNDLE
from .models import PackRow, WatchRow
from .rows import signer_columns

WATCH_DOCUMENT = WATCH_FILES[0]
RUN_RECORD = f"{RUN_FOLDER}/run.json"
_FIGURES = ("ttft_p99_ms", "tpot_p99_ms", "e2e_p99_ms", "error_rate")


def is_watch(folder: Path) -> bool:
    """Whether the verified folder is a watch folder (``watch.json``, no ``decision.json``)."""
    return (folder / WATCH_DOCUMENT).is_file() and not (folder / "decision.json").exists()


def _report(folder: Path, label: str) -> tuple[WatchReport, str]:
    try:
        raw = (folder / WATCH_DOCUMENT).read_bytes()
        return WatchReport.model_validate_json(raw), hashlib.sha256(raw).hexdigest()
    except pydantic.ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise InputError(f"{label}: {WATCH_DOCUMENT} is not readable at {where}: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{label}: cannot read {WATCH_DOCUMENT}: {exc.strerror}") from exc


def _started(folder: Path) -> str | None:
    """When the watch's run started, from its run record (None: no readable record)."""
    try:
        record = MeasureRunRecord.model_validate_json((folder / RUN_RECORD).read_bytes())
    except (OSError, pydantic.ValidationError):
        return None
    return record.started_utc


def binding_problems(report: WatchReport, folder: Path, held: list[PackRow]) -> list[str]:
    """Why the watch is not bound to a pack this warehouse holds (empty: it is)."""
    watched = report.pack
    try:
        bundle = hashlib.sha256((folder / WATCHED_BUNDLE).read_bytes()).hexdigest()
    except OSError:
        return [f"{WATCHED_BUNDLE}: missing: the watch does not carry the watched pack's bundle"]
    if bundle != watched.bundle_sha256:
        return [
            f"{WATCHED_BUNDLE}: sha256 {bundle}, but {WATCH_DOCUMENT} names the watched pack's "
            f"bundle {watched.bundle_sha256}"
        ]
    pack = next((p for p in held if p.pack_digest == watched.evidence_digest), None)
    if pack is None:
        return [
            f"{WATCH_DOCUMENT}: watches pack {watched.evidence_digest} ({watched.decision_id}), "
            "which this warehouse does not hold: add the pack first"
        ]
    if (pack.decision_id, pack.decision_date) != (watched.decision_id, watched.decided_on):
        return [
            f"{WATCH_DOCUMENT}: names decision {watched.decision_id!r} of {watched.decided_on}, "
            f"but pack {pack.pack_digest} holds {pack.decision_id!r} of {pack.decision_date}"
        ]
    return []


def _reasons(report: WatchReport) -> tuple[str, ...]:
    figures = [
        f"{f.metric}: {f.status}: measured {f.measured:g} against the pack's "
        f"{'-' if f.pack is None else f'{f.pack:g}'} (limit "
        f"{'none' if f.limit is None else f'{f.limit:g}'})"
        for f in report.figures
        if f.status in ("missed", "met, margin smaller") and f.measured is not None
    ]
    findings = [
        f"{f.kind}{f' ({f.candidate})' if f.candidate else ''}: {f.effect}: {f.detail}"
        for f in report.findings
        if f.effect != "note"
    ]
    return (*figures, *findings)


def watch_row(
    folder: Path,
    *,
    label: str,
    source: str,
    source_kind: Literal["pack", "archive"],
    signer: SignerInfo | None,
    statement_sha256: str,
) -> tuple[WatchReport, WatchRow]:
    """The verified watch in ``folder`` (``label`` names it in errors) as its row."""
    report, digest = _report(folder, label)
    mode, who, issuer = signer_columns(signer)
    figures: dict[str, float | None] = {}
    for metric in _FIGURES:
        figure = next((f for f in report.figures if f.metric == metric), None)
        figures[f"{metric}_limit"] = figure.limit if figure else None
        figures[f"{metric}_pack"] = figure.pack if figure else None
        figures[f"{metric}_measured"] = figure.measured if figure else None
    row = WatchRow(
        pack_digest=report.pack.evidence_digest,
        decision_id=report.pack.decision_id,
        decision_date=report.pack.decided_on,
        watch_digest=digest,
        statement_sha256=statement_sha256,
        status=report.status,
        summary=report.summary,
        reasons=_reasons(report),
        as_of=report.as_of,
        watched_at=_started(folder),
        endpoint=report.run.endpoint,
        candidate=report.pack.candidate,
        operating_point_rps=report.pack.operating_point_rps,
        achieved_rate_rps=report.run.achieved_rate_rps,
        requests_ok=report.run.requests_ok,
        requests_failed=report.run.requests_failed,
        **figures,
        signer_mode=mode,
        signer=who,
        signer_issuer=issuer,
        source=source,
        source_kind=source_kind,
    )
    return report, row
