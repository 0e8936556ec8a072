"""Read every input a spec cites into the store and into the analysis' evidence views.

This is the one module that knows both the input readers (``mlperf``, ``inputs``) and the
analysis' views (``analyze.evidence``): a new input format never reaches the analysis.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

from .. import progress
from ..errors import InputError
from ..inputs.base import ParsedInput
from ..inputs.clients import is_client
from ..inputs.collect import Collector, portable
from ..inputs.crosscheck import loadgen_pair
from ..inputs.load import load_input
from ..inputs.models import AggregateCheck, Identity, LatencyStats, RunFinding, ServingRun
from ..inputs.records import FileProblem, InputFile, in_spec
from ..inputs.registry import read_input
from ..inputs.snapshot import named_as
from ..inputs.stage import TOLERANCE_TEXT, empty_outputs_valid
from ..inputs.stored import (
    companions,
    failed_checks,
    load_score_sets,
    replace_findings,
    run_findings,
    runs_of_files,
    score_item_rows,
)
from ..spec import Candidate, EvidenceRef, LoadedSpec
from ..spec_fit import DeclaredConditions
from ..store import Store
from .capacity import RunPoint
from .evidence import (
    CandidateEvidence,
    Conditions,
    DataFinding,
    RunEvidence,
    ScoreEvidence,
)
from .layout import layout_of
from .public_read import public_points
from .references import MlperfImports, gather_reference
from .run_folder import FolderRows, folder_rows, reconcile

LOADGEN_DETAIL = "mlperf_log_detail.txt"
LOADGEN_SUMMARY = "mlperf_log_summary.txt"
MEASURE_REQUESTS = "requests.jsonl"


def gather(loaded: LoadedSpec, store: Store, collector: Collector) -> dict[str, CandidateEvidence]:
    """Every candidate's evidence; problems are recorded as provenance findings, not raised."""
    spec = loaded.spec
    imports = MlperfImports(store, collector)
    shared_problems: list[FileProblem] = []
    if spec.dataset.path is not None:
        ref = EvidenceRef(path=spec.dataset.path, sha256=spec.dataset.digest)
        shared_problems += collector.add_ref(ref, "dataset", None).problems
    out: dict[str, CandidateEvidence] = {}
    for candidate in spec.candidates:
        progress.stage(f"reading the evidence of {candidate.id}")
        ev = CandidateEvidence(candidate.id, problems=list(shared_problems))
        for ref in candidate.evidence.mlperf:
            gather_reference(loaded, store, collector, imports, candidate, ref, ev)
        for ref in candidate.evidence.references:
            ev.public += public_points(loaded, collector, candidate.id, ref, ev.problems)
        read: list[tuple[EvidenceRef, InputFile]] = []
        beside: dict[str, FolderRows] = {}
        for ref in candidate.evidence.runs:
            start = len(ev.cited)  # the files this reference adds are cited after it
            logs = [
                files[0]
                for _, files in _read_ref(loaded, store, collector, candidate, ref, "runs", ev)
            ]
            read += [(ref, log) for log in logs]
            added = [file for _, _, file in ev.cited[start:]]
            beside.update(_folder_rows(loaded, collector, ref, logs, added))
        # Read back from the store only once every file is in: a summary is cross-checked
        # against its per-request companion when the second of the two is loaded.
        ev.runs += _stored_runs(store, candidate, read, beside)
        for ref in candidate.evidence.scores:
            parsed_files = _read_ref(loaded, store, collector, candidate, ref, "scores", ev)
            scored = len(parsed_files)
            for parsed, files in parsed_files:
                stored = {s.set_id: s for s in load_score_sets(store, candidate=candidate.id)}
                for index, parsed_set in enumerate(parsed.score_sets):
                    score_set = stored.get(parsed_set.set_id, parsed_set)
                    rows = score_item_rows(store, score_set.set_id)
                    label = _label(ref, files[0], index, len(parsed.score_sets), scored)
                    ev.scores.append(
                        ScoreEvidence(
                            id=label,
                            file=files[0],
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
                        )
                    )
        out[candidate.id] = ev
    return out


