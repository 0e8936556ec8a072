"""Turn one result's files into an MlperfResult: parse, resolve names, normalise, re-check.

Every problem that makes a result unusable raises ``InputError`` naming ``file:line``; the
importer records it as a rejection and goes on with the other results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import InputError
from ..provenance import sha256_file
from ._files import read_json
from .accuracy import read_accuracy, read_precision, read_test06
from .benchmarks import (
    BENCHMARKS,
    SAMPLE_HEADLINE,
    ResolvedBenchmark,
    benchmark_from_run_folder,
    out_of_scope_benchmark,
    resolve_benchmark,
    resolve_scenario,
)
from .checks import apply_rules
from .loadgen_log import LoadgenLog, sample_headline
from .loadgen_run import parse_run
from .models import MlperfResult, SourceFile
from .system import SystemInfo, read_system
from .tree import ResultFiles

Reader = Callable[[Path], tuple[Path, str, int]]
"""``read(path) -> (where to read it, sha256, size)``: the file's bytes taken once. A build
reads each file into a private copy and parses that copy (the bytes it hashed and packs); a
standalone import reads the file in place (``read_in_place``)."""


def read_in_place(path: Path) -> tuple[Path, str, int]:
    """The file itself, its sha256 and size."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    return path, sha256_file(path), size


class NotAPerformanceRun(InputError):
    """An accuracy-mode LoadGen run: nothing to import, but nothing wrong either."""


class OutOfScope(NotAPerformanceRun):
    """A result of a non-LLM benchmark (resnet, yolo, ...): skipped with its reason."""


