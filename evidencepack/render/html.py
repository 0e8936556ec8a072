"""The evidence report as one self-contained HTML file, rendered from a DecisionDocument.

jinja2 over ``report_templates/report.html.j2`` with autoescape on every template and
StrictUndefined; inline CSS and SVG, no script, a restrictive Content-Security-Policy. The same
HTML is what ``pdf.render_pdf`` prints. Values from the document only ever appear as escaped
text: anchors and classes are built from positions and fixed words, never from input strings.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TypeVar

import jinja2

from ..analyze.models import (
    CandidateVerdict,
    Capacity,
    CheckResult,
    Claim,
    Cost,
    DecisionDocument,
    EvidenceLink,
    MlperfReference,
    Quality,
)
from ..errors import RenderError
from ..resources import templates_dir
from ..spec import Candidate
from . import charts
from .formatting import FILTERS

TEMPLATE = "report.html.j2"

_SHA256 = re.compile(r"[0-9a-f]{64}")

CLAIM_TOPICS = ("capacity", "cost", "quality", "mlperf")
"""A claim belongs to a figure by its id's first segment (``cost.mi325x-vllm``) and candidate;
an ``mlperf`` claim to the reference whose key is one of its evidence rows."""

CHECK_GROUPS = (
    ("checklist", "Reading checklist (C1\u2013C5)", re.compile(r"C\d+$")),
    ("slo", "Service-level checks (SLO-*)", re.compile(r"SLO-")),
    ("provenance", "Provenance checks (PROV-*)", re.compile(r"PROV-")),
    ("other", "Other checks", re.compile(r"")),
)


@dataclass(frozen=True)
class EvidenceView:
    """An evidence link with the file digest filled in from the inputs when the link omits it."""

    row: str
    pack_path: str | None
    sha256: str | None


@dataclass(frozen=True)
class ClaimView:
    number: int
    claim: Claim
    evidence: tuple[EvidenceView, ...]

    @property
    def topic(self) -> str:
        return re.split(r"[./:]", self.claim.id, maxsplit=1)[0]


@dataclass(frozen=True)
class CandidateView:
    number: int
    verdict: CandidateVerdict
    spec: Candidate | None
    colour: str
    capacity: Capacity | None
    cost: Cost | None
    quality: Quality | None
    references: tuple[MlperfReference, ...]
    checks: tuple[CheckResult, ...]
    latency_chart: charts.LatencyChart | None


@dataclass(frozen=True)
class CheckGroup:
    key: str
    title: str
    checks: tuple[tuple[int, CheckResult], ...]


@dataclass(frozen=True)
class ReportView:
    """What the template needs beyond the document: lookups, groupings and chart geometry."""

    candidates: tuple[CandidateView, ...]
    claims: tuple[ClaimView, ...]
    check_groups: tuple[CheckGroup, ...]
    cost_chart: charts.BarChart | None
    quality_chart: charts.IntervalChart | None
    load_points: int

    def claims_for(
        self, topic: str, candidate: str | None, row: str | None = None
    ) -> tuple[ClaimView, ...]:
        return tuple(
            c
            for c in self.claims
            if c.topic == topic
            and c.claim.candidate == candidate
            and (row is None or any(e.row == row for e in c.evidence))
        )

    def candidate(self, candidate_id: str | None) -> CandidateView | None:
        return next((c for c in self.candidates if c.verdict.id == candidate_id), None)


_PerCandidate = TypeVar("_PerCandidate", Capacity, Cost, Quality)


def _for(items: tuple[_PerCandidate, ...], candidate: str) -> _PerCandidate | None:
    return next((i for i in items if i.candidate == candidate), None)


def build_view(decision: DecisionDocument) -> ReportView:
    """Index the document for the template; every ordering is the document's own."""
    digests = {i.pack_path: i.sha256 for i in decision.inputs}

    def evidence(link: EvidenceLink) -> EvidenceView:
        sha = link.file_sha256 or (digests.get(link.pack_path) if link.pack_path else None)
        return EvidenceView(row=link.row, pack_path=link.pack_path, sha256=sha)

    claims = tuple(
        ClaimView(number=n, claim=c, evidence=tuple(evidence(e) for e in c.evidence))
        for n, c in enumerate(decision.claims, start=1)
    )
    spec_candidates = {c.id: c for c in decision.spec.candidates}
    candidates = []
    for index, verdict in enumerate(decision.candidates):
        capacity = _for(decision.capacity, verdict.id)
        candidates.append(
            CandidateView(
                number=index + 1,
                verdict=verdict,
                spec=spec_candidates.get(verdict.id),
                colour=charts.colour(index),
                capacity=capacity,
                cost=_for(decision.cost, verdict.id),
                quality=_for(decision.quality, verdict.id),
                references=tuple(r for r in decision.references if r.candidate == verdict.id),
                checks=tuple(c for c in decision.checks if c.candidate == verdict.id),
                latency_chart=(
                    charts.latency_chart(capacity, decision.spec.slo, index)
                    if capacity is not None and capacity.load_points
                    else None
                ),
            )
        )
    costs = [(c.number - 1, c.cost, c.verdict.eligible) for c in candidates if c.cost]
    qualities = [(c.number - 1, c.quality) for c in candidates if c.quality]
    return ReportView(
        candidates=tuple(candidates),
        claims=claims,
        check_groups=_group_checks(decision.checks),
        cost_chart=charts.cost_chart(costs),
        quality_chart=charts.quality_chart(qualities),
        load_points=sum(len(c.load_points) for c in decision.capacity),
    )


def _group_checks(checks: tuple[CheckResult, ...]) -> tuple[CheckGroup, ...]:
    grouped: dict[str, list[tuple[int, CheckResult]]] = {key: [] for key, _, _ in CHECK_GROUPS}
    for number, check in enumerate(checks, start=1):
        key = next(k for k, _, pattern in CHECK_GROUPS if pattern.match(check.id))
        grouped[key].append((number, check))
    return tuple(
        CheckGroup(key=key, title=title, checks=tuple(grouped[key]))
        for key, title, _ in CHECK_GROUPS
        if grouped[key]
    )


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The one jinja2 environment: autoescape on every template, undefined names are errors."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.filters.update(FILTERS)
    return env


def render_html(decision: DecisionDocument, *, evidence_digest: str, signer: str | None) -> str:
    """The report HTML. ``evidence_digest`` is the sha256 (hex) of the pack's evidence manifest;
    ``signer`` describes who signs the pack, or None for an unsigned build."""
    if not _SHA256.fullmatch(evidence_digest):
        raise RenderError(
            f"the evidence digest must be 64 lowercase hex digits, got {evidence_digest[:80]!r}"
        )
    try:
        template = environment().get_template(TEMPLATE)
        return template.render(
            d=decision,
            spec=decision.spec,
            v=build_view(decision),
            evidence_digest=evidence_digest,
            signer=signer,
        )
    except jinja2.TemplateError as exc:
        where = (
            f" ({exc.filename}:{exc.lineno})" if isinstance(exc, jinja2.TemplateSyntaxError) else ""
        )
        raise RenderError(f"the report template failed{where}: {exc}") from exc
