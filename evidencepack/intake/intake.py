"""The intake: every file the spec's candidates cite, collected, read and stored in one pass.

``take_in`` is called once per build. For each candidate, in the spec's order, it takes the
MLPerf references (``mlperf_refs``), the public results, the serving runs and the scores: each
file snapshotted and recorded once (``Collector``), read by its format, stored, and cross-checked
with its companions. What it hands the analysis is finished and read-only: a ``CandidateIntake``
per candidate (what was read, and the PROV-FILES problems found, in the order found); the
analysis builds its views from that and from the store, and never calls back into the intake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError
from ..readers.base import ParsedInput
from ..readers.formats.measure_server_metrics import (
    SERVER_METRICS_FILE,
    ServerMetricsDocument,
    read_server_metrics,
)
from ..readers.models import ReferencePoint, ServingRun
from ..readers.reference_points import read_reference_points
from ..readers.registry import format_by_id, read_input, stage_small_runs
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, EvidenceRef
from ..staging.context import ReadContext
from ..staging.run_profile import RowProfile, profile_of
from ..staging.stage import shared_staging
from ..store import Store
from .collect import Collector, input_limit
from .crosscheck import loadgen_pair
from .dataset_items import DatasetItems, read_dataset_items
from .endpoints_refs import endpoints_curves, read_endpoints
from .load import load_input, load_inputs
from .mlperf_refs import CitedResult, CitedTraining, MlperfImports, MlperfTaken, take_mlperf
from .records import FileProblem, InputFile, in_spec
from .stored import replace_findings, runs_of_files

BATCH_FILES = 256
"""Run references read and stored together at most (``_read_small_runs``)."""
BATCH_FILE_BYTES = 256 * 1024
"""A cited file this small is read with others: its statements cost more than its rows."""
BATCH_BYTES = 16 << 20
"""The bytes of one such batch at most."""
LOADGEN_DETAIL = "mlperf_log_detail.txt"
LOADGEN_SUMMARY = "mlperf_log_summary.txt"
MEASURE_REQUESTS = "requests.jsonl"


@dataclass(frozen=True)
class FolderRows:
    """The request rows found beside a run's log: their file and the run they describe, and
    the engine's own metrics when the run scraped them (or why they could not be read)."""

    file: InputFile
    run: ServingRun
    metrics_file: InputFile | None = None
    metrics: ServerMetricsDocument | None = None
    metrics_problem: str | None = None
    profile: RowProfile | None = None
    """What the rows say about the run's shape: token-length tails, steady-state window."""


@dataclass(frozen=True)
class PublicPoint:
    """One point of a cited public result or estimate, named as the analysis shows it."""

    label: str
    file: InputFile
    point: ReferencePoint


@dataclass(frozen=True)
class ReadScores:
    """One score file read and stored for a candidate; ``in_ref``: score files its reference
    read (the label names the file when there are several)."""

    ref: EvidenceRef
    file: InputFile
    parsed: ParsedInput
    in_ref: int


@dataclass(frozen=True)
class CandidateIntake:
    """Everything the intake took for one candidate, read-only."""

    candidate: str
    problems: tuple[FileProblem, ...]
    """PROV-FILES problems, in the order found (the shared dataset's first)."""
    file_warnings: tuple[FileProblem, ...]
    """Files with several names (hard links): PROV-FILES warns of them."""
    cited: tuple[tuple[str, str, InputFile], ...]
    """Every run and score file cited: (role, spec reference, file)."""
    mlperf: tuple[CitedResult, ...]
    training: tuple[CitedTraining, ...]
    public: tuple[PublicPoint, ...]
    runs: tuple[tuple[EvidenceRef, InputFile], ...]
    """The run files read and stored (a LoadGen folder by its detail log)."""
    beside: Mapping[str, FolderRows]
    """Per LoadGen log (pack path): the request rows in its folder."""
    scores: tuple[ReadScores, ...]
    dataset: DatasetItems | None = None
    """The item ids of the spec's dataset file, when it cites one (the same for every
    candidate)."""


