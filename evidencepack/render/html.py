"""The evidence report as one self-contained HTML file, rendered from a DecisionDocument.

jinja2 over ``report_templates/report.html.j2`` with autoescape on every template and
StrictUndefined; inline CSS and SVG, no script, a restrictive Content-Security-Policy. The same
HTML is what ``pdf.render_pdf`` prints. Values from the document only ever appear as escaped
text: anchors and classes are built from positions and fixed words, never from input strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import jinja2
import markupsafe

from ..analyze.judgements import Flip
from ..analyze.models import (
    CandidateVerdict,
    Capacity,
    CheckResult,
    Claim,
    Cost,
    DecisionDocument,
    LoadPoint,
    MlperfReference,
    Quality,
)
from ..analyze.ranking import id_list
from ..analyze.record import CandidateRecord, records_of
from ..core._text import escape_misleading
from ..core.resources import templates_dir
from ..errors import RenderError
from ..spec.models import Candidate, Price
from . import charts, plain
from .body import BODY_LIMIT, BodySelection, select_body
from .comparability_view import (
    ComparabilitySummary,
    ComparabilityView,
    comparability_summary,
    merge_comparability,
)
from .curve_chart import CurveChart, curve_chart
from .evidence import EvidenceList, InputGroup, evidence_list, group_inputs, split_common_folder
from .formatting import FILTERS
from .signing_plan import SigningPlan

TEMPLATE = "report.html.j2"


class _HasCandidate(Protocol):
    @property
    def candidate(self) -> str | None: ...


_Row = TypeVar("_Row", bound=_HasCandidate)

_SHA256 = re.compile(r"[0-9a-f]{64}")

CHECK_GROUPS = (
    ("checklist", "Reading checklist (C1\u2013C5)", re.compile(r"C\d+$")),
    ("slo", "Service-level checks (SLO-*)", re.compile(r"SLO-")),
    ("provenance", "Provenance checks (PROV-*)", re.compile(r"PROV-")),
    ("other", "Other checks", re.compile(r"")),
)


@dataclass(frozen=True)
class ClaimView:
    """One claim of the report's claim ledger, numbered, with its evidence list."""

    number: int
    claim: Claim
    evidence: EvidenceList

    @property
    def topic(self) -> str:
        """The claim's topic: its id up to the first ``.``, ``/`` or ``:``."""
        return re.split(r"[./:]", self.claim.id, maxsplit=1)[0]


@dataclass(frozen=True)
class CandidateView:
    """One candidate as the report shows it: its record as the analysis made it, its number
    and colour, and its latency chart."""

    number: int
    record: CandidateRecord
    colour: str
    latency_chart: charts.LatencyChart | None
    run_folder: str
    runs: tuple[tuple[LoadPoint, str], ...]
    """The load points, each with its run id shown without ``run_folder``."""

    @property
    def verdict(self) -> CandidateVerdict:
        """The candidate's standing."""
        return self.record.verdict

    @property
    def spec(self) -> Candidate | None:
        """The candidate as the spec states it."""
        return self.record.candidate

    @property
    def price(self) -> Price | None:
        """The price it was costed at, with its source and date: the one place page 1 reads."""
        return self.record.price

    @property
    def capacity(self) -> Capacity | None:
        """Its operating point and sizing."""
        return self.record.capacity

    @property
    def cost(self) -> Cost | None:
        """Its cost at the operating point on the quoted price."""
        return self.record.cost

    @property
    def quality(self) -> Quality | None:
        """Its quality against the bar."""
        return self.record.quality

    @property
    def references(self) -> tuple[MlperfReference, ...]:
        """The MLPerf results cited beside it."""
        return self.record.references

    @property
    def checks(self) -> tuple[CheckResult, ...]:
        """Its checks, waivers applied."""
        return self.record.checks


@dataclass(frozen=True)
class CheckView:
    """One check result, numbered, with its evidence list."""

    number: int
    check: CheckResult
    evidence: EvidenceList


@dataclass(frozen=True)
class CheckGroup:
    """The checks of one group of ``CHECK_GROUPS`` (checklist, service level, provenance)."""

    key: str
    title: str
    checks: tuple[CheckView, ...]


