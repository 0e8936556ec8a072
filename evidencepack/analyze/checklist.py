"""The reading checklist, C1-C5: is each MLPerf figure and each own measurement read right?

C1 scenario against traffic, C2 the quality claim is the team's own, C3 the MLPerf stack against
production, C4 the candidate model re-measured, C5 the envelope held. Each check is a function
of the candidate's evidence and an entry of the check table (``analyze.checks.CHECKS``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core._numbers import plain
from ..readers.normalise import normalise_precision, normalise_runtime, versions_match
from ..spec.models import Candidate, PackSpec
from .check_base import Check, model_of, worst
from .comparability import HARD_FIELDS
from .evidence import CandidateEvidence, ReferenceEvidence, RunEvidence, ScoreEvidence, link
from .models import Capacity, CheckResult, ComparabilityRow, EvidenceLink, Status
from .public import c1_public
from .reference_fit import judge_reference, plausibility


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
    """An MLPerf reference's tokens per second per accelerator, if both are known."""
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
    """C1: each MLPerf reference's scenario (and latency limits) against the traffic and SLO."""
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
    for status, reason in c1_public(spec, ev.public):
        statuses.append(status)
        reasons.append(reason)
    offline_runs = [r.id for r in ev.runs if r.point.load == "offline"]
    if interactive and offline_runs:
        statuses.append("WARN")
        reasons.append(
            f"offline runs ({', '.join(offline_runs)}) are not used to size interactive traffic"
        )
    if not reasons:
        statuses.append("WARN")
        reasons.append("no MLPerf reference cited")
    links = [ref.link() for ref in ev.references] + [
        EvidenceLink(row=item.id, file_sha256=item.file.sha256, pack_path=item.file.pack_path)
        for item in ev.public
    ]
    return C1.result(cid, worst(statuses), "; ".join(reasons), links)


def c2_own_scores(spec: PackSpec, cid: str, ev: CandidateEvidence) -> CheckResult:
    """C2: quality rests on the team's own scores of the model, not MLPerf's accuracy."""
    items = sum(len(s.scores) for s in ev.scores)
    guard = [
        f"{r.key}: " + ", ".join(f"{k} {plain(v)}" for k, v in sorted(r.accuracy.items()))
        for r in ev.references
        if r.accuracy
    ]
    guardrail = f"; MLPerf accuracy shown only as a guardrail ({'; '.join(guard)})" if guard else ""
    links = [link(s) for s in ev.scores]
    if not items:
        return C2.result(
            cid,
            "FAIL",
            "no scores of the candidate model on the team's task: the quality claim "
            "would be inherited from MLPerf's accuracy floor" + guardrail,
            links,
        )
    unidentified = _unidentified(ev.scores)
    if unidentified:
        return C2.result(
            cid,
            "WARN",
            f"{items} own scored items, but {', '.join(unidentified)} do not say which "
            "model was scored" + guardrail,
            links,
        )
    models = sorted({s.model for s in ev.scores if s.model})
    files = sorted({s.file.spec_path for s in ev.scores})
    return C2.result(
        cid,
        "PASS",
        f"quality rests on {items} items of the team's own scoring ({spec.scoring.metric}) "
        f"of {', '.join(models)} in {', '.join(files)}" + guardrail,
        links,
    )


def c3_stack(spec: PackSpec, candidate: Candidate, ev: CandidateEvidence) -> CheckResult:
    """C3: each MLPerf reference's runtime, version and precision against production."""
    statuses: list[Status] = []
    reasons = []
    stack = candidate.stack
    for ref in ev.references:
        fit = judge_reference(spec, candidate, ref)
        for status, finding in fit.findings:
            statuses.append(status)
            reasons.append(finding)
        ok, diffs = stack_matches(ref, candidate)
        if ok:
            statuses.append("PASS")
            reasons.append(
                f"{ref.key} ran {stack.runtime} {stack.precision} like production"
                if fit.supports and not fit.open_division
                else f"{ref.key} ran {stack.runtime} {stack.precision}, the production stack"
            )
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
        return C3.result(candidate.id, "PASS", "no MLPerf reference cited: nothing inherited")
    return C3.result(
        candidate.id,
        worst(statuses),
        "; ".join(reasons),
        [r.link() for r in ev.references],
    )


def c4_remeasured(
    spec: PackSpec, candidate: Candidate, ev: CandidateEvidence, capacity: Capacity
) -> CheckResult:
    """C4: the candidate model was re-measured on this configuration, and its runs are
    plausible against the same system's cited MLPerf results (``reference_fit.plausibility``)."""
    cid = candidate.id
    runs = [r for r in ev.runs if r.point.load != "offline"]
    links = [link(r) for r in ev.runs]
    if not runs:
        return C4.result(
            cid,
            "FAIL",
            "no serving run of the candidate model on this configuration: sizing would "
            "rest on the reference model (a proxy)",
            links,
        )
    beyond, ratios = plausibility(spec, candidate, ev.references, capacity)
    unidentified = _unidentified(runs)
    models = sorted({model_of(r) for r in runs})
    detail = f"{len(runs)} serving run(s) of {', '.join(models)}"
    if beyond:
        return C4.result(
            cid, "FAIL", detail + "; not plausible: " + "; ".join(beyond), links + _refs(ev)
        )
    detail += f"; {'; '.join(ratios)}" if ratios else ""
    if unidentified:
        return C4.result(
            cid,
            "WARN",
            detail + f"; {', '.join(unidentified)} do not say which model ran",
            links,
        )
    return C4.result(cid, "PASS", detail, links)


def _refs(ev: CandidateEvidence) -> list[EvidenceLink]:
    return [ref.link() for ref in ev.references]


def stack_departures(spec: PackSpec, candidate: Candidate) -> list[str]:
    """Where a candidate's own stack departs from the spec's frozen envelope."""
    envelope, stack = spec.envelope, candidate.stack
    out: list[str] = []
    if candidate.api is not None:
        return out  # a hosted API runs the provider's stack, not the team's envelope
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
        return C5.result(cid, "FAIL", "no runs or score sets to hold the envelope across")
    if hard:
        return C5.result(
            cid,
            "FAIL",
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
        return C5.result(cid, "WARN", "; ".join(parts), links)
    declared = sorted({f for r in mine for f in r.declared})
    note = (
        f" (declared in the spec, not recorded by the files: {', '.join(declared)})"
        if declared
        else ""
    )
    return C5.result(
        cid,
        "PASS",
        f"{len(mine)} runs and score sets match the frozen envelope{note}",
        links,
    )


C1 = Check(
    "C1",
    "Scenario matches traffic",
    hard=True,
    judge=lambda c: c1_scenario(c.spec, c.candidate.id, c.evidence),
)
C2 = Check(
    "C2",
    "Quality claim is the team's own, not MLPerf's accuracy floor",
    hard=True,
    judge=lambda c: c2_own_scores(c.spec, c.candidate.id, c.usable),
)
C3 = Check(
    "C3",
    "MLPerf software stack against the production stack",
    hard=True,
    judge=lambda c: c3_stack(c.spec, c.candidate, c.evidence),
)
C4 = Check(
    "C4",
    "Candidate model re-measured on this configuration",
    hard=True,
    judge=lambda c: c4_remeasured(c.spec, c.candidate, c.usable, c.capacity),
)
C5 = Check(
    "C5",
    "Envelope held across performance runs and quality evals",
    hard=True,
    judge=lambda c: c5_envelope(c.spec, c.candidate, c.rows, c.evidence),
)