@dataclass
class _Taking:
    """A candidate's intake while it is taken."""

    candidate: Candidate
    problems: list[FileProblem]
    file_warnings: list[FileProblem] = field(default_factory=list)
    cited: list[tuple[str, str, InputFile]] = field(default_factory=list)
    public: list[PublicPoint] = field(default_factory=list)
    runs: list[tuple[EvidenceRef, InputFile]] = field(default_factory=list)
    beside: dict[str, FolderRows] = field(default_factory=dict)
    scores: list[ReadScores] = field(default_factory=list)

    def done(self, mlperf: MlperfTaken, dataset: DatasetItems | None) -> CandidateIntake:
        return CandidateIntake(
            candidate=self.candidate.id,
            problems=tuple(self.problems),
            file_warnings=tuple(self.file_warnings),
            cited=tuple(self.cited),
            mlperf=tuple(mlperf.results),
            training=tuple(mlperf.training),
            public=tuple(self.public),
            runs=tuple(self.runs),
            beside=dict(self.beside),
            scores=tuple(self.scores),
            dataset=dataset,
        )


def read_context(loaded: LoadedSpec) -> ReadContext:
    """What the spec says about reading its evidence: whether an empty output is a success."""
    return ReadContext(empty_output_valid=loaded.spec.task.empty_output_is_valid)


def take_in(loaded: LoadedSpec, store: Store, collector: Collector) -> dict[str, CandidateIntake]:
    """Every candidate's cited files collected, read into ``store`` and cross-checked; problems
    are recorded as PROV-FILES findings, never raised. The files share one staging database
    (``shared_staging``), closed when the intake is done; a large file is staged inside
    ``store``'s database, so its rows move into the store without leaving DuckDB."""
    with shared_staging(store):
        return _take_in(loaded, store, collector)


def _take_in(loaded: LoadedSpec, store: Store, collector: Collector) -> dict[str, CandidateIntake]:
    spec = loaded.spec
    imports = MlperfImports(store, collector)
    shared: list[FileProblem] = []
    dataset = None
    if spec.dataset.path is not None:
        ref = EvidenceRef(path=spec.dataset.path, sha256=spec.dataset.digest)
        taken = collector.add_ref(ref, "dataset", None)
        shared += taken.problems
        if len(taken.files) == 1 and not taken.problems:
            file = taken.files[0]
            dataset = read_dataset_items(
                collector.result.sources[file.pack_path], file, spec.dataset.path
            )
    out: dict[str, CandidateIntake] = {}
    for candidate in spec.candidates:
        collector.progress.stage(f"reading the evidence of {candidate.id}")
        taking = _Taking(candidate, problems=list(shared))
        mlperf = MlperfTaken(problems=taking.problems)  # one list: problems in the order found
        for mlperf_ref in candidate.evidence.mlperf:
            take_mlperf(imports, candidate, mlperf_ref, mlperf)
        for ref in candidate.evidence.references:
            _public(collector, taking, ref)
        refs = candidate.evidence.runs
        at = 0
        while at < len(refs):
            small = _small_files(loaded, refs[at : at + BATCH_FILES])
            if len(small) > 1:  # read and stored together: a few statements for them all
                _read_small_runs(loaded, store, collector, taking, small)
                at += len(small)
                continue
            ref = refs[at]
            at += 1
            start = len(taking.cited)  # the files this reference adds are cited after it
            logs = [file for _, file in _read_ref(loaded, store, collector, taking, ref, "runs")]
            taking.runs += [(ref, log) for log in logs]
            added = [file for _, _, file in taking.cited[start:]]
            taking.beside.update(_folder_rows(loaded, collector, ref, logs, added))
        for ref in candidate.evidence.scores:
            read = _read_ref(loaded, store, collector, taking, ref, "scores")
            taking.scores += [ReadScores(ref, file, parsed, len(read)) for parsed, file in read]
        out[candidate.id] = taking.done(mlperf, dataset)
    return out