@dataclass(frozen=True)
class MatrixRow:
    """One candidate's checks at a glance: per check id the worst status, ``WAIVED`` for a
    waived FAIL, or None where the check did not run for it."""

    candidate: CandidateView
    cells: tuple[str | None, ...]


@dataclass(frozen=True)
class ReportView:
    """What the template needs beyond the document: lookups, groupings and chart geometry."""

    candidates: tuple[CandidateView, ...]
    body: tuple[CandidateView, ...]
    """The candidates the body compares (all of them up to ``body.BODY_LIMIT``)."""
    page_one: tuple[CandidateView, ...]
    """The candidates page 1's table shows."""
    ranked: tuple[CandidateView, ...]
    """Every candidate, the eligible ones best first, then the others."""
    selection: BodySelection
    subject: CandidateView | None
    """The candidate page 1 is about: the chosen one, else the recommendation."""
    standing: tuple[CheckResult, ...]
    """Checks that are not a plain PASS (WARN, FAIL, or waived) of the subject and of no
    candidate: page 1 lists them, one line each."""
    standing_elsewhere: int
    """Checks not a plain PASS of the other candidates (counted on page 1, listed in the
    checklist)."""
    check_ids: tuple[str, ...]
    matrix: tuple[MatrixRow, ...]
    general_checks: tuple[CheckView, ...]
    comparability_summary: tuple[ComparabilitySummary, ...]
    claims: tuple[ClaimView, ...]
    check_groups: tuple[CheckGroup, ...]
    comparability: tuple[ComparabilityView, ...]
    input_groups: tuple[InputGroup, ...]
    cost_chart: charts.BarChart | None
    quality_chart: charts.IntervalChart | None
    load_points: int
    curve_charts: tuple[CurveChart, ...] = ()
    """MLPerf Endpoints curves beside each candidate's own points (``curve_chart``)."""

    def claims_for(
        self, topic: str, candidate: str | None, row: str | None = None
    ) -> tuple[ClaimView, ...]:
        """The claims of one topic for a candidate (and one row, if given)."""
        return tuple(
            c
            for c in self.claims
            if c.topic == topic
            and c.claim.candidate == candidate
            and (row is None or any(e.row == row for e in c.evidence.items))
        )

    def shows(self, candidate_id: str | None) -> bool:
        """Whether the body shows rows of this candidate (Appendix A shows every one)."""
        return self.selection.shows(candidate_id)

    def in_body(self, rows: Sequence[_Row]) -> list[_Row]:
        """The rows (each with a ``candidate`` id, or None) of the candidates the body shows."""
        return [r for r in rows if self.selection.shows(r.candidate)]

    def nearest_flips(self, flips: Sequence[Flip]) -> list[Flip]:
        """The flips the body lists: all, or when it is bounded the ``BODY_LIMIT`` smallest
        changes (in the document's order); decision.json has every one."""
        if not self.selection.bounded or len(flips) <= BODY_LIMIT:
            return list(flips)

        def size(flip: Flip) -> float:
            return abs(flip.relative) if flip.relative is not None else float("inf")

        kept = set(sorted(range(len(flips)), key=lambda i: (size(flips[i]), i))[:BODY_LIMIT])
        return [f for i, f in enumerate(flips) if i in kept]

    def ids(self, ids: Sequence[str], separator: str) -> str:
        """Candidate ids for a sentence of the body: all of them, or the first few and a count
        when the body is bounded."""
        return separator.join(ids) if not self.selection.bounded else id_list(ids, separator)

    def candidate(self, candidate_id: str | None) -> CandidateView | None:
        """The candidate with this id, if any."""
        return next((c for c in self.candidates if c.verdict.id == candidate_id), None)

    def comparability_for(self, candidate_id: str | None) -> tuple[ComparabilityView, ...]:
        """The comparability rows of one candidate."""
        return tuple(r for r in self.comparability if r.findings.candidate == candidate_id)

    def inputs_for(self, candidate_id: str | None) -> tuple[InputGroup, ...]:
        """The input groups of one candidate."""
        return tuple(g for g in self.input_groups if g.candidate == candidate_id)

    def checks_for(self, candidate_id: str | None) -> tuple[CheckView, ...]:
        """The check results of one candidate."""
        return tuple(
            c for g in self.check_groups for c in g.checks if c.check.candidate == candidate_id
        )

    def claim_list(self, candidate_id: str | None) -> tuple[ClaimView, ...]:
        """The claims of one candidate."""
        return tuple(c for c in self.claims if c.claim.candidate == candidate_id)

    @property
    def cost_has_spread(self) -> bool:
        """Whether any candidate's cost has a spread over repeated runs."""
        return any(c.cost.spread_per_million_output_tokens for c in self.candidates if c.cost)

    def note_counts(self, checks: Sequence[CheckResult]) -> tuple[int, tuple[tuple[str, int], ...]]:
        """The notes (expected by design, never warnings) of the checks the body shows: how
        many, and how many per check id in the table's order."""
        per: dict[str, int] = {}
        for c in self.in_body(checks):
            if c.notes:
                per[c.id] = per.get(c.id, 0) + len(c.notes)
        return sum(per.values()), tuple(per.items())

    @property
    def standing_counts(self) -> tuple[int, int, int, int]:
        """(failed, warnings, waived) of the subject candidate's own check results, counted as
        the candidates table counts them (so page 1 gives one figure per candidate), and how
        many of ``standing`` are about the decision as a whole."""
        mine = [c for c in self.standing if c.candidate is not None]
        waived = len({c.id for c in mine if c.waived is not None})
        failed = sum(1 for c in mine if c.waived is None and c.status == "FAIL")
        warnings = sum(1 for c in mine if c.waived is None and c.status == "WARN")
        return failed, warnings, waived, sum(1 for c in self.standing if c.candidate is None)


