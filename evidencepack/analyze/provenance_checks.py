"""The provenance checks: the inputs are the files cited (PROV-FILES), the MLPerf results valid
(PROV-MLPERF), the run data possible and consistent (PROV-DATA), the evidence of the right model
(PROV-MODEL). Each is a function of the candidate's evidence and an entry of the check table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..spec.models import Candidate, PackSpec, Slo
from ..staging.stage import TOLERANCE_TEXT
from .check_base import Check, model_of, worst
from .evidence import CandidateEvidence, RunEvidence, link
from .models import CheckResult, EvidenceLink, Finding, Status


def prov_files(cid: str, ev: CandidateEvidence) -> CheckResult:
    """PROV-FILES: every input present, readable and matching its pinned sha256."""
    if not ev.problems and ev.file_warnings:
        return PROV_FILES.result(
            cid,
            "WARN",
            "every input file read and unchanged; "
            + "; ".join(dict.fromkeys(p.reason for p in ev.file_warnings)),
            [
                EvidenceLink(
                    row=p.file.pack_path, file_sha256=p.file.sha256, pack_path=p.file.pack_path
                )
                for p in ev.file_warnings
                if p.file is not None
            ],
        )
    if not ev.problems:
        return PROV_FILES.result(cid, "PASS", "every input file read and unchanged")
    return PROV_FILES.result(
        cid,
        "FAIL",
        "; ".join(p.reason for p in ev.problems),
        [
            EvidenceLink(
                row=p.file.pack_path, file_sha256=p.file.sha256, pack_path=p.file.pack_path
            )
            for p in ev.problems
            if p.file is not None
        ],
    )


def prov_mlperf(
    cid: str, ev: CandidateEvidence, roundless: frozenset[str] = frozenset()
) -> CheckResult | None:
    """PROV-MLPERF: each cited MLPerf result VALID under its round's rules (None: none cited).
    A VALID result of no round that the spec cites by its ``no-round/`` key (``roundless``: the
    spec's author knows it has none) is a note, not a warning."""
    statuses: list[Status] = []
    reasons = []
    notes = []
    for ref in ev.references:
        if ref.validity != "VALID":
            statuses.append("FAIL")
            reasons.append(f"{ref.key} is {ref.validity}: {'; '.join(ref.invalid_reasons)}")
        elif ref.failed_rules:
            statuses.append("WARN")
            reasons.append(
                f"{ref.key} fails re-applied checker rules: {'; '.join(ref.failed_rules)}"
            )
        elif ref.round is None and ref.key in roundless:
            statuses.append("PASS")
            reasons.append(f"{ref.key} VALID (no round: see the note)")
            notes.append(
                f"{ref.key}: no MLPerf round, as the spec's no-round key says: the checker's "
                "rules were not applied"
            )
        elif ref.round is None:
            statuses.append("WARN")
            reasons.append(
                f"{ref.key} identifies no MLPerf round: the checker's rules were not applied"
            )
        else:
            statuses.append("PASS")
            reasons.append(f"{ref.key} VALID under {ref.round} rules")
    if not reasons:
        return None
    result = PROV_MLPERF.result(
        cid, worst(statuses), "; ".join(reasons), [r.link() for r in ev.references]
    )
    return result.model_copy(update={"notes": tuple(notes)}) if notes else result


def prov_model(spec: PackSpec, cid: str, ev: CandidateEvidence) -> CheckResult:
    """PROV-MODEL: no run or score set names another model than the envelope's, and the
    model's own signature, when the spec cites one, verifies and signs the envelope's weights."""
    envelope = spec.envelope.model
    api = next((c.api for c in spec.candidates if c.id == cid), None)
    if api is not None:  # a hosted API's evidence is of the API's model (no weights digest)
        envelope = envelope.model_copy(update={"name": api.model, "signature": None})
    wrong = []
    for item in ev.items():
        name = item.observed.model_name
        digest = item.observed.model_digest
        if digest is not None and api is None and digest != envelope.digest:
            wrong.append(f"{item.id} is for model digest {digest[:12]}...")
        elif name is not None and name.strip().lower() != envelope.name.strip().lower():
            wrong.append(f"{item.id} is for model {name!r}")
    signed = ev.signed_weights
    signature = [signed.link] if signed is not None and signed.link is not None else []
    if signed is not None and signed.problem is not None:
        return PROV_MODEL.result(
            cid,
            "FAIL",
            f"the model signature does not sign the envelope's weights: {signed.problem}"
            + (f"; evidence for the wrong model: {'; '.join(wrong)}" if wrong else ""),
            signature,
        )
    if wrong:
        return PROV_MODEL.result(
            cid,
            "FAIL",
            f"evidence for the wrong model (envelope: {envelope.name}): " + "; ".join(wrong),
            [link(x) for x in ev.items()],
        )
    said = f"; {signed.detail}" if signed is not None else ""
    return PROV_MODEL.result(
        cid,
        "PASS",
        f"no run or score set names another model than {envelope.name}{said}",
        signature,
    )


def _roundless(candidate: Candidate) -> frozenset[str]:
    """The MLPerf results the spec cites for a candidate by a ``no-round/`` key."""
    return frozenset(
        ref.result
        for ref in candidate.evidence.mlperf
        if ref.result is not None and ref.result.startswith("no-round/")
    )


def provenance_checks(
    spec: PackSpec, cid: str, ev: CandidateEvidence, findings: Sequence[Finding] = ()
) -> list[CheckResult]:
    """The provenance checks of one candidate, in the table's order (PROV-MLPERF only when an
    MLPerf result is cited)."""
    candidate = next((c for c in spec.candidates if c.id == cid), None)
    roundless = _roundless(candidate) if candidate is not None else frozenset()
    results = (
        prov_files(cid, ev),
        prov_mlperf(cid, ev, roundless),
        prov_data(cid, ev, findings),
        prov_model(spec, cid, ev),
    )
    return [r for r in results if r is not None]


def data_findings(cid: str, ev: CandidateEvidence, slo: Slo | None = None) -> list[Finding]:
    """Each run's findings (summary against rows or detail log, repeated keys, impossible
    values, INVALID runs, empty outputs) and a load sweep that mixes tools or definitions."""
    out = [
        Finding(
            check="PROV-DATA",
            candidate=cid,
            subject=f.run,
            model=f.model,
            kind=f.kind,  # type: ignore[arg-type]  # RunFinding's kinds, one Literal
            severity=f.severity,
            figure=f.figure,
            detail=f.detail,
            evidence=(
                EvidenceLink(row=f.run, file_sha256=f.file.sha256, pack_path=f.file.pack_path),
            ),
        )
        for f in ev.findings()
    ]
    out = [
        f.model_copy(
            update={
                "severity": "NOTE",
                "detail": f"{f.detail} (expected: the top of the load sweep, above {below})",
            }
        )
        if slo is not None and (below := _over_capacity(f, ev, slo)) is not None
        else f
        for f in out
    ]
    sweep = [r for r in ev.runs if r.point.load != "offline"]
    tools = sorted({r.tool for r in sweep})
    definitions = sorted({d for r in sweep for d in r.definitions})
    metrics = [d.split(" ", 1)[0] for d in definitions]
    mixed = sorted({m for m in metrics if metrics.count(m) > 1})

    def sweep_finding(figure: str, detail: str) -> Finding:
        return Finding(
            check="PROV-DATA",
            candidate=cid,
            subject="load sweep",
            model=", ".join(sorted({model_of(r) for r in sweep})),
            kind="mixed-sweep",
            severity="WARN",
            figure=figure,
            detail=detail,
            evidence=tuple(link(r) for r in sweep),
        )

    if len(tools) > 1:
        out.append(
            sweep_finding(
                "tool",
                "the load sweep mixes tools: "
                + "; ".join(
                    f"{t} ({', '.join(r.id for r in sweep if r.tool == t)})" for t in tools
                ),
            )
        )
    if mixed:
        out.append(
            sweep_finding(
                ", ".join(mixed),
                "the load sweep mixes metric definitions: "
                + "; ".join(d for d in definitions if d.split(" ", 1)[0] in mixed),
            )
        )
    return out


def _over_capacity(f: Finding, ev: CandidateEvidence, slo: Slo) -> str | None:
    """The valid run below it, when a WARN finding is a sweep point its tool judged INVALID for
    latency, whose own p99s break the SLO too, above a point that was valid: the load that
    finds the ceiling, expected by design; else None (an INVALID run that looks within the SLO
    is a contradiction to look at)."""
    if f.kind != "invalid-run-latency" or f.severity != "WARN":
        return None
    run = next((r for r in ev.runs if r.id == f.subject), None)
    if run is None or run.point.load == "offline":
        return None
    p = run.point
    limits: list[tuple[float | None, float | None]] = [
        (p.ttft_p99_ms, slo.ttft_p99_ms),
        (p.tpot_p99_ms, slo.tpot_p99_ms),
        (p.e2e_p99_ms, slo.e2e_p99_ms),
    ]
    if not any(got is not None and limit is not None and got > limit for got, limit in limits):
        return None

    def load(r: RunEvidence) -> float | None:
        p = r.point
        return p.offered_rate_rps if p.offered_rate_rps is not None else p.concurrency

    mine = load(run)
    lower = [
        r
        for r in ev.runs
        if r is not run
        and r.point.load == run.point.load
        and r.point.invalid is None
        and (theirs := load(r)) is not None
        and mine is not None
        and theirs < mine
    ]
    return max(lower, key=lambda r: load(r) or 0.0).id if lower else None


def _finding_text(f: Finding) -> str:
    if f.kind == "mixed-sweep":
        return f.detail
    model = f" ({f.model})" if f.model else ""
    return f"{f.subject}{model}: {f.detail}"


def prov_data(cid: str, ev: CandidateEvidence, findings: Sequence[Finding]) -> CheckResult:
    """FAIL on a failing data finding, WARN on the others, PASS naming what was checked; a
    finding expected by design (severity NOTE) is a note of the check, never a warning."""
    notes = tuple(_finding_text(f) for f in findings if f.severity == "NOTE")
    real = [f for f in findings if f.severity != "NOTE"]
    if real:
        result = PROV_DATA.result(
            cid,
            worst("FAIL" if f.severity == "FAIL" else "WARN" for f in real),
            "; ".join(_finding_text(f) for f in real),
            [e for f in findings for e in f.evidence],
        )
        return result.model_copy(update={"notes": notes}) if notes else result
    if notes:
        return PROV_DATA.result(
            cid,
            "PASS",
            f"no data finding to look at; {len(notes)} expected by design (see the notes)",
            [e for f in findings for e in f.evidence],
        ).model_copy(update={"notes": notes})
    if not ev.runs:
        return PROV_DATA.result(cid, "PASS", "no serving runs to check")
    models = sorted({model_of(r) for r in ev.runs})
    paired = [r for r in ev.runs if r.also]
    crossed = f"; {len(paired)} summary file(s) agree with their run's rows" if paired else ""
    return PROV_DATA.result(
        cid,
        "PASS",
        f"{len(ev.runs)} run(s) of {', '.join(models)} ({', '.join(r.id for r in ev.runs)}): "
        "no impossible TTFT/TPOT/latency or token figure, no repeated log key, no INVALID "
        f"verdict, tool summaries within {TOLERANCE_TEXT} of the rows{crossed}",
        [link(r) for r in ev.runs],
    )


PROV_FILES = Check(
    "PROV-FILES",
    "Input files present and unchanged",
    hard=True,
    judge=lambda c: prov_files(c.candidate.id, c.evidence),
)
PROV_MLPERF = Check(
    "PROV-MLPERF",
    "Cited MLPerf results are valid",
    hard=True,
    judge=lambda c: prov_mlperf(c.candidate.id, c.evidence, _roundless(c.candidate)),
)
PROV_DATA = Check(
    "PROV-DATA",
    "Run data is possible, consistent and judged valid",
    hard=True,
    judge=lambda c: prov_data(c.candidate.id, c.evidence, c.findings),
)
PROV_MODEL = Check(
    "PROV-MODEL",
    "Evidence is for the candidate model",
    hard=True,
    judge=lambda c: prov_model(c.spec, c.candidate.id, c.evidence),
)