def _read_ref(
    loaded: LoadedSpec,
    store: Store,
    collector: Collector,
    taking: _Taking,
    ref: EvidenceRef,
    role: Literal["runs", "scores"],
) -> list[tuple[ParsedInput, InputFile]]:
    """Hash, parse and store the files of one reference; a LoadGen folder is read by its
    detail log. A file that cannot be read or stored becomes a PROV-FILES finding."""
    candidate = taking.candidate
    ref_files = collector.add_ref(ref, role, candidate.id)
    taking.problems += ref_files.problems
    taking.file_warnings += ref_files.hard_links + ref_files.over_default
    added = ref_files.files
    taking.cited += [(role, ref.path, f) for f in added]
    source = loaded.resolve(ref.path)
    targets = [f for f in added if source.is_file() or Path(f.pack_path).name == LOADGEN_DETAIL]
    if not targets:
        # A measure run stopped before LoadGen's verdict holds only what the client measured.
        targets = [f for f in added if Path(f.pack_path).name == MEASURE_REQUESTS] or added
    out = []
    for target in targets:
        read = _read_one(loaded, collector, ref, target)
        if isinstance(read, FileProblem):
            taking.problems.append(read)
            continue
        problem = _store_one(store, collector, ref, target, read, role, candidate.id)
        if problem is not None:
            taking.problems.append(problem)
            continue
        out.append((read, collector.result.files[target.pack_path]))
    if role == "runs" and source.is_dir():
        _check_loadgen_summary(store, collector, candidate, added)
    return out


def _small_files(loaded: LoadedSpec, refs: Sequence[EvidenceRef]) -> list[EvidenceRef]:
    """The leading references of ``refs`` that each cite one small regular file, at most
    ``BATCH_BYTES`` in all."""
    out: list[EvidenceRef] = []
    total = 0
    for ref in refs:
        try:
            source = loaded.resolve(ref.path)
            size = source.stat().st_size if source.is_file() else None
        except OSError:
            size = None
        if size is None or size > BATCH_FILE_BYTES or total + size > BATCH_BYTES:
            break
        out.append(ref)
        total += size
    return out


def _read_small_runs(
    loaded: LoadedSpec,
    store: Store,
    collector: Collector,
    taking: _Taking,
    refs: list[EvidenceRef],
) -> None:
    """Consecutive run references of one small file each, taken as ``_read_ref`` takes each in
    turn (the same files, runs, rows and problems, in the same order), with the files' rows
    staged together (``stage_small_runs``) and their runs stored together when they can be
    (``load_inputs``); else each file is stored alone."""
    candidate = taking.candidate.id
    took = []
    for ref in refs:
        ref_files = collector.add_ref(ref, "runs", candidate)
        taking.file_warnings += ref_files.hard_links + ref_files.over_default
        taking.cited += [("runs", ref.path, f) for f in ref_files.files]
        took.append((ref, list(ref_files.problems), ref_files.files))
    copies = {
        collector.result.sources[f.pack_path]: collector.shown(
            collector.result.sources[f.pack_path]
        )
        for _, _, files in took
        for f in files
    }
    spec_context = read_context(loaded)
    batched = ReadContext(spec_context.empty_output_valid, stage_small_runs(copies, spec_context))
    reads: list[tuple[int, InputFile, ParsedInput]] = []
    for number, (ref, problems, files) in enumerate(took):
        for target in files:
            copy = collector.result.sources[target.pack_path]
            read = _read_one(loaded, collector, ref, target, copies[copy], batched)
            if isinstance(read, FileProblem):
                problems.append(read)
            else:
                reads.append((number, target, read))
    stored: list[list[InputFile]] = [[] for _ in took]
    pending: list[tuple[int, InputFile, ParsedInput]] = []

    def alone(number: int, target: InputFile, parsed: ParsedInput) -> None:
        ref, problems, _ = took[number]
        problem = _store_one(store, collector, ref, target, parsed, "runs", candidate)
        if problem is None:
            stored[number].append(collector.result.files[target.pack_path])
        else:
            problems.append(problem)

    def flush() -> None:
        left = load_inputs(store, [p for _, _, p in pending], role="runs", candidate=candidate)
        for place, (number, target, parsed) in enumerate(pending):
            if left is None or place in left:
                continue
            ref, problems, _ = took[number]
            problem = _imported(collector, ref, target, parsed, "runs")
            assert problem is None  # load_inputs takes only files of runs
            stored[number].append(collector.result.files[target.pack_path])
        for place, item in enumerate(pending):  # in the order read, after the batch's
            if left is None or place in left:
                alone(*item)
        pending.clear()

    for item in reads:
        if item[2].runs:
            pending.append(item)
            continue
        flush()  # stored in the order read
        pending.append(item)
        flush()
    flush()
    for (ref, problems, _), files in zip(took, stored, strict=True):
        taking.problems += problems
        taking.runs += [(ref, file) for file in files]


