"""The analysis' evidence views of every candidate, built from what the intake took.

``intake/intake.py`` collects, reads and stores every cited file once; this module turns what
it hands over (and what the store holds) into ``analyze.evidence``'s views, the only evidence
the checks read: a new input format never reaches the analysis.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

from ..intake.collect import Collector
from ..intake.intake import ReadScores, take_in
from ..intake.records import InputFile, in_spec
from ..intake.run_folders import FolderRows
from ..intake.stored import (
    companions,
    failed_checks,
    load_score_sets,
    run_findings,
    runs_of_files,
    score_item_rows,
)
from ..readers.clients import is_client
from ..readers.models import AggregateCheck, Identity, LatencyStats, RunFinding, ServingRun
from ..spec.fit import DeclaredConditions
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, EvidenceRef
from ..staging.run_profile import RowProfile, row_profiles
from ..staging.stage import TOLERANCE_TEXT
from ..store import Store
from .capacity import RunPoint
from .evidence import (
    CandidateEvidence,
    Conditions,
    DataFinding,
    PublicEvidence,
    RunEvidence,
    ScoreEvidence,
    TrainingEvidence,
)
from .layout import layout_of
from .method import RunMethod, drift_notes, steady_figures
from .recompute import disagreement_text, recompute
from .references import reference_view
from .run_folder import reconcile


def gather(loaded: LoadedSpec, store: Store, collector: Collector) -> dict[str, CandidateEvidence]:
    """Every candidate's evidence: the intake taken once (``intake/intake.py``: every cited
    file collected, read and stored, problems recorded as provenance findings, never raised),
    then each candidate's views built from what it took and from the store."""
    taken = take_in(loaded, store, collector)
    out: dict[str, CandidateEvidence] = {}
    for candidate in loaded.spec.candidates:
        intake = taken[candidate.id]
        ev = CandidateEvidence(
            candidate.id,
            problems=list(intake.problems),
            file_warnings=list(intake.file_warnings),
            cited=list(intake.cited),
            dataset=intake.dataset,
        )
        ev.references += [reference_view(c.result, list(c.files)) for c in intake.mlperf]
        ev.training += [TrainingEvidence(c.result, c.files) for c in intake.training]
        ev.public += [PublicEvidence(p.label, p.file, p.point) for p in intake.public]
        # Read back from the store only once every file is in: a summary is cross-checked
        # against its per-request companion when the second of the two is loaded.
        ev.runs += _stored_runs(store, candidate, list(intake.runs), intake.beside)
        ev.scores += _scores(store, candidate, intake.scores)
        out[candidate.id] = ev
    return out


def add_hard_links(evidence: Mapping[str, CandidateEvidence], collector: Collector) -> None:
    """Once every file is collected (prices, the tokenizer and the model signature are read
    after ``gather``): each file read with several names (hard links) that PROV-FILES does not
    yet warn of, for the candidate that cites it, or for every candidate when no one candidate
    does (the spec, the dataset, a price index)."""
    linked = collector.hard_links()
    for candidate, ev in evidence.items():
        warned = {p.file.pack_path for p in ev.file_warnings if p.file is not None}
        ev.file_warnings += [
            p
            for p in linked
            if p.file is not None
            and p.file.candidate in (None, candidate)
            and p.file.pack_path not in warned
        ]


def _scores(
    store: Store, candidate: Candidate, read: tuple[ReadScores, ...]
) -> list[ScoreEvidence]:
    """The candidate's score sets as the store holds them (an lm-eval samples set completed
    from its results set), one per set of each file read."""
    stored = {s.set_id: s for s in load_score_sets(store, candidate=candidate.id)}
    out = []
    for taken in read:
        ref, parsed = taken.ref, taken.parsed
        for index, parsed_set in enumerate(parsed.score_sets):
            score_set = stored.get(parsed_set.set_id, parsed_set)
            rows = score_item_rows(store, score_set.set_id)
            label = _label(ref, taken.file, index, len(parsed.score_sets), taken.in_ref)
            out.append(
                ScoreEvidence(
                    id=label,
                    file=taken.file,
                    tool=score_set.tool,
                    metric=score_set.metric,
                    scores=tuple(row.score for row in rows),
                    item_ids=tuple(row.item_id for row in rows),
                    task=score_set.task,
                    scorer=score_set.scorer,
                    observed=_observed(score_set.identity),
                    declared=_declared(ref.declared or candidate.evidence.declared),
                    direction=score_set.direction,
                    dataset=(
                        (
                            score_set.dataset.name,
                            score_set.dataset.version,
                            score_set.dataset.digest,
                        )
                        if score_set.dataset is not None
                        else (None, None, None)
                    ),
                    timestamp=score_set.timestamp,
                    split=score_set.dataset.split if score_set.dataset is not None else None,
                    settings=tuple(sorted(score_set.identity.settings.items())),
                    judge_model=score_set.judge_model or _judge(score_set.identity.settings),
                )
            )
    return out


