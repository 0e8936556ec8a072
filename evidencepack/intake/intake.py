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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import InputError
from ..readers.base import ParsedInput
from ..readers.models import ReferencePoint
from ..readers.reference_points import read_reference_points
from ..readers.registry import format_by_id, read_input, stage_small_runs
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, EvidenceRef
from ..staging.context import ReadContext
from ..staging.stage import shared_staging
from ..store import Store
from .collect import Collector, input_limit
from .dataset_items import DatasetItems, read_dataset_items
from .endpoints_refs import endpoints_curves, read_endpoints
from .load import load_input, load_inputs
from .mlperf_refs import CitedResult, CitedTraining, MlperfImports, MlperfTaken, take_mlperf
from .records import FileProblem, InputFile, in_spec
from .run_folders import (
    LOADGEN_DETAIL,
    MEASURE_REQUESTS,
    FolderRows,
    beside_log,
    check_loadgen_summaries,
    folder_rows,
    stage_beside,
)

BATCH_FILES = 256
"""Run references read and stored together at most (``_read_together``)."""
BATCH_FILE_BYTES = 256 * 1024
"""A cited file this small is read with others: its statements cost more than its rows."""
BATCH_BYTES = 16 << 20
"""The bytes of one such batch at most."""


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
            together = _together(loaded, refs[at : at + BATCH_FILES])
            if len(together) > 1:  # read and stored together: a few statements for them all
                _read_together(loaded, store, collector, taking, together)
                at += len(together)
                continue
            ref = refs[at]
            at += 1
            start = len(taking.cited)  # the files this reference adds are cited after it
            logs = [file for _, file in _read_ref(loaded, store, collector, taking, ref, "runs")]
            taking.runs += [(ref, log) for log in logs]
            added = [file for _, _, file in taking.cited[start:]]
            folder = beside_log(loaded.resolve(ref.path).is_dir(), logs, added)
            taking.beside.update(folder_rows(collector, ref, folder))
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
    targets = _targets(source, added)
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
        check_loadgen_summaries(store, collector, candidate, [added])
    return out


def _targets(source: Path, added: list[InputFile]) -> list[InputFile]:
    """The files of a reference that are read: a cited file, or a folder's LoadGen log."""
    targets = [f for f in added if source.is_file() or Path(f.pack_path).name == LOADGEN_DETAIL]
    if not targets:
        # A measure run stopped before LoadGen's verdict holds only what the client measured.
        targets = [f for f in added if Path(f.pack_path).name == MEASURE_REQUESTS] or added
    return targets


def _together(loaded: LoadedSpec, refs: Sequence[EvidenceRef]) -> list[EvidenceRef]:
    """The leading references of ``refs`` that are read together: each one small regular file
    (``BATCH_BYTES`` in all at most), or each a folder."""
    out: list[EvidenceRef] = []
    total = 0
    folders = None
    for ref in refs:
        try:
            source = loaded.resolve(ref.path)
            size = source.stat().st_size if source.is_file() else None
            folder = size is None and source.is_dir()
        except OSError:
            break
        if folders is None:
            folders = folder
        if folder != folders:
            break
        if not folder and (size is None or size > BATCH_FILE_BYTES or total + size > BATCH_BYTES):
            break
        out.append(ref)
        total += size or 0
    return out


_Took = tuple[EvidenceRef, list[FileProblem], list[InputFile]]
"""A reference read together with others: its problems so far and its files."""


def _read_together(
    loaded: LoadedSpec,
    store: Store,
    collector: Collector,
    taking: _Taking,
    refs: list[EvidenceRef],
) -> None:
    """Consecutive run references (each one small file, or each a folder), taken as
    ``_read_ref`` takes each in turn, and a folder's rows as ``folder_rows`` reads them (the
    same files, runs, rows and problems, in the same order), with the files' rows staged
    together (``stage_small_runs``, ``stage_beside``) and their runs stored together when they
    can be (``load_inputs``); else each file is stored alone."""
    candidate = taking.candidate
    took: list[_Took] = []
    for ref in refs:
        ref_files = collector.add_ref(ref, "runs", candidate.id)
        taking.file_warnings += ref_files.hard_links + ref_files.over_default
        taking.cited += [("runs", ref.path, f) for f in ref_files.files]
        took.append((ref, list(ref_files.problems), ref_files.files))
    sources = [loaded.resolve(ref.path) for ref in refs]
    folders = sources[0].is_dir()
    targets = [_targets(source, files) for source, (_, _, files) in zip(sources, took, strict=True)]
    copies = {
        collector.result.sources[f.pack_path]: collector.shown(
            collector.result.sources[f.pack_path]
        )
        for files in targets
        for f in files
    }
    spec_context = read_context(loaded)
    batched = ReadContext(
        spec_context.empty_output_valid,
        {} if folders else stage_small_runs(copies, spec_context),
    )
    reads: list[tuple[int, InputFile, ParsedInput]] = []
    for number, ((ref, problems, _), files) in enumerate(zip(took, targets, strict=True)):
        for target in files:
            copy = collector.result.sources[target.pack_path]
            read = _read_one(loaded, collector, ref, target, copies[copy], batched)
            if isinstance(read, FileProblem):
                problems.append(read)
            else:
                reads.append((number, target, read))
    stored = _store_together(store, collector, took, reads, candidate.id)
    if folders:
        check_loadgen_summaries(store, collector, candidate, [files for _, _, files in took])
    beside = []
    for (ref, problems, files), logs in zip(took, stored, strict=True):
        taking.problems += problems
        taking.runs += [(ref, file) for file in logs]
        beside.append(beside_log(folders, logs, files))
    context = stage_beside(collector, [b for b in beside if b is not None])
    for (ref, _, _), folder in zip(took, beside, strict=True):
        taking.beside.update(folder_rows(collector, ref, folder, context))


def _store_together(
    store: Store,
    collector: Collector,
    took: list[_Took],
    reads: list[tuple[int, InputFile, ParsedInput]],
    candidate: str,
) -> list[list[InputFile]]:
    """The files read (``reads``: the place of their reference in ``took``, the file, what
    was read) stored in the order read, as many together as ``load_inputs`` takes; each
    reference's files stored, and its problems added to its list."""
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
    return stored


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