def _read_one(
    loaded: LoadedSpec,
    collector: Collector,
    ref: EvidenceRef,
    target: InputFile,
    shown: str | None = None,
    context: ReadContext | None = None,
) -> ParsedInput | FileProblem:
    """One file of a reference read from its private copy (``shown``: its name, when known)
    under ``context`` (default: the spec's ``read_context``), or why it cannot be."""
    path = collector.result.sources[target.pack_path]
    name = collector.shown(path) if shown is None else shown
    context = read_context(loaded) if context is None else context
    try:  # the reader gets the collector's record (not hashed again) and the spec's name
        parsed = read_input(
            path, record=target.as_read(), name=name, max_bytes=input_limit(ref), context=context
        )
    except InputError as exc:
        return FileProblem(f"{ref.path}: cannot read: {exc.message}", target)
    if format_by_id(parsed.format_id).kind == "references":
        # A public result (InferenceX, an llm-d report) is a reference whatever key cites it:
        # its figures never size a candidate.
        return FileProblem(
            f"{ref.path}: a public result ({parsed.format_id}), not the candidate's "
            "own measurement: cite it under evidence.references",
            target,
        )
    return parsed


def _store_one(
    store: Store,
    collector: Collector,
    ref: EvidenceRef,
    target: InputFile,
    parsed: ParsedInput,
    role: Literal["runs", "scores"],
    candidate: str,
) -> FileProblem | None:
    """One file read stored alone and annotated; the problem when it cannot be or holds
    nothing of its role."""
    try:
        load_input(store, parsed, role=role, candidate=candidate)
    except InputError as exc:  # names the record's pack path: shown by the spec's
        shown = collector.shown(collector.result.sources[target.pack_path])
        return FileProblem(f"{ref.path}: {exc.named(shown).message}", target)
    return _imported(collector, ref, target, parsed, role)


def _imported(
    collector: Collector,
    ref: EvidenceRef,
    target: InputFile,
    parsed: ParsedInput,
    role: Literal["runs", "scores"],
) -> FileProblem | None:
    """A stored file annotated with its format and tool; the problem when it holds nothing
    of its role."""
    if not (parsed.runs if role == "runs" else parsed.score_sets):
        holds = "serving runs" if role == "runs" else "scores"
        return FileProblem(f"{ref.path}: a {parsed.format_id} file holds no {holds}", target)
    collector.progress.count("results imported")
    collector.annotate(
        target.pack_path,
        fmt=parsed.format_id,
        tool=(parsed.runs or parsed.score_sets)[0].tool,
        tool_version=(parsed.runs or parsed.score_sets)[0].tool_version,
        warnings=parsed.warnings,
        plugin=parsed.plugin,
    )
    return None