def _judge(settings: Mapping[str, object]) -> str | None:
    """The grading model a file's settings name (``judge_model``, ``grader_model``), if any."""
    for key in ("judge_model", "grader_model"):
        value = settings.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _stored_runs(
    store: Store,
    candidate: Candidate,
    read: list[tuple[EvidenceRef, InputFile]],
    beside: Mapping[str, FolderRows],
) -> list[RunEvidence]:
    """The candidate's runs as the store holds them, one load point per run: a summary run
    cross-checked against another file's per-request rows joins that run (``also``)."""
    of_file = runs_of_files(store, [file.sha256 for _, file in read], candidate.id)
    stored = [(ref, file, of_file[file.sha256]) for ref, file in read]
    per_ref: dict[int, int] = {}
    for ref, _ in read:
        per_ref[id(ref)] = per_ref.get(id(ref), 0) + 1
    by_id = {run.run_id: (ref, file, run, len(runs)) for ref, file, runs in stored for run in runs}
    found = companions(store, list(by_id))
    joined = {run_id: [s for s in found[run_id] if s in by_id] for run_id in by_id}
    stored_findings = StoredFindings(
        run_findings(store, list(by_id)), failed_checks(store, list(by_id))
    )
    summaries = {s for found in joined.values() for s in found}
    profiles = row_profiles(
        store, [i for i, (_, _, run, _) in by_id.items() if run.per_request_rows]
    )
    out = []
    for run_id, (ref, file, run, count) in by_id.items():
        if run_id in summaries:
            continue
        label = _label(ref, file, run.index, count, per_ref[id(ref)])
        declared = ref.declared or candidate.evidence.declared
        model = run.identity.model_name or (declared.model_name if declared else None)
        findings = _findings(stored_findings, label, file, run, model)
        if file.pack_path in beside:
            run, more = reconcile(label, file, run, beside[file.pack_path], model)
            findings += more
        also = []
        for summary_id in joined[run_id]:
            s_ref, s_file, summary, _ = by_id[summary_id]
            also.append(s_file)
            findings += _findings(
                stored_findings, f"{s_ref.path} (summary of {label})", s_file, summary, model
            )
        profile = profiles.get(run_id)
        if profile is None and file.pack_path in beside:
            profile = beside[file.pack_path].profile
        out.append(_run(ref, candidate, file, run, label, tuple(findings), tuple(also), profile))
    return out


def _label(ref: EvidenceRef, file: InputFile, index: int, in_file: int, in_ref: int) -> str:
    """A run's id: the spec's path, the file's path under a cited folder when the folder holds
    several read files, and ``#index`` when the file holds several runs."""
    label = ref.path
    if in_ref > 1:
        label = in_spec(file)
    return label if in_file == 1 else f"{label}#{index}"


@dataclasses.dataclass(frozen=True)
class StoredFindings:
    """What the store holds against each run of a candidate: its findings and its failed
    checks (read in one query each for every run)."""

    findings: dict[str, list[RunFinding]]
    failed: dict[str, list[tuple[AggregateCheck, str | None]]]


def _findings(
    stored: StoredFindings, label: str, file: InputFile, run: ServingRun, model: str | None
) -> list[DataFinding]:
    """A run's stored findings and the tool figures its rows contradict, as the analysis sees
    them (``model``: the run's own, else the declared one)."""

    def finding(
        kind: str, severity: Literal["FAIL", "WARN"], figure: str | None, detail: str
    ) -> DataFinding:
        return DataFinding(label, file, model, kind, severity, figure, detail)

    out = [finding(f.kind, f.severity, f.figure, f.detail) for f in stored.findings[run.run_id]]
    emptied = any(f.kind == "empty-output" for f in run.findings)
    for check, against in stored.failed[run.run_id]:
        figure = f"{check.metric.upper()} {check.statistic}"
        rows = f"the per-request rows of {against}" if against else "its own per-request rows"
        if emptied and against is None:
            rows += " (without the empty outputs the tool counted as successes)"
        out.append(
            finding(
                "summary-disagrees",
                "WARN" if emptied and against is None else "FAIL",
                figure,
                f"{run.tool} reports {figure} {check.tool_value:.4g} ms but {rows} give "
                f"{check.recomputed_value:.4g} ms (accepted {check.lower:.4g}..{check.upper:.4g}"
                f"; {TOLERANCE_TEXT})",
            )
        )
    return out


