"""The reading checklist (C1-C5) and the SLO, quality and provenance checks, per candidate.

Hard checks guard the evidence itself: a hard FAIL (not waived) fails the release gate.
SLO and QUALITY failures are not hard: they make a candidate ineligible, which is an outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._numbers import plain
from ..inputs.stage import TOLERANCE_TEXT
from ..spec import Candidate, PackSpec
from .comparability import HARD_FIELDS
from .evidence import CandidateEvidence, ReferenceEvidence, RunEvidence, ScoreEvidence, link
from .models import Capacity, CheckResult, ComparabilityRow, EvidenceLink, Finding, Quality, Status
from .normalise import normalise_precision, normalise_runtime, versions_match

TITLES = {
    "C1": "Scenario matches traffic",
    "C2": "Quality claim is the team's own, not MLPerf's accuracy floor",
    "C3": "MLPerf software stack against the production stack",
    "C4": "Candidate model re-measured on this configuration",
    "C5": "Envelope held across performance runs and quality evals",
    "SLO-MET": "SLO met at a measured load",
    "QUALITY": "Quality bar met",
    "PROV-FILES": "Input files present and unchanged",
    "PROV-MLPERF": "Cited MLPerf results are valid",
    "PROV-MODEL": "Evidence is for the candidate model",
    "PROV-DATA": "Run data is possible, consistent and judged valid",
    "DECISION": "Decision follows from the evidence",
}
_WORST = {"PASS": 0, "WARN": 1, "FAIL": 2}


def check_result(
    check_id: str,
    candidate: str | None,
    status: Status,
    hard: bool,
    reason: str,
    evidence: Iterable[EvidenceLink] = (),
) -> CheckResult:
    """A check result titled from ``TITLES``."""
    return CheckResult(
        id=check_id,
        title=TITLES[check_id],
        candidate=candidate,
        status=status,
        hard=hard,
        reason=reason,
        evidence=tuple(evidence),
    )


def _worst(statuses: Iterable[Status]) -> Status:
    return max(statuses, key=lambda s: _WORST[s], default="PASS")


def _unidentified(items: Iterable[RunEvidence | ScoreEvidence]) -> list[str]:
    """The runs or score sets that name no model (by name or digest, recorded or declared)."""
    return [
        item.id
        for item in items
        if (
            item.observed.model_name
            or item.declared.model_name
            or item.observed.model_digest
            or item.declared.model_digest
        )
        is None
    ]


def per_accelerator(ref: ReferenceEvidence) -> float | None:
    if ref.tokens_per_s is None or not ref.accelerators_total:
        return None
    return ref.tokens_per_s / ref.accelerators_total


def stack_matches(ref: ReferenceEvidence, candidate: Candidate) -> tuple[bool, list[str]]:
    """Whether the reference ran the candidate's runtime, version and precision; what differs."""
    stack = candidate.stack
    diffs = []
    if ref.runtime is None:
        diffs.append("runtime not identified in the submission's software stack")
    elif normalise_runtime(ref.runtime) != normalise_runtime(stack.runtime):
        diffs.append(f"runtime {ref.runtime} vs production {stack.runtime}")
    elif ref.runtime_version and not versions_match(ref.runtime_version, stack.version):
        diffs.append(f"{ref.runtime} {ref.runtime_version} vs production {stack.version}")
    if ref.precision is None:
        diffs.append("precision not stated")
    elif normalise_precision(ref.precision) != normalise_precision(stack.precision):
        diffs.append(f"precision {ref.precision} vs production {stack.precision}")
    return not diffs, diffs