def _read_ref(
    loaded: LoadedSpec,
    store: Store,
    collector: Collector,
    candidate: Candidate,
    ref: EvidenceRef,
    role: Literal["runs", "scores"],
    ev: CandidateEvidence,
) -> list[tuple[ParsedInput, list[InputFile]]]:
    """Hash, parse and store the files of one reference; a LoadGen folder is read by its
    detail log. A file that cannot be read or stored becomes a PROV-FILES finding."""
    ref_files = collector.add_ref(ref, role, candidate.id)
    ev.problems += ref_files.problems
    ev.file_warnings += ref_files.hard_links
    added = ref_files.files
    ev.cited += [(role, ref.path, f) for f in added]
    source = loaded.resolve(ref.path)
    targets = [f for f in added if source.is_file() or Path(f.pack_path).name == LOADGEN_DETAIL]
    if not targets:
        # A measure run stopped before LoadGen's verdict holds only what the client measured.
        targets = [f for f in added if Path(f.pack_path).name == MEASURE_REQUESTS] or added
    out = []
    for target in targets:
        path = collector.result.sources[target.pack_path]
        shown = collector.shown(path)
        try:
            with empty_outputs_valid(loaded.spec.task.empty_output_is_valid):
                # The reader gets the collector's record: named by its pack path, not hashed again.
                parsed = named_as(read_input(path, record=target.as_read()), path, shown)
        except InputError as exc:
            message = portable(exc.message, path, shown)
            ev.problems.append(FileProblem(f"{ref.path}: cannot read: {message}", target))
            continue
        try:
            load_input(store, parsed, role=role, candidate=candidate.id)
        except InputError as exc:
            message = exc.message.replace(target.pack_path, shown)
            ev.problems.append(FileProblem(f"{ref.path}: {portable(message, path, shown)}", target))
            continue
        if not (parsed.runs if role == "runs" else parsed.score_sets):
            holds = "serving runs" if role == "runs" else "scores"
            ev.problems.append(
                FileProblem(f"{ref.path}: a {parsed.format_id} file holds no {holds}", target)
            )
            continue
        progress.count("results imported")
        collector.annotate(
            target.pack_path,
            fmt=parsed.format_id,
            tool=(parsed.runs or parsed.score_sets)[0].tool,
            tool_version=(parsed.runs or parsed.score_sets)[0].tool_version,
            warnings=parsed.warnings,
            plugin=parsed.plugin,
        )
        out.append((parsed, [collector.result.files[target.pack_path]]))
    if role == "runs" and source.is_dir():
        _check_loadgen_summary(store, collector, candidate, added)
    return out


def _folder_rows(
    loaded: LoadedSpec,
    collector: Collector,
    ref: EvidenceRef,
    read: list[InputFile],
    added: list[InputFile],
) -> dict[str, FolderRows]:
    """A cited run folder read by its LoadGen log: the request rows beside that log (``read``:
    the files of this reference that were read, ``added``: all its files)."""
    logs = [f for f in read if Path(f.pack_path).name == LOADGEN_DETAIL]
    if len(logs) != 1 or not loaded.resolve(ref.path).is_dir():
        return {}
    folder = Path(logs[0].pack_path).parent
    rows = folder_rows(collector, [f for f in added if Path(f.pack_path).parent == folder])
    return {logs[0].pack_path: rows} if rows is not None else {}


def _check_loadgen_summary(
    store: Store, collector: Collector, candidate: Candidate, added: list[InputFile]
) -> None:
    """A team's own LoadGen folder: its summary checked against its detail log, the findings
    stored on the detail log's run."""
    by_name = {Path(f.pack_path).name: f for f in added}
    detail, summary = by_name.get(LOADGEN_DETAIL), by_name.get(LOADGEN_SUMMARY)
    if detail is None or summary is None:
        return
    copies = [collector.result.sources[f.pack_path] for f in (detail, summary)]
    findings = loadgen_pair(copies[0], copies[1])
    for copy in copies:
        shown = collector.shown(copy)
        findings = [
            f.model_copy(update={"detail": f.detail.replace(str(copy), shown)}) for f in findings
        ]
    for run in runs_of_files(store, [detail.sha256], candidate.id)[detail.sha256]:
        replace_findings(store, run.run_id, "summary-disagrees", findings)


def _stored_runs(
    store: Store,
    candidate: Candidate,
    read: list[tuple[EvidenceRef, InputFile]],
    beside: dict[str, FolderRows],
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
        out.append(_run(ref, candidate, file, run, label, tuple(findings), tuple(also)))
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
) -> RunEvidence:
    """One stored run as the analysis sees it: its figures for the whole run (``decide`` divides
    them per replica once the run's layout is judged), its conditions and its findings."""
    declared = ref.declared or candidate.evidence.declared

    def p99(stats: LatencyStats | None) -> float | None:
        return stats.p99_ms if stats is not None else None

    def largest(stats: LatencyStats | None) -> float | None:
        return stats.max_ms if stats is not None else None

    completed = run.requests_completed or 0
    failed = run.requests_failed or 0
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
        request_rate_rps=run.request_throughput_per_s,
        output_tokens_per_s=run.output_token_throughput_per_s,
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