def _run(
    ref: EvidenceRef,
    candidate: Candidate,
    file: InputFile,
    run: ServingRun,
    label: str,
    findings: tuple[DataFinding, ...],
    also: tuple[InputFile, ...],
    profile: RowProfile | None = None,
) -> RunEvidence:
    """One stored run as the analysis sees it: its figures for the whole run (``decide`` divides
    them per replica once the run's layout is judged), recomputed from its own counts (a stated
    figure they contradict is a PROV-DATA failure), its method, conditions and findings."""
    declared = ref.declared or candidate.evidence.declared
    recomputed = recompute(run)
    findings += tuple(
        DataFinding(
            label,
            file,
            run.identity.model_name or (declared.model_name if declared else None),
            "summary-disagrees",
            "FAIL",
            figure.figure,
            disagreement_text(in_spec(file), figure),
        )
        for figure in recomputed.disagreements()
        if figure.figure != "failed requests"
    )

    def p99(stats: LatencyStats | None) -> float | None:
        return stats.p99_ms if stats is not None else None

    def largest(stats: LatencyStats | None) -> float | None:
        return stats.max_ms if stats is not None else None

    completed = run.requests_completed or 0
    failed = recomputed.failed
    load = run.load.kind or "open_loop"
    tpot = run.tpot if run.tpot is not None and run.tpot.canonical else None
    counts = [s.count for s in (run.ttft, tpot, run.e2e) if s is not None and s.count is not None]
    point = RunPoint(
        run=label,
        load=load,
        offered_rate_rps=run.load.request_rate_per_s,
        concurrency=run.load.concurrency,
        completed=completed,
        failed=failed,
        request_rate_rps=recomputed.request_rate_rps,
        output_tokens_per_s=recomputed.output_tokens_per_s,
        ttft_p99_ms=p99(run.ttft),
        tpot_p99_ms=p99(tpot),
        e2e_p99_ms=p99(run.e2e),
        e2e_mean_ms=run.e2e.mean_ms if run.e2e is not None else None,
        excluded=_excluded(findings),
        invalid=(
            f"{run.tool} judged the run INVALID: " + "; ".join(run.verdict_reasons)
            if run.verdict == "INVALID"
            else None
        ),
        latency_count=min(counts) if counts else None,
        ttft_max_ms=largest(run.ttft),
        tpot_max_ms=largest(tpot),
        e2e_max_ms=largest(run.e2e),
        notes=tuple(drift_notes(profile)) if profile is not None else (),
    )
    observed = dataclasses.replace(
        _observed(run.identity),
        input_tokens_mean=run.tokens.input_mean_tokens,
        output_tokens_mean=run.tokens.output_mean_tokens,
    )
    return RunEvidence(
        id=label,
        file=file,
        tool=run.tool,
        point=point,
        observed=observed,
        declared=_declared(declared),
        definitions=tuple(
            f"{s.metric} {s.definition}" for s in (run.ttft, tpot, run.e2e) if s is not None
        ),
        findings=findings,
        also=also,
        layout=layout_of(run.identity, declared),
        timestamp=run.timestamp,
        figures=(
            *recomputed.figures,
            *steady_figures(profile, recomputed.request_rate_rps, p99(run.ttft)),
        ),
        method=RunMethod(
            tool=run.tool,
            settings=dict(run.identity.settings),
            load=load,
            arrival=run.load.arrival,
            burstiness=run.load.burstiness,
            duration_s=run.duration_s,
            requests=run.requests_sent
            if run.requests_sent is not None
            else completed + (run.requests_failed or 0),
            profile=profile,
        ),
    )


def _excluded(findings: tuple[DataFinding, ...]) -> str | None:
    """Why a run with a failing finding is no operating point (a PROV-DATA waiver admits it;
    a run its tool judged INVALID is kept out by ``RunPoint.invalid``)."""
    failing = [f for f in findings if f.severity == "FAIL"]
    if not failing:
        return None
    return f"its data fails PROV-DATA ({failing[0].figure or failing[0].kind})"


def _observed(identity: Identity) -> Conditions:
    return Conditions(
        model_name=identity.model_name,
        model_digest=identity.model_digest,
        precision=identity.precision,
        # An HTTP client (lm-eval's local-completions) is not the serving runtime: the spec's
        # declared runtime stands where a file names only its client.
        runtime=None if is_client(identity.runtime_name) else identity.runtime_name,
        runtime_version=None if is_client(identity.runtime_name) else identity.runtime_version,
        concurrency=identity.concurrency,
    )


def _declared(declared: DeclaredConditions | None) -> Conditions:
    if declared is None:
        return Conditions()
    return Conditions(
        model_name=declared.model_name,
        model_digest=declared.model_digest,
        precision=declared.precision,
        runtime=declared.runtime,
        runtime_version=declared.runtime_version,
        concurrency=declared.concurrency,
        hardware=declared.hardware,
    )