def c1_scenario(spec: PackSpec, cid: str, ev: CandidateEvidence) -> CheckResult:
    interactive = spec.traffic.pattern == "interactive"
    slo = spec.slo
    statuses: list[Status] = []
    reasons = []
    for ref in ev.references:
        if interactive and ref.scenario == "Offline":
            statuses.append("FAIL")
            reasons.append(f"{ref.key} is an Offline figure sizing interactive traffic")
        elif interactive and ref.scenario in ("Server", "Interactive"):
            looser = [
                f"{name} p99 < {plain(limit)} ms (yours {plain(mine)} ms)"
                for name, limit, mine in (
                    ("TTFT", ref.ttft_limit_ms, slo.ttft_p99_ms),
                    ("TPOT", ref.tpot_limit_ms, slo.tpot_p99_ms),
                )
                if limit is not None and limit > mine
            ]
            if looser:
                statuses.append("WARN")
                reasons.append(f"{ref.key} was measured under looser limits: {', '.join(looser)}")
            else:
                statuses.append("PASS")
                reasons.append(f"{ref.key} ({ref.scenario}) matches interactive traffic")
        elif not interactive and ref.scenario == "Offline":
            statuses.append("PASS")
            reasons.append(f"{ref.key} (Offline) matches batch traffic")
        else:
            statuses.append("WARN")
            reasons.append(
                f"{ref.key} ({ref.scenario}) does not match {spec.traffic.pattern} "
                "traffic; its throughput is not comparable"
            )
    offline_runs = [r.id for r in ev.runs if r.point.load == "offline"]
    if interactive and offline_runs:
        statuses.append("WARN")
        reasons.append(
            f"offline runs ({', '.join(offline_runs)}) are not used to size interactive traffic"
        )
    if not reasons:
        statuses.append("WARN")
        reasons.append("no MLPerf reference cited")
    links = [ref.link() for ref in ev.references]
    return check_result("C1", cid, _worst(statuses), True, "; ".join(reasons), links)


def c2_own_scores(spec: PackSpec, cid: str, ev: CandidateEvidence) -> CheckResult:
    items = sum(len(s.scores) for s in ev.scores)
    guard = [
        f"{r.key}: " + ", ".join(f"{k} {plain(v)}" for k, v in sorted(r.accuracy.items()))
        for r in ev.references
        if r.accuracy
    ]
    guardrail = f"; MLPerf accuracy shown only as a guardrail ({'; '.join(guard)})" if guard else ""
    links = [link(s) for s in ev.scores]
    if not items:
        return check_result(
            "C2",
            cid,
            "FAIL",
            True,
            "no scores of the candidate model on the team's task: the quality claim "
            "would be inherited from MLPerf's accuracy floor" + guardrail,
            links,
        )
    unidentified = _unidentified(ev.scores)
    if unidentified:
        return check_result(
            "C2",
            cid,
            "WARN",
            True,
            f"{items} own scored items, but {', '.join(unidentified)} do not say which "
            "model was scored" + guardrail,
            links,
        )
    models = sorted({s.model for s in ev.scores if s.model})
    files = sorted({s.file.spec_path for s in ev.scores})
    return check_result(
        "C2",
        cid,
        "PASS",
        True,
        f"quality rests on {items} items of the team's own scoring ({spec.scoring.metric}) "
        f"of {', '.join(models)} in {', '.join(files)}" + guardrail,
        links,
    )


def c3_stack(spec: PackSpec, candidate: Candidate, ev: CandidateEvidence) -> CheckResult:
    statuses: list[Status] = []
    reasons = []
    stack = candidate.stack
    for ref in ev.references:
        ok, diffs = stack_matches(ref, candidate)
        if ok:
            statuses.append("PASS")
            reasons.append(f"{ref.key} ran {stack.runtime} {stack.precision} like production")
            continue
        value = per_accelerator(ref)
        discount = spec.stack_mismatch_discount
        if discount == 0:
            # The figure would be carried over at face value from a stack production won't run.
            statuses.append("FAIL")
            shown = "; taken at face value: set stack_mismatch_discount in the spec"
        else:
            statuses.append("WARN")
            shown = (
                f"; discounted by {discount:.0%}: {value:.1f} -> {value * (1 - discount):.1f} "
                "tok/s per accelerator"
                if value is not None
                else f"; discounted by {discount:.0%}"
            )
        reasons.append(f"{ref.key}: {'; '.join(diffs)}{shown}")
    if not reasons:
        return check_result(
            "C3", candidate.id, "PASS", True, "no MLPerf reference cited: nothing inherited"
        )
    return check_result(
        "C3",
        candidate.id,
        _worst(statuses),
        True,
        "; ".join(reasons),
        [r.link() for r in ev.references],
    )


