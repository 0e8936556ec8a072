"""MLPerf references as the intake takes them: each cited tree imported once per build, the
cited result picked (or the near keys named), and its files recorded in the pack, each read once
into the build's private copy. The analysis turns what is taken into its views
(``analyze/references.py``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..mlperf.importer import import_path
from ..mlperf.models import ImportReport, MlperfResult
from ..mlperf.query import load_results
from ..mlperf.training_import import TrainingResult, load_training
from ..spec.models import Candidate, MlperfRef
from ..store import Store
from .collect import Collector, as_cited, scan_tree
from .records import FileProblem, InputFile


@dataclass(frozen=True)
class CitedResult:
    """An MLPerf result a candidate cites, with the files of it that the pack holds."""

    ref: MlperfRef
    result: MlperfResult
    files: tuple[InputFile, ...]


@dataclass(frozen=True)
class CitedTraining:
    """An MLPerf Training result a candidate cites (a situational reference), with its files."""

    ref: MlperfRef
    result: TrainingResult
    files: tuple[InputFile, ...]


@dataclass
class MlperfTaken:
    """What one candidate's MLPerf references gave: results, training results, problems."""

    results: list[CitedResult] = field(default_factory=list)
    training: list[CitedTraining] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)


class MlperfImports:
    """Each cited MLPerf tree imported once per build, shared by every candidate and check;
    a tree holding a link out of the allowed folders is refused, naming the link. The store
    names the tree's files by their pack paths (``Collector.pack_name``)."""

    def __init__(self, store: Store, collector: Collector) -> None:
        self.store = store
        self.collector = collector
        self._done: dict[tuple[Path, str | None], ImportReport | InputError] = {}
        # Per cited tree: the result keys the spec names there, or None where a reference
        # names no key (then the whole tree is read). Only those results are parsed.
        self.cited: dict[tuple[Path, str | None], set[str] | None] = {}
        loaded = collector.loaded
        for candidate in loaded.spec.candidates:
            for ref in candidate.evidence.mlperf:
                tree = (loaded.resolve(ref.path), ref.round)
                keys = self.cited.get(tree, set())
                if keys is None or ref.result is None:
                    self.cited[tree] = None
                else:
                    self.cited[tree] = {*keys, ref.result}

    def __call__(self, path: Path, round: str | None) -> ImportReport:
        """The import of ``path``'s cited results (all of them where a reference names no key)
        into the build's store. Each file is read once, into the build's private copy: the
        bytes hashed, parsed and packed are the same."""
        key = (path, round)
        if key not in self._done:
            try:
                self._done[key] = self._import(path, round)
            except InputError as exc:
                self._done[key] = exc
        done = self._done[key]
        if isinstance(done, InputError):
            raise done
        return done

    def everything(self, path: Path, round: str | None) -> tuple[ImportReport, list[MlperfResult]]:
        """Every result of ``path``, imported into a throwaway store: only to say which keys
        are there when a cited one is not (the build's store holds only what the pack holds)."""
        with Store() as scratch:
            report = import_path(scratch, path, round=round, name=self.collector.pack_name)
            return report, load_results(scratch, sorted({*report.imported, *report.unchanged}))

    def _read(self, path: Path) -> tuple[Path, str, int]:
        snap = self.collector.snapshots.take(path)
        return snap.copy, snap.sha256, snap.size_bytes

    def _import(self, path: Path, round: str | None) -> ImportReport:
        if path.is_dir():
            found = scan_tree(path, self.collector.allowed_roots())
            if found.links_out:
                raise InputError(
                    "symbolic link(s) out of the spec's folder are not followed: "
                    + "; ".join(found.links_out)
                )
            if found.not_regular:
                raise InputError(
                    "not a regular file (a FIFO, socket or device is not evidence): "
                    + "; ".join(found.not_regular)
                )
        self.collector.pack_path(path)  # an allowed outside tree gets its inputs/external/<n>
        return import_path(
            self.store,
            path,
            round=round,
            only_keys=self.cited.get((path, round)),
            name=self.collector.pack_name,
            read=self._read,
        )


