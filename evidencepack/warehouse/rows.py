"""A verified pack's ``decision.json`` and ``manifest.json`` as warehouse rows, by table."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

import pydantic

from ..analyze.models import DecisionDocument
from ..errors import InputError
from ..pack.layout import DECISION_NAME, MANIFEST_NAME
from ..pack.manifest import EvidenceManifest
from ..signing.signer import SignerInfo
from .models import (
    ApprovalRow,
    CandidateRow,
    CapacityRow,
    CheckRow,
    CostRow,
    FindingRow,
    InputFileRow,
    PackKey,
    PackRow,
    QualityRow,
    ReferenceRow,
    RunRow,
    WaiverRow,
)
from .per_request import RequestsSource, requests_source


class _Key(TypedDict):
    pack_digest: str
    decision_id: str
    decision_date: dt.date


@dataclass(frozen=True)
class PackRows:
    """Every row one pack contributes, by table name (see ``models.TABLES``)."""

    digest: str
    decision_id: str
    decision_date_iso: str
    tables: dict[str, list[PackKey]]
    pack: PackRow
    requests: RequestsSource | None = None
    """With ``add --requests``: the pack's per-request rows, copied in bulk when staged."""


def evidence_digest(folder: Path) -> str:
    """The pack's evidence digest: sha256 of its manifest.json."""
    return hashlib.sha256((folder / MANIFEST_NAME).read_bytes()).hexdigest()


def _read(folder: Path, label: str) -> tuple[DecisionDocument, EvidenceManifest]:
    try:
        decision = DecisionDocument.model_validate_json((folder / DECISION_NAME).read_bytes())
        manifest = EvidenceManifest.model_validate_json((folder / MANIFEST_NAME).read_bytes())
    except pydantic.ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise InputError(f"{label}: {exc.title} is not readable at {where}: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{label}: cannot read {exc.filename}: {exc.strerror}") from exc
    return decision, manifest


def _signer(info: SignerInfo | None) -> tuple[str, str | None, str | None]:
    if info is None:
        return "unknown", None, None
    if info.mode == "key":
        return "key", f"sha256:{info.key_fingerprint or info.key_hint}", None
    return str(info.mode), info.identity, info.issuer


def pack_rows(
    folder: Path,
    *,
    label: str,
    source: str,
    source_kind: Literal["pack", "archive"],
    signer: SignerInfo | None,
    requests: bool = False,
) -> PackRows:
    """The rows of the verified pack in ``folder`` (``label`` names it in errors); with
    ``requests``, where its per-request rows are (``per_request.py`` copies them)."""
    decision, manifest = _read(folder, label)
    digest = evidence_digest(folder)
    key: _Key = {
        "pack_digest": digest,
        "decision_id": decision.decision_id,
        "decision_date": decision.spec.decision.date,
    }
    mode, who, issuer = _signer(signer)
    pack = PackRow(
        **key,
        verdict=str(decision.verdict),
        recommendation=decision.recommendation,
        chosen=decision.chosen,
        owner=decision.owner,
        question=decision.question,
        tool_version=decision.tool_version,
        signer_mode=mode,
        signer=who,
        signer_issuer=issuer,
        source=source,
        source_kind=source_kind,
    )
    tables: dict[str, list[PackKey]] = {
        "packs": [pack],
        "candidates": list(_candidates(decision, key)),
        "checks": [
            CheckRow(
                **key,
                check_id=c.id,
                title=c.title,
                candidate=c.candidate,
                status=str(c.status),
                hard=c.hard,
                reason=c.reason,
                waived=c.waived is not None,
                waiver_approver=c.waived.approver if c.waived else None,
                waiver_expires=c.waived.expires if c.waived else None,
            )
            for c in decision.checks
        ],
        "findings": [
            FindingRow(
                **key,
                check_id=f.check,
                candidate=f.candidate,
                subject=f.subject,
                kind=str(f.kind),
                severity=f.severity,
                figure=f.figure,
                detail=f.detail,
            )
            for f in decision.findings
        ],
        "capacity": [
            CapacityRow(
                **key,
                candidate=c.candidate,
                method=c.method,
                confidence=c.confidence,
                operating_point_rps=c.operating_point_rps,
                operating_point_run=c.operating_point_run,
                output_tokens_per_s_at_op=c.output_tokens_per_s_at_op,
                required_rate_rps=c.required_rate_rps,
                replicas=c.replicas,
                accelerators=c.accelerators,
                servers=c.servers,
            )
            for c in decision.capacity
        ],
        "cost": [
            CostRow(
                **key,
                candidate=c.candidate,
                currency=c.currency,
                price_per_accelerator_hour=c.price_per_accelerator_hour,
                billed_per=c.billed_per,
                utilisation=c.utilisation,
                per_million_output_tokens=c.per_million_output_tokens,
                per_request=c.per_request,
                per_month=c.per_month,
                per_year=c.per_year,
            )
            for c in decision.cost
        ],
        "quality": [
            QualityRow(
                **key,
                candidate=q.candidate,
                metric=q.metric,
                n_items=q.n_items,
                estimate=q.estimate,
                ci_low=q.ci_low,
                ci_high=q.ci_high,
                bar_threshold=q.bar_threshold,
                judged_on=q.judged_on,
                meets_bar=q.meets_bar,
            )
            for q in decision.quality
        ],
        "waivers": list(_waivers(decision, key)),
        "approvals": [
            ApprovalRow(**key, name=a.name, role=a.role, approved_on=a.date)
            for a in decision.spec.approvals
        ],
        "cited_results": list(_references(decision, key)),
        "runs": list(_runs(decision, key)),
        "inputs": [
            InputFileRow(
                **key,
                pack_path=f.pack_path,
                role=f.role,
                candidate=f.candidate,
                tool=f.tool,
                tool_version=f.tool_version,
                sha256=f.sha256,
                size_bytes=f.size_bytes,
            )
            for f in manifest.inputs
        ],
    }
    per_request = requests_source(folder, decision, label) if requests else None
    day = key["decision_date"].isoformat()
    return PackRows(digest, decision.decision_id, day, tables, pack, per_request)