def c4_remeasured(
    cid: str, ev: CandidateEvidence, capacity: Capacity, accelerators_per_replica: int
) -> CheckResult:
    runs = [r for r in ev.runs if r.point.load != "offline"]
    links = [link(r) for r in ev.runs]
    if not runs:
        return check_result(
            "C4",
            cid,
            "FAIL",
            True,
            "no serving run of the candidate model on this configuration: sizing would "
            "rest on the reference model (a proxy)",
            links,
        )
    ratios = []
    measured = capacity.output_tokens_per_s_at_op
    for ref in ev.references:
        value = per_accelerator(ref)
        if value is not None and measured:
            ratios.append(
                f"{ref.key}: reference {value:.1f} vs measured "
                f"{measured / accelerators_per_replica:.1f} tok/s per accelerator "
                f"= {value / (measured / accelerators_per_replica):.2f}x"
            )
    unidentified = _unidentified(runs)
    models = sorted({_model_of(r) for r in runs})
    detail = f"{len(runs)} serving run(s) of {', '.join(models)}" + (
        f"; {'; '.join(ratios)}" if ratios else ""
    )
    if unidentified:
        return check_result(
            "C4",
            cid,
            "WARN",
            True,
            detail + f"; {', '.join(unidentified)} do not say which model ran",
            links,
        )
    return check_result("C4", cid, "PASS", True, detail, links)


def stack_departures(spec: PackSpec, candidate: Candidate) -> list[str]:
    """Where a candidate's own stack departs from the spec's frozen envelope."""
    envelope, stack = spec.envelope, candidate.stack
    out = []
    if normalise_runtime(stack.runtime) != normalise_runtime(envelope.runtime.name):
        out.append(
            f"runtime {stack.runtime} {stack.version} instead of the envelope's "
            f"{envelope.runtime.name} {envelope.runtime.version}"
        )
    elif not versions_match(stack.version, envelope.runtime.version):
        out.append(
            f"{stack.runtime} {stack.version} instead of the envelope's {envelope.runtime.version}"
        )
    if normalise_precision(stack.precision) != normalise_precision(envelope.precision):
        out.append(f"precision {stack.precision} instead of the envelope's {envelope.precision}")
    return out


def c5_envelope(
    spec: PackSpec, candidate: Candidate, rows: Sequence[ComparabilityRow], ev: CandidateEvidence
) -> CheckResult:
    """Runs and score sets against the candidate's envelope (its own stack and hardware); a
    candidate whose stack departs from the spec's envelope is called out even when they agree."""
    cid = candidate.id
    mine = [r for r in rows if r.candidate == cid and r.kind in ("run", "scores")]
    hard = [(r.subject, d) for r in mine for d in r.differences if d.field in HARD_FIELDS]
    soft = [(r.subject, d) for r in mine for d in r.differences if d.field not in HARD_FIELDS]
    unknown = sorted({f for r in mine for f in r.unknown if f in HARD_FIELDS})
    links = [link(x) for x in ev.items()]
    if not mine:
        return check_result(
            "C5", cid, "FAIL", True, "no runs or score sets to hold the envelope across"
        )
    if hard:
        return check_result(
            "C5",
            cid,
            "FAIL",
            True,
            "envelope broken: " + "; ".join(f"{subject}: {d.detail}" for subject, d in hard),
            links,
        )
    departures = stack_departures(spec, candidate)
    if soft or unknown or departures:
        parts = [f"{subject}: {d.detail}" for subject, d in soft]
        if unknown:
            parts.append(f"not stated by any file or declaration: {', '.join(unknown)}")
        if departures:
            parts.append(
                f"the candidate runs {'; '.join(departures)}: its runs and scores are held to "
                "its own stack, so its quality was measured on that stack, not the envelope's"
            )
        return check_result("C5", cid, "WARN", True, "; ".join(parts), links)
    declared = sorted({f for r in mine for f in r.declared})
    note = (
        f" (declared in the spec, not recorded by the files: {', '.join(declared)})"
        if declared
        else ""
    )
    return check_result(
        "C5",
        cid,
        "PASS",
        True,
        f"{len(mine)} runs and score sets match the frozen envelope{note}",
        links,
    )