def build_view(
    decision: DecisionDocument, records: Sequence[CandidateRecord] | None = None
) -> ReportView:
    """Index the document for the template; every ordering is the document's own. ``records``
    are the analysis' per-candidate records (None: read back from the document)."""
    if records is None:
        records = records_of(decision)
    candidate_ids = [c.id for c in decision.candidates]
    groups = group_inputs(decision.inputs, candidate_ids)
    digests = {i.pack_path: i.sha256 for i in decision.inputs}
    group_of = {f.pack_path: g.number for g in groups for f in g.files}
    claims = tuple(
        ClaimView(number=n, claim=c, evidence=evidence_list(c.evidence, digests, group_of))
        for n, c in enumerate(decision.claims, start=1)
    )
    checks = tuple(
        CheckView(number=n, check=c, evidence=evidence_list(c.evidence, digests, group_of))
        for n, c in enumerate(decision.checks, start=1)
    )
    candidates = []
    for index, record in enumerate(records):
        capacity = record.capacity
        points = capacity.load_points if capacity is not None else ()
        run_folder, run_labels = split_common_folder([p.run for p in points])
        candidates.append(
            CandidateView(
                number=index + 1,
                record=record,
                colour=charts.colour(index),
                latency_chart=(
                    charts.latency_chart(capacity, decision.spec.slo, index)
                    if capacity is not None and capacity.load_points
                    else None
                ),
                run_folder=run_folder,
                runs=tuple(zip(points, run_labels, strict=True)),
            )
        )
    subject_id = decision.chosen or decision.recommendation
    selection = select_body(decision, subject_id)
    by_id = {c.verdict.id: c for c in candidates}
    body = [by_id[cid] for cid in selection.shown]
    costs = [(c.number - 1, c.cost, c.verdict.eligible) for c in body if c.cost]
    qualities = [(c.number - 1, c.quality) for c in body if c.quality]
    subject = next((c for c in candidates if c.verdict.id == subject_id), None)
    standing = tuple(c for c in decision.checks if _stands(c))
    here = {None, subject_id}
    check_ids = tuple(dict.fromkeys(c.id for c in decision.checks if c.candidate is not None))
    grouped = _group_checks(checks)
    return ReportView(
        candidates=tuple(candidates),
        body=tuple(body),
        page_one=tuple(by_id[cid] for cid in selection.page_one),
        ranked=tuple(by_id[cid] for cid in selection.ranked),
        selection=selection,
        subject=subject,
        standing=tuple(c for c in standing if c.candidate in here),
        standing_elsewhere=sum(1 for c in standing if c.candidate not in here),
        check_ids=check_ids,
        matrix=tuple(
            MatrixRow(c, tuple(_cell(c.checks, check_id) for check_id in check_ids)) for c in body
        ),
        general_checks=tuple(v for g in grouped for v in g.checks if v.check.candidate is None),
        comparability_summary=tuple(comparability_summary(c, decision.spec) for c in body),
        claims=claims,
        check_groups=grouped,
        comparability=merge_comparability(decision.comparability),
        input_groups=groups,
        cost_chart=charts.cost_chart(costs),
        quality_chart=charts.quality_chart(qualities),
        load_points=sum(len(c.load_points) for c in decision.capacity),
        curve_charts=_curve_charts(decision, body),
    )


