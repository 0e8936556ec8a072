"""The provenance checks: the inputs are the files cited (PROV-FILES), the MLPerf results valid
(PROV-MLPERF), the run data possible and consistent (PROV-DATA), the evidence of the right model
(PROV-MODEL). Each is a function of the candidate's evidence and an entry of the check table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..spec.models import PackSpec
from ..staging.stage import TOLERANCE_TEXT
from .check_base import Check, model_of, worst
from .evidence import CandidateEvidence, link
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


def prov_mlperf(cid: str, ev: CandidateEvidence) -> CheckResult | None:
    """PROV-MLPERF: each cited MLPerf result VALID under its round's rules (None: none cited)."""
    statuses: list[Status] = []
    reasons = []
    for ref in ev.references:
        if ref.validity != "VALID":
            statuses.append("FAIL")
            reasons.append(f"{ref.key} is {ref.validity}: {'; '.join(ref.invalid_reasons)}")
        elif ref.failed_rules:
            statuses.append("WARN")
            reasons.append(
                f"{ref.key} fails re-applied checker rules: {'; '.join(ref.failed_rules)}"
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
    return PROV_MLPERF.result(
        cid, worst(statuses), "; ".join(reasons), [r.link() for r in ev.references]
    )


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


def provenance_checks(
    spec: PackSpec, cid: str, ev: CandidateEvidence, findings: Sequence[Finding] = ()
) -> list[CheckResult]:
    """The provenance checks of one candidate, in the table's order (PROV-MLPERF only when an
    MLPerf result is cited)."""
    results = (
        prov_files(cid, ev),
        prov_mlperf(cid, ev),
        prov_data(cid, ev, findings),
        prov_model(spec, cid, ev),
    )
    return [r for r in results if r is not None]


def data_findings(cid: str, ev: CandidateEvidence) -> list[Finding]:
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


def _finding_text(f: Finding) -> str:
    if f.kind == "mixed-sweep":
        return f.detail
    model = f" ({f.model})" if f.model else ""
    return f"{f.subject}{model}: {f.detail}"


def prov_data(cid: str, ev: CandidateEvidence, findings: Sequence[Finding]) -> CheckResult:
    """FAIL on a failing data finding, WARN on the others, PASS naming what was checked."""
    if findings:
        return PROV_DATA.result(
            cid,
            worst(f.severity for f in findings),
            "; ".join(_finding_text(f) for f in findings),
            [e for f in findings for e in f.evidence],
        )
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
    judge=lambda c: prov_mlperf(c.candidate.id, c.evidence),
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