def _candidates(decision: DecisionDocument, key: _Key) -> list[CandidateRow]:
    specs = {c.id: c for c in decision.spec.candidates}
    rows = []
    for c in decision.candidates:
        spec = specs[c.id]
        price = spec.price
        rows.append(
            CandidateRow(
                **key,
                candidate=c.id,
                accelerator=c.accelerator,
                runtime=spec.stack.runtime,
                runtime_version=spec.stack.version,
                precision=spec.stack.precision,
                eligible=c.eligible,
                is_recommended=c.id == decision.recommendation,
                is_chosen=c.id == decision.chosen,
                accelerators_needed=c.accelerators_needed,
                servers_needed=c.servers_needed,
                accelerators_billed=c.accelerators_billed,
                cost_per_month=c.cost_per_month,
                cost_per_year=c.cost_per_year,
                cost_per_million_output_tokens=c.cost_per_million_output_tokens,
                currency=c.currency,
                quality_estimate=c.quality_estimate,
                quality_meets_bar=c.quality_meets_bar,
                price_per_accelerator_hour=price.per_accelerator_hour if price else None,
                price_as_of=price.as_of if price else None,
                price_source=price.source if price else None,
                failed_checks=",".join(c.failed_checks),
            )
        )
    return rows


def _waivers(decision: DecisionDocument, key: _Key) -> list[WaiverRow]:
    applied = {(w.check, w.candidate, w.approver, w.expires) for w in decision.waivers_applied}
    return [
        WaiverRow(
            **key,
            check_id=w.check,
            candidate=w.candidate,
            reason=w.reason,
            approver=w.approver,
            expires=w.expires,
            applied=(w.check, w.candidate, w.approver, w.expires) in applied,
        )
        for w in decision.spec.waivers
    ]


def _references(decision: DecisionDocument, key: _Key) -> list[ReferenceRow]:
    rows = [
        ReferenceRow(
            **key,
            candidate=r.candidate,
            kind="mlperf",
            key=r.key,
            round=r.round,
            source=r.benchmark,
            accelerator=r.accelerator,
            validity=r.validity,
            per_accelerator_value=r.per_accelerator_value,
            measured_ratio=r.measured_ratio,
        )
        for r in decision.references
    ]
    rows += [
        ReferenceRow(
            **key,
            candidate=p.candidate,
            kind="public",
            key=p.subject,
            round=None,
            source=p.source_tool,
            accelerator=p.accelerator,
            validity=None,
            per_accelerator_value=p.output_tokens_per_s_per_accelerator,
            measured_ratio=p.measured_ratio,
        )
        for p in decision.public_references
    ]
    return rows


def _runs(decision: DecisionDocument, key: _Key) -> list[RunRow]:
    tools: dict[str, str] = {}
    for f in decision.inputs:
        if f.role == "runs" and f.tool:
            tools.setdefault(f.spec_path, f.tool)
    return [
        RunRow(
            **key,
            candidate=c.candidate,
            run_id=p.run,
            tool=tools.get(p.run),
            offered_rate_rps=p.offered_rate_rps,
            concurrency=p.concurrency,
            achieved_rate_rps=p.achieved_rate_rps,
            output_tokens_per_s=p.output_tokens_per_s,
            ttft_p99_ms=p.ttft_p99_ms,
            tpot_p99_ms=p.tpot_p99_ms,
            e2e_p99_ms=p.e2e_p99_ms,
            error_rate=p.error_rate,
            meets_slo=p.meets_slo,
        )
        for c in decision.capacity
        for p in c.load_points
    ]