def _curve_charts(
    decision: DecisionDocument, body: Sequence[CandidateView]
) -> tuple[CurveChart, ...]:
    """One chart per candidate the body shows that cites an MLPerf Endpoints curve."""
    per_replica = {c.id: c.hardware.accelerators_per_replica for c in decision.spec.candidates}
    out = []
    for c in body:
        cid = c.verdict.id
        capacity = c.record.capacity
        chart = curve_chart(
            cid,
            c.number - 1,
            decision.public_references,
            capacity.load_points if capacity is not None else (),
            per_replica.get(cid, 1),
        )
        if chart is not None:
            out.append(chart)
    return tuple(out)


_SEVERITY = {"PASS": 0, "WARN": 1, "WAIVED": 2, "FAIL": 3}


def _stands(check: CheckResult) -> bool:
    """A finding a reader must know of: a WARN or FAIL, waived or not."""
    return check.status != "PASS" or check.waived is not None


def _cell(checks: tuple[CheckResult, ...], check_id: str) -> str | None:
    statuses = ["WAIVED" if c.waived is not None else c.status for c in checks if c.id == check_id]
    return max(statuses, key=_SEVERITY.__getitem__) if statuses else None


def _group_checks(checks: tuple[CheckView, ...]) -> tuple[CheckGroup, ...]:
    grouped: dict[str, list[CheckView]] = {key: [] for key, _, _ in CHECK_GROUPS}
    for view in checks:
        key = next(k for k, _, pattern in CHECK_GROUPS if pattern.match(view.check.id))
        grouped[key].append(view)
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
    # Controls and bidi overrides from evidence files are shown escaped, never obeyed.
    env.finalize = _visible
    return env


def _visible(value: object) -> object:
    """A rendered value with misleading characters escaped (markup stays markup: the escapes
    add no HTML)."""
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(escape_misleading(str(value)))
    if isinstance(value, str):
        return escape_misleading(value)
    return value


def render_html(
    decision: DecisionDocument,
    *,
    evidence_digest: str,
    signer: SigningPlan | None,
    records: Sequence[CandidateRecord] | None = None,
) -> str:
    """The report HTML. ``evidence_digest`` is the sha256 (hex) of the pack's evidence manifest;
    ``signer`` is who the build signs with, or None for an unsigned build; ``records`` are the
    analysis' per-candidate records the document was made from (None: a decision.json on its
    own, read back into its records)."""
    if not _SHA256.fullmatch(evidence_digest):
        raise RenderError(
            f"the evidence digest must be 64 lowercase hex digits, got {evidence_digest[:80]!r}"
        )
    try:
        template = environment().get_template(TEMPLATE)
        return template.render(
            d=decision,
            spec=decision.spec,
            v=build_view(decision, records),
            evidence_digest=evidence_digest,
            signer=signer,
            plain=plain,
        )
    except jinja2.TemplateError as exc:
        where = (
            f" ({exc.filename}:{exc.lineno})" if isinstance(exc, jinja2.TemplateSyntaxError) else ""
        )
        raise RenderError(f"the report template failed{where}: {exc}") from exc
