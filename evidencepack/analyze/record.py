"""One candidate as the decision states it, and ``decision.json``'s lists made from those records.

``decide`` finishes each candidate's ``CandidateAnalysis`` into a ``CandidateRecord``: its
verdict, its checks after waivers, the price it was costed at with that price's source, and every
figure and finding of it. ``decision.json`` lists them section by section (``document_lists``);
the report renders the records as they are. ``records_of`` reads a ``decision.json`` on its own
back into its records (a document without the analysis that made it, as the render tests hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..spec.models import Candidate, Price
from .judgements import BasisCost, EvidenceFit, PublicReference, TrainingReference
from .models import (
    CandidateVerdict,
    Capacity,
    CheckResult,
    Claim,
    ComparabilityRow,
    Cost,
    DecisionDocument,
    Finding,
    MlperfReference,
    Quality,
)


def price_claim_id(candidate: str) -> str:
    """The id of the claim that a candidate's rate was read from a cited price file."""
    return f"cost.{candidate}.price_file"


@dataclass(frozen=True)
class CandidateRecord:
    """Everything the decision states about one candidate, in one place."""

    verdict: CandidateVerdict
    candidate: Candidate | None
    """The candidate as the pack's spec states it (None: a document naming no such candidate)."""
    price: Price | None
    """The price it was costed at: a rate read from a cited FOCUS export or quote is here, with
    that file's summary as its source and date (the spec as written cites only the file)."""
    price_claim: Claim | None
    """The claim linking that rate to the price file's digest, if the rate was read from one."""
    capacity: Capacity | None
    cost: Cost | None
    quality: Quality | None
    bases: tuple[BasisCost, ...]
    """Its cost on every basis it states, the quoted price's first."""
    references: tuple[MlperfReference, ...]
    public: tuple[PublicReference, ...]
    training: tuple[TrainingReference, ...]
    comparability: tuple[ComparabilityRow, ...]
    fits: tuple[EvidenceFit, ...]
    findings: tuple[Finding, ...]
    checks: tuple[CheckResult, ...]
    """Its checks, waivers applied, in the check table's order."""
    claims: tuple[Claim, ...]
    """Its claims, the price file's claim apart (``price_claim``)."""

    @property
    def id(self) -> str:
        """The candidate id."""
        return self.verdict.id


def document_lists(records: Sequence[CandidateRecord]) -> dict[str, tuple[object, ...]]:
    """The per-candidate sections of ``decision.json``, each in candidate order; the price-file
    claims come after every candidate's own claims, by candidate id."""
    priced = sorted((r for r in records if r.price_claim is not None), key=lambda r: r.id)
    return {
        "candidates": tuple(r.verdict for r in records),
        "checks": tuple(c for r in records for c in r.checks),
        "comparability": tuple(row for r in records for row in r.comparability),
        "fit": tuple(f for r in records for f in r.fits),
        "capacity": tuple(r.capacity for r in records if r.capacity is not None),
        "cost": tuple(r.cost for r in records if r.cost is not None),
        "quality": tuple(r.quality for r in records if r.quality is not None),
        "references": tuple(ref for r in records for ref in r.references),
        "public_references": tuple(ref for r in records for ref in r.public),
        "training_references": tuple(ref for r in records for ref in r.training),
        "claims": tuple(c for r in records for c in r.claims)
        + tuple(r.price_claim for r in priced if r.price_claim is not None),
        "findings": tuple(f for r in records for f in r.findings),
    }


_Item = TypeVar(
    "_Item",
    Capacity,
    Cost,
    Quality,
    BasisCost,
    MlperfReference,
    PublicReference,
    TrainingReference,
    ComparabilityRow,
    EvidenceFit,
    Finding,
    CheckResult,
    Claim,
)


def _of(items: Sequence[_Item], candidate: str) -> tuple[_Item, ...]:
    return tuple(i for i in items if i.candidate == candidate)


def _one(items: Sequence[_Item], candidate: str) -> _Item | None:
    return next(iter(_of(items, candidate)), None)


def records_of(document: DecisionDocument) -> tuple[CandidateRecord, ...]:
    """A ``decision.json`` read back into its records, one per candidate verdict. A rate read
    from a price file is taken from its claim: the document's spec cites only the file."""
    specs = {c.id: c for c in document.spec.candidates}
    records = []
    for verdict in document.candidates:
        cid = verdict.id
        candidate = specs.get(cid)
        claims = _of(document.claims, cid)
        price_claim = next((c for c in claims if c.id == price_claim_id(cid)), None)
        price = candidate.price if candidate is not None else None
        if price is not None and price_claim is not None and price.per_accelerator_hour is None:
            price = price.model_copy(update={"per_accelerator_hour": price_claim.value})
        records.append(
            CandidateRecord(
                verdict=verdict,
                candidate=candidate,
                price=price,
                price_claim=price_claim,
                capacity=_one(document.capacity, cid),
                cost=_one(document.cost, cid),
                quality=_one(document.quality, cid),
                bases=_of(document.cost_bases.costs, cid) if document.cost_bases else (),
                references=_of(document.references, cid),
                public=_of(document.public_references, cid),
                training=_of(document.training_references, cid),
                comparability=_of(document.comparability, cid),
                fits=_of(document.fit, cid),
                findings=_of(document.findings, cid),
                checks=_of(document.checks, cid),
                claims=tuple(c for c in claims if c is not price_claim),
            )
        )
    return tuple(records)