def slo_check(cid: str, capacity: Capacity, ev: CandidateEvidence) -> CheckResult:
    if capacity.operating_point_rps is None:
        return check_result(
            "SLO-MET", cid, "FAIL", False, capacity.reason, [link(r) for r in ev.runs]
        )
    runs = [r for r in ev.runs if r.id == capacity.operating_point_run]
    point = next(lp for lp in capacity.load_points if lp.run == capacity.operating_point_run)
    figures = "; ".join(
        f"{name} p99 {value:.1f} ms"
        for name, value in (("TTFT", point.ttft_p99_ms), ("TPOT", point.tpot_p99_ms))
        if value is not None
    )
    model = f", {_model_of(runs[0])}" if runs else ""
    return check_result(
        "SLO-MET",
        cid,
        "PASS",
        False,
        f"X* = {capacity.operating_point_rps:.3f} req/s per replica within the SLO "
        f"({capacity.operating_point_run}{model}: {figures}); {capacity.reason}",
        [link(r) for r in runs],
    )


def quality_check(cid: str, quality: Quality, ev: CandidateEvidence) -> CheckResult:
    return check_result(
        "QUALITY",
        cid,
        "PASS" if quality.meets_bar else "FAIL",
        False,
        quality.reason,
        [link(s) for s in ev.scores],
    )


def provenance_checks(
    spec: PackSpec, cid: str, ev: CandidateEvidence, findings: Sequence[Finding] = ()
) -> list[CheckResult]:
    problems = [(reason, f) for check_id, reason, f in ev.problems if check_id == "PROV-FILES"]
    if problems:
        files = check_result(
            "PROV-FILES",
            cid,
            "FAIL",
            True,
            "; ".join(r for r, _ in problems),
            [
                EvidenceLink(row=f.pack_path, file_sha256=f.sha256, pack_path=f.pack_path)
                for _, f in problems
                if f is not None
            ],
        )
    else:
        files = check_result("PROV-FILES", cid, "PASS", True, "every input file read and unchanged")
    out = [files]
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
    if reasons:
        out.append(
            check_result(
                "PROV-MLPERF",
                cid,
                _worst(statuses),
                True,
                "; ".join(reasons),
                [r.link() for r in ev.references],
            )
        )
    out.append(prov_data(cid, ev, findings))
    envelope = spec.envelope.model
    wrong = []
    for item in ev.items():
        name = item.observed.model_name
        digest = item.observed.model_digest
        if digest is not None and digest != envelope.digest:
            wrong.append(f"{item.id} is for model digest {digest[:12]}...")
        elif name is not None and name.strip().lower() != envelope.name.strip().lower():
            wrong.append(f"{item.id} is for model {name!r}")
    if wrong:
        out.append(
            check_result(
                "PROV-MODEL",
                cid,
                "FAIL",
                True,
                f"evidence for the wrong model (envelope: {envelope.name}): " + "; ".join(wrong),
                [link(x) for x in ev.items()],
            )
        )
    else:
        out.append(
            check_result(
                "PROV-MODEL",
                cid,
                "PASS",
                True,
                f"no run or score set names another model than {envelope.name}",
            )
        )
    return out


def _model_of(run: RunEvidence) -> str:
    return run.observed.model_name or run.declared.model_name or "an unnamed model"


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
            model=", ".join(sorted({_model_of(r) for r in sweep})),
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
        return check_result(
            "PROV-DATA",
            cid,
            _worst(f.severity for f in findings),
            True,
            "; ".join(_finding_text(f) for f in findings),
            [e for f in findings for e in f.evidence],
        )
    if not ev.runs:
        return check_result("PROV-DATA", cid, "PASS", True, "no serving runs to check")
    models = sorted({_model_of(r) for r in ev.runs})
    paired = [r for r in ev.runs if r.also]
    crossed = f"; {len(paired)} summary file(s) agree with their run's rows" if paired else ""
    return check_result(
        "PROV-DATA",
        cid,
        "PASS",
        True,
        f"{len(ev.runs)} run(s) of {', '.join(models)} ({', '.join(r.id for r in ev.runs)}): "
        "no impossible TTFT/TPOT/latency or token figure, no repeated log key, no INVALID "
        f"verdict, tool summaries within {TOLERANCE_TEXT} of the rows{crossed}",
        [link(r) for r in ev.runs],
    )