def _folder_rows(
    loaded: LoadedSpec,
    collector: Collector,
    ref: EvidenceRef,
    read: list[InputFile],
    added: list[InputFile],
) -> dict[str, FolderRows]:
    """A cited run folder read by its LoadGen log: the request rows beside that log (``read``:
    the files of this reference that were read, ``added``: all its files), read from the
    build's private copy; none when the folder has none or they cannot be read (the folder's
    log is still read)."""
    logs = [f for f in read if Path(f.pack_path).name == LOADGEN_DETAIL]
    if len(logs) != 1 or not loaded.resolve(ref.path).is_dir():
        return {}
    folder = Path(logs[0].pack_path).parent
    beside = [f for f in added if Path(f.pack_path).parent == folder]
    rows = next((f for f in beside if Path(f.pack_path).name == MEASURE_REQUESTS), None)
    if rows is None:
        return {}
    try:
        copy = collector.result.sources[rows.pack_path]
        parsed = read_input(
            copy, record=rows.as_read(), name=collector.shown(copy), max_bytes=input_limit(ref)
        )
    except InputError:
        return {}
    if len(parsed.runs) != 1:
        return {}
    columns = parsed.requests if isinstance(parsed.requests, Mapping) else None
    found = FolderRows(
        collector.result.files[rows.pack_path],
        parsed.runs[0],
        profile=profile_of(columns) if columns is not None else None,
    )
    metrics = next((f for f in beside if Path(f.pack_path).name == SERVER_METRICS_FILE), None)
    if metrics is not None:
        update: dict[str, Any] = {"metrics_file": collector.result.files[metrics.pack_path]}
        try:
            copy = collector.result.sources[metrics.pack_path]
            update["metrics"] = read_server_metrics(copy, collector.shown(copy))
        except InputError as exc:
            update["metrics_problem"] = exc.message
        found = replace(found, **update)
    return {logs[0].pack_path: found}


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
    findings = loadgen_pair(
        copies[0], copies[1], (collector.shown(copies[0]), collector.shown(copies[1]))
    )
    for run in runs_of_files(store, [detail.sha256], candidate.id)[detail.sha256]:
        replace_findings(store, run.run_id, "summary-disagrees", findings)


def _public(collector: Collector, taking: _Taking, ref: EvidenceRef) -> None:
    """The points of one cited public result or estimate (a file, or a folder of them), each
    named by the spec's path; a file that cannot be read as one is a PROV-FILES problem. A
    folder of MLPerf Endpoints curves gives each curve's points (``endpoints_refs``)."""
    ref_files = collector.add_ref(ref, "references", taking.candidate.id)
    taking.problems += ref_files.problems
    curves = endpoints_curves(collector.loaded.resolve(ref.path)) if ref_files.files else []
    if curves:
        read, problems = read_endpoints(collector, curves, collector.loaded.spec.decision.date)
        taking.problems += problems
        taking.public += [PublicPoint(label, file, point) for label, file, point in read]
        return
    several = len(ref_files.files) > 1
    for file in ref_files.files:
        path = collector.result.sources[file.pack_path]
        try:
            parsed = read_reference_points(path, record=file.as_read(), name=in_spec(file))
        except InputError as exc:
            problem = f"{ref.path}: cannot read: {exc.message}"
            taking.problems.append(FileProblem(problem, file))
            continue
        collector.annotate(
            file.pack_path,
            fmt=parsed.format_id,
            tool=parsed.references[0].source_tool,
            tool_version=parsed.references[0].tool_version,
            warnings=parsed.warnings,
            plugin=parsed.plugin,
        )
        base = in_spec(file) if several else ref.path
        for point in parsed.references:
            label = base if len(parsed.references) == 1 else f"{base}#{point.index}"
            taking.public.append(PublicPoint(label, collector.result.files[file.pack_path], point))