def take_mlperf(
    imports: MlperfImports, candidate: Candidate, ref: MlperfRef, taken: MlperfTaken
) -> None:
    """One MLPerf reference of a candidate: its tree imported (once per build), the cited
    result picked and its files recorded into ``taken``; problems become PROV-FILES findings."""
    store, collector = imports.store, imports.collector
    path = collector.loaded.resolve(ref.path)
    taken.problems += collector.check_pin(ref)
    try:
        report = imports(path, ref.round)
    except InputError as exc:
        taken.problems.append(FileProblem(f"{ref.path}: {as_cited(exc, path, ref.path)}"))
        return
    keys = sorted({*report.imported, *report.unchanged})
    curves = [k for k in keys if k.startswith("endpoints/")]
    if curves and (len(curves) == len(keys) or (ref.result or "").startswith("endpoints/")):
        taken.problems.append(
            FileProblem(
                f"{ref.path}: holds MLPerf Endpoints curve(s) ({', '.join(curves[:2])}"
                f"{', ...' if len(curves) > 2 else ''}): cite the folder under "
                "evidence.references, where each point is read as a public result measured "
                "elsewhere"
            )
        )
        return
    if ref.result is not None and ref.result.startswith("training/"):
        _training(store, collector, candidate, ref, taken)
        return
    results = load_results(store, keys)
    if ref.result is not None:
        chosen = [r for r in results if r.key == ref.result]
        if not chosen:
            # Only the cited results were read: read the whole tree to say what is there.
            report, results = imports.everything(path, ref.round)
            rejected = [
                r
                for r in report.rejected
                if ref.result.endswith(r.location.rstrip("/").split("/")[-1])
            ]
            why = f"; rejected: {rejected[0].reason}" if rejected else ""
            close = difflib.get_close_matches(ref.result, [r.key for r in results], n=2)
            if close and not rejected:
                why = f"; did you mean {' or '.join(repr(k) for k in close)}?"
            taken.problems.append(
                FileProblem(
                    f"{ref.path}: no MLPerf result {ref.result!r} (found {len(results)}){why}"
                )
            )
            return
    elif len(results) == 1:
        chosen = results
    else:
        taken.problems.append(
            FileProblem(f"{ref.path} holds {len(results)} MLPerf results: name one with `result:`")
        )
        return
    result = chosen[0]
    collector.progress.count("results imported")
    sources = sorted(result.sources, key=lambda s: (s.role != "detail", s.path))
    # The import read each file into the build's private copy: the pack takes that same copy.
    files = [
        collector.add_file(
            collector.source_of(s.path),
            s.path,
            role="mlperf",
            spec_path=ref.path,
            candidate=candidate.id,
            fmt=f"mlperf-{s.role}",
            tool="mlperf-loadgen" if s.role in ("detail", "summary") else None,
            tool_version=result.loadgen_version if s.role in ("detail", "summary") else None,
        )
        for s in sources
    ]
    changed = [s.path for s, f in zip(sources, files, strict=True) if f.sha256 != s.sha256]
    if changed:
        taken.problems.append(
            FileProblem(f"{ref.path}: read twice with different bytes: {changed}")
        )
        return
    taken.results.append(CitedResult(ref, result, tuple(files)))


def _training(
    store: Store, collector: Collector, candidate: Candidate, ref: MlperfRef, taken: MlperfTaken
) -> None:
    """A cited MLPerf Training result: a situational reference, its files packed."""
    found = load_training(store, [ref.result or ""])
    if not found:
        taken.problems.append(FileProblem(f"{ref.path}: no MLPerf Training result {ref.result!r}"))
        return
    result = found[0]
    files = tuple(
        collector.add_file(
            collector.source_of(s.path),
            s.path,
            role="mlperf",
            spec_path=ref.path,
            candidate=candidate.id,
            fmt=f"mlperf-training-{s.role}",
            tool="mlperf-training",
        )
        for s in sorted(result.sources, key=lambda s: s.path)
    )
    taken.training.append(CitedTraining(ref, result, files))