@dataclass
class ImportContext:
    """What one import reads once and shares between results: name mappings, file digests,
    system descriptions (one system has a result per benchmark and scenario).

    Open-division folder names map to the benchmark they answer through
    ``model_mapping.json`` in the submitter folder (the checker's mechanism), else the round's
    official table ``summary_results.json`` at the tree root (its ``Model`` per ``Location``).
    """

    read: Reader = read_in_place
    _mappings: dict[Path, dict[str, str]] = field(default_factory=dict)
    _tables: dict[Path, dict[str, str]] = field(default_factory=dict)
    _taken: dict[Path, tuple[Path, str, int]] = field(default_factory=dict)
    _systems: dict[Path, SystemInfo] = field(default_factory=dict)

    def private(self, path: Path) -> Path:
        """Where to parse ``path`` from: the bytes ``source`` hashes, taken once per import."""
        if path not in self._taken:
            self._taken[path] = self.read(path)
        return self._taken[path][0]

    def private_or_none(self, path: Path | None) -> Path | None:
        """``private`` of a file that may be absent."""
        return None if path is None else self.private(path)

    def source(self, role: str, path: Path) -> SourceFile:
        """A file's digest and size, from the one read its parse used."""
        self.private(path)
        _, digest, size = self._taken[path]
        return SourceFile(role=role, path=str(path), sha256=digest, size_bytes=size)

    def system(self, path: Path) -> SystemInfo:
        """A system description, read and normalised once per import (named by ``path``)."""
        if path not in self._systems:
            read = read_system(self.private(path), system_id="")
            self._systems[path] = read.model_copy(update={"path": str(path)})
        return self._systems[path]

    def resolve(self, files: ResultFiles) -> tuple[ResolvedBenchmark, Path | None] | None:
        """The benchmark a result folder answers, and the mapping file that said so."""
        found = resolve_benchmark(files.benchmark_dir)
        if found is not None or files.submitter_dir is None:
            return (found, None) if found else None
        mapping_path = files.submitter_dir / "model_mapping.json"
        mapped = self._load_mapping(mapping_path).get(files.benchmark_dir)
        if mapped and (found := resolve_benchmark(mapped)):
            return found, mapping_path
        table_path = self._table_path(files.submitter_dir, files.division)
        model = self._load_table(table_path).get(files.location)
        if model and (found := resolve_benchmark(model)):
            return found, table_path
        return None

    def model_of(self, files: ResultFiles) -> str:
        """The benchmark a folder answers, as named by model_mapping.json, the official table or
        the folder itself (whether or not it is an LLM benchmark)."""
        if files.submitter_dir is None:
            return files.benchmark_dir
        mapping = self._load_mapping(files.submitter_dir / "model_mapping.json")
        table = self._load_table(self._table_path(files.submitter_dir, files.division))
        return mapping.get(files.benchmark_dir) or table.get(files.location) or files.benchmark_dir

    @staticmethod
    def _table_path(submitter_dir: Path, division: str | None) -> Path:
        root = submitter_dir.parent.parent if division else submitter_dir.parent
        return root / "summary_results.json"

    def _load_mapping(self, path: Path) -> dict[str, str]:
        if path not in self._mappings:
            data = read_json(self.private(path)) if path.is_file() else {}
            self._mappings[path] = (
                {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
            )
        return self._mappings[path]

    def _load_table(self, path: Path) -> dict[str, str]:
        if path not in self._tables:
            data = read_json(self.private(path)) if path.is_file() else []
            rows = data if isinstance(data, list) else []
            self._tables[path] = {
                _table_location(str(r["Location"])): str(r["Model"])
                for r in rows
                if isinstance(r, dict) and "Location" in r and "Model" in r
            }
        return self._tables[path]


def _table_location(location: str) -> str:
    """v5.1 tables name the scenario folder; v6.0's write ``./...<scenario>/performance/run_1``."""
    text = location.removeprefix("./").rstrip("/")
    for suffix in ("/performance/run_1", "/performance"):
        text = text.removesuffix(suffix)
    return text


def build_result(
    files: ResultFiles,
    *,
    round_: str | None,
    benchmark: str | None,
    names: ImportContext,
) -> tuple[MlperfResult, SystemInfo | None]:
    """One result from its files; raises InputError (or NotAPerformanceRun) with file:line."""
    if files.detail is None and files.summary is None:
        raise InputError(
            f"{files.results_dir}: no performance/run_1/mlperf_log_detail.txt or "
            "mlperf_log_summary.txt (missing performance logs)"
        )
    resolved, mapped_by = _benchmark(files, benchmark, names)
    log = parse_run(names.private_or_none(files.detail), names.private_or_none(files.summary))
    if not log.is_performance_run:
        raise NotAPerformanceRun(
            f"{log.cite('effective_test_mode')}: an {log.test_mode} run has no performance result"
        )
    log.require_validity()
    assert log.validity is not None
    scenario = _scenario(files, log, resolved)
    notes: list[str] = []
    if resolved is not None and resolved.assumed_level:
        notes.append(f"accuracy level not in {files.benchmark_dir!r}: assumed {resolved.benchmark}")
    if mapped_by is not None:
        notes.append(f"benchmark {files.benchmark_dir!r} mapped by {mapped_by}")
    round_name, round_source = _round(files, log, round_)
    system = _system(files, names)
    division = files.division or (system.division if system else None)
    if system is not None:
        system = system.model_copy(update={"system_id": _system_id(files, round_name, division)})
    measurements = names.private_or_none(files.measurements)
    precision_raw = read_precision(measurements) if measurements else None
    precision = _precision(precision_raw, system)
    if files.in_tree and files.measurements is None:
        notes.append("no measurements JSON: precision from the software stack, if stated")
    accuracy = read_accuracy(names.private(files.accuracy)) if files.accuracy else None
    test06 = read_test06(names.private(files.test06)) if files.test06 else None
    checks = apply_rules(
        round_=round_name,
        benchmark=resolved.benchmark if resolved else None,
        scenario=scenario,
        division=division if files.in_tree else None,
        log=log,
        accuracy=accuracy,
        accuracy_expected=files.in_tree,
        test06=test06,
    )
    stack = system.stack if system else None
    headline = (log.headline_value, log.headline_unit)
    if resolved is not None and resolved.benchmark in SAMPLE_HEADLINE:
        headline = sample_headline(scenario, log.samples_per_s)
    result = MlperfResult(
        key=_key(files, round_name, division, scenario),
        round=round_name,
        round_source=round_source,
        division=division,
        submitter=files.submitter or (system.submitter if system else None),
        system=files.system,
        system_name=system.system_name if system else None,
        location=files.location,
        benchmark=_stored_benchmark(files, resolved),
        benchmark_dir=files.benchmark_dir,
        model_family=BENCHMARKS[resolved.benchmark] if resolved else None,
        scenario=scenario,  # type: ignore[arg-type]
        validity=log.validity,
        invalid_reasons=log.invalid_reasons,
        checks_ok=all(row.status != "fail" for row in checks),
        headline_value=headline[0],
        headline_unit=headline[1],
        tokens_per_s=log.tokens_per_s,
        tokens_inferred=log.tokens_inferred,
        samples_per_s=log.samples_per_s,
        ttft_p99_ms=log.ttft_p99_ms,
        tpot_p99_ms=log.tpot_p99_ms,
        latency_ms=log.latency_ms,
        ttft_ms=log.ttft_ms,
        tpot_ms=log.tpot_ms,
        target_qps=log.settings.target_qps,
        ttft_limit_ms=log.settings.ttft_latency_ms,
        tpot_limit_ms=log.settings.tpot_latency_ms,
        min_duration_ms=log.settings.min_duration_ms,
        query_count=log.query_count,
        loadgen_version=log.loadgen_version,
        test_datetime=log.test_datetime,
        log_source=log.source,
        seed_round=log.seed_round,
        accelerator=system.accelerator if system else None,
        accelerators_per_node=system.accelerators_per_node if system else None,
        nodes=system.nodes if system else None,
        accelerators_total=system.accelerators_total if system else None,
        precision=precision,
        precision_raw=precision_raw,
        runtime=stack.of_kind("runtime") if stack else (),
        platform=stack.of_kind("platform") if stack else (),
        stack_raw=stack.raw if stack else "",
        accuracy=accuracy.metrics if accuracy else {},
        accuracy_hash=accuracy.hash if accuracy else None,
        test06=test06.verdict if test06 else None,
        checks=checks,
        sources=_sources(files, mapped_by, names),
        notes=tuple(notes) + (system.notes if system else ()),
    )
    return result, system


def _benchmark(
    files: ResultFiles, benchmark: str | None, names: ImportContext
) -> tuple[ResolvedBenchmark | None, Path | None]:
    if not files.in_tree:
        # a team's own LoadGen folder: --benchmark, else the folder name, else unknown
        if benchmark is not None:
            found = resolve_benchmark(benchmark)
            if found is None:
                raise InputError(f"unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}")
            return found, None
        return benchmark_from_run_folder(files.benchmark_dir), None
    resolved = names.resolve(files)
    if resolved is None:
        model = names.model_of(files)
        official = out_of_scope_benchmark(model)
        if official is not None:
            same = official == model.strip().lower()
            named = "" if same else f" (the checker reads it as {official})"
            raise OutOfScope(
                f"{files.results_dir}: {model!r}{named} is not an LLM benchmark: out of scope, "
                "skipped"
            )
        raise InputError(
            f"{files.results_dir}: unknown benchmark {files.benchmark_dir!r} (LLM benchmarks: "
            f"{', '.join(BENCHMARKS)}; an open-division name needs model_mapping.json in "
            f"{files.submitter_dir} or the round's summary_results.json)"
        )
    return resolved


def _stored_benchmark(files: ResultFiles, resolved: ResolvedBenchmark | None) -> str | None:
    """The benchmark a result is stored (and listed) under; its rules are ``resolved``'s.

    v5.0 filed Interactive runs in benchmark folders (``llama2-70b-interactive-99``) and its
    checker required both Server and Offline there. The Server run is the Interactive result of
    ``llama2-70b-99``. The Offline run is not the system's Offline result (that is
    ``llama2-70b-99/Offline``): the official table lists it under the model
    ``llama2-70b-interactive-99``, so it is stored under that name (key: its folder,
    ``.../llama2-70b-interactive-99/Offline``), never as a second ``llama2-70b-99`` Offline
    result; the rules it is held to are ``llama2-70b-99``'s (the checker's are the same).
    """
    if resolved is None:
        return None
    folder = resolve_scenario(files.scenario_dir)
    if files.in_tree and resolved.interactive and folder not in ("Server", "Interactive"):
        return files.benchmark_dir.strip().lower()
    return resolved.benchmark


def _scenario(files: ResultFiles, log: LoadgenLog, resolved: ResolvedBenchmark | None) -> str:
    """The scenario: the folder's (Interactive is Server in the log), checked against the log."""
    logged = log.scenario
    if logged is None:
        raise InputError(f"{log.cite('effective_scenario')}: no scenario in the log")
    if not files.in_tree:
        interactive = resolved is not None and resolved.interactive
        return "Interactive" if interactive and logged == "Server" else logged
    folder = resolve_scenario(files.scenario_dir) or ""
    if resolved is not None and resolved.interactive and folder == "Server":
        folder = "Interactive"  # v5.0: llama2-70b-interactive-99/Server
    expected_log = "Server" if folder == "Interactive" else folder
    if logged != expected_log:
        raise InputError(
            f"{log.cite('effective_scenario')}: the log ran {logged} but the result folder "
            f"{files.results_dir} says {files.scenario_dir}"
        )
    return folder


def _system(files: ResultFiles, names: ImportContext) -> SystemInfo | None:
    if not files.in_tree:
        return None
    if files.system_json is None:
        assert files.submitter_dir is not None
        raise InputError(
            f"{files.submitter_dir / 'systems' / (str(files.system) + '.json')}: missing "
            "(every result needs its system description)"
        )
    return names.system(files.system_json)


def _system_id(files: ResultFiles, round_: str | None, division: str | None) -> str:
    """Systems share the key's prefix: ``<round>/<division>/<submitter>/<system>``."""
    parts = (round_ or "no-round", division or "no-division", str(files.submitter))
    return "/".join((*parts, str(files.system)))


RoundSource = Literal["argument", "folder", "seeds"]


def _round(
    files: ResultFiles, log: LoadgenLog, round_: str | None
) -> tuple[str | None, RoundSource | None]:
    if round_ is not None:
        return round_, "argument"
    if not files.in_tree:
        return None, None  # a team's own run: only the round the user names
    if files.round_dir is not None:
        return files.round_dir, "folder"
    if log.seed_round is not None:
        return log.seed_round, "seeds"
    return None, None


def _precision(raw: str | None, system: SystemInfo | None) -> str | None:
    if raw is not None and raw.strip().lower() not in ("", "unset", "n/a", "none"):
        return raw.strip().lower()
    return system.stack.precision_hint if system else None


def _key(files: ResultFiles, round_: str | None, division: str | None, scenario: str) -> str:
    if not files.in_tree:
        return f"loadgen/{files.benchmark_dir}"
    scenario_part = resolve_scenario(files.scenario_dir) or scenario
    return "/".join(
        (
            round_ or "no-round",
            division or "no-division",
            str(files.submitter),
            str(files.system),
            files.benchmark_dir,
            scenario_part,
        )
    )


def _sources(
    files: ResultFiles, mapped_by: Path | None, context: ImportContext
) -> tuple[SourceFile, ...]:
    roles = (
        ("detail", files.detail),
        ("summary", files.summary),
        ("system", files.system_json),
        ("measurements", files.measurements),
        ("user_conf", files.user_conf),
        ("accuracy", files.accuracy),
        ("test06", files.test06),
        ("benchmark_mapping", mapped_by),
    )
    return tuple(context.source(role, path) for role, path in roles if path is not None)
