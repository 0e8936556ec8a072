"""Import MLPerf results into the evidence store: find, build, then insert in bulk, all or nothing.

``import_path(store, path)`` takes a results tree, one submission or a LoadGen output folder.
A bad result is rejected with its ``file:line`` reasons and never stops the others. Re-importing
the same files adds no rows; a known key arriving with different files is rejected.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..store import Store
from ..store.mlperf import bulk_insert_sql, write_ndjson
from .benchmarks import resolve_scenario
from .build import NotAPerformanceRun, build_result
from .context import ImportContext, Namer, Reader, read_in_place
from .endpoints_build import build_curve
from .endpoints_import import endpoints_row, partition_endpoints
from .endpoints_models import EndpointsCurve
from .endpoints_read import find_endpoints
from .models import ImportReport, MlperfResult, Rejection, SourceFile
from .rules import KNOWN_ROUNDS
from .system import SystemInfo
from .training_import import (
    NotAnLlmTraining,
    TrainingFiles,
    TrainingResult,
    build_training,
    find_training,
    training_row,
)
from .tree import ResultFiles, find_results

Progress = Callable[[int, int, str], None]
"""``progress(done, total, location)``, called after each result is read."""


def import_path(
    store: Store,
    path: Path,
    *,
    round: str | None = None,  # shadows the builtin: the public name the analysis stage calls
    benchmark: str | None = None,
    progress: Progress | None = None,
    only_keys: Collection[str] | None = None,
    name: Namer = str,
    read: Reader = read_in_place,
) -> ImportReport:
    """Read every result under ``path`` and store the good ones; report the rest.

    ``round`` names the round to check against (required for a team's own LoadGen run to be
    checked; for a tree it overrides the folder name). ``benchmark`` names the benchmark of a
    LoadGen folder whose name does not say it. ``only_keys`` (a spec's cited result keys) skips,
    before any of its logs is read, every result whose folder cannot be one of those keys.
    ``name`` is what every record and message calls a file or folder (paths, ``file:line``
    sources, reasons), handed to each parser with the file: a build names a tree's files by
    their place in the pack, not by this machine's path. ``read`` takes each file's bytes once
    (a build: into a private copy that is hashed, parsed and packed); by default files are read
    in place.
    """
    if round is not None and round not in KNOWN_ROUNDS:
        raise InputError(f"unknown MLPerf round {round!r}; known: {', '.join(KNOWN_ROUNDS)}")
    if not path.exists():
        raise InputError("no such file or folder", file=str(path))
    if not path.is_dir():
        raise InputError(
            "give a folder (a results tree, a submission or a LoadGen run)", file=str(path)
        )
    found = list(find_results(path))
    training_found = list(find_training(path))
    endpoints_found = list(find_endpoints(path))
    if not found and not training_found and not endpoints_found:
        raise InputError(
            "no MLPerf results here (no results/<system>/<benchmark>/<scenario> folders, no "
            "mlperf_log_detail.txt or mlperf_log_summary.txt, no Training "
            "results/<system>/<benchmark>/result_*.txt, and no Endpoints "
            "results/<system>/<model>/r<N>/point.yaml or pareto/<system>/<model>/points/)",
            file=str(path),
        )
    if only_keys is not None:
        found = [files for files in found if may_be_one_of(files, only_keys)]
        training_found = [t for t in training_found if _may_be_training(t, only_keys)]
        endpoints_found = [
            e for e in endpoints_found if any(k.startswith("endpoints/") for k in only_keys)
        ]
    context = ImportContext(read=read, name=name)
    built: list[tuple[MlperfResult, SystemInfo | None]] = []
    rejected: list[Rejection] = []
    skipped: list[Rejection] = []
    for done, files in enumerate(found, start=1):
        try:
            built.append(build_result(files, round_=round, benchmark=benchmark, names=context))
        except NotAPerformanceRun as exc:
            skipped.append(_rejection(name(files.results_dir), exc))
        except InputError as exc:
            rejected.append(_rejection(name(files.results_dir), exc))
        if progress is not None:
            progress(done, len(found), files.location)
    trained: list[TrainingResult] = []
    for folder in training_found:
        try:
            trained.append(build_training(folder, round_=round, names=context))
        except NotAnLlmTraining as exc:
            skipped.append(_rejection(name(folder.folder), exc))
        except InputError as exc:
            rejected.append(_rejection(name(folder.folder), exc))
    curves: list[EndpointsCurve] = []
    for curve_files in endpoints_found:
        try:
            curves.append(build_curve(curve_files, context))
        except InputError as exc:
            rejected.append(_rejection(name(curve_files.folder), exc))
    fresh, unchanged, conflicts = _partition(store, built)
    fresh_training, unchanged_training, conflicts_training = _partition_training(store, trained)
    fresh_curves, unchanged_curves, conflicts_curves = partition_endpoints(store, curves)
    rejected.extend(conflicts + conflicts_training + conflicts_curves)
    with store.transaction():
        _insert(store, fresh, rejected)
        _insert_training(store, fresh_training)
        _insert_endpoints(store, fresh_curves)
    return ImportReport(
        path=name(path),
        round=round,
        imported=tuple(
            sorted(
                [r.key for r, _ in fresh]
                + [t.key for t in fresh_training]
                + [c.key for c in fresh_curves]
            )
        ),
        unchanged=tuple(sorted(unchanged + unchanged_training + unchanged_curves)),
        rejected=tuple(rejected),
        skipped=tuple(skipped),
    )


def may_be_one_of(files: ResultFiles, keys: Collection[str]) -> bool:
    """Whether the result in ``files`` can have one of ``keys``, judged from its folders alone
    (a key ends ``submitter/system/benchmark/Scenario``; its round and division come from the
    logs, so they are not compared here)."""
    if not files.in_tree:
        return True
    scenario = resolve_scenario(files.scenario_dir)
    for key in keys:
        parts = key.split("/")
        if len(parts) < 4 or parts[-4:-1] != [files.submitter, files.system, files.benchmark_dir]:
            continue
        if scenario is None or parts[-1] == scenario:
            return True
    return False


def _may_be_training(files: TrainingFiles, keys: Collection[str]) -> bool:
    """Whether a training result can have one of ``keys`` (they end submitter/system/benchmark)."""
    tail = [files.submitter, files.system, files.benchmark]
    return any(k.startswith("training/") and k.split("/")[-3:] == tail for k in keys)


def _rejection(location: str, exc: InputError) -> Rejection:
    return Rejection(location=location, reason=exc.message, problems=exc.problems)


def fingerprint(result: MlperfResult | TrainingResult) -> str:
    """A digest over the result's files (role, path, sha256) and the round it was checked
    against: equal means the same import."""
    digest = hashlib.sha256(f"round\0{result.round}\n".encode())
    for source in sorted(result.sources, key=lambda s: (s.role, s.path)):
        digest.update(f"{source.role}\0{source.path}\0{source.sha256}\n".encode())
    return digest.hexdigest()


def _partition(
    store: Store, built: list[tuple[MlperfResult, SystemInfo | None]]
) -> tuple[list[tuple[MlperfResult, SystemInfo | None]], list[str], list[Rejection]]:
    known = {
        row["key"]: row["sources_sha256"]
        for row in store.rows("SELECT key, sources_sha256 FROM mlperf_results ORDER BY key")
    }
    fresh: list[tuple[MlperfResult, SystemInfo | None]] = []
    unchanged: list[str] = []
    conflicts: list[Rejection] = []
    seen: dict[str, str] = {}
    for result, system in built:
        mark = fingerprint(result)
        where = result.sources[0].path if result.sources else result.location
        if result.key in seen or (result.key in known and known[result.key] != mark):
            other = seen.get(result.key, "an earlier import")
            message = (
                f"{where}: result key {result.key} is already taken by {other} with other "
                "files or another round (import into a new store to replace it)"
            )
            conflicts.append(Rejection(location=where, reason=message, problems=(message,)))
        elif result.key in known:
            unchanged.append(result.key)
        else:
            seen[result.key] = where
            fresh.append((result, system))
    return fresh, unchanged, conflicts


def _insert(
    store: Store,
    fresh: list[tuple[MlperfResult, SystemInfo | None]],
    rejected: list[Rejection],
) -> None:
    results = [result for result, _ in fresh]
    # Each result dumped once: its row's columns, its record, its checks and sources come from
    # the one dump (two dumps per result and one per check and file before).
    records = [r.model_dump(mode="json") for r in results]
    systems = {s.system_id: s for _, s in fresh if s is not None}
    # path -> sha256 once: a search of every result's sources per system was O(systems x results)
    digests = {s.path: s.sha256 for r in results for s in r.sources}
    tables: dict[str, list[dict[str, Any]]] = {
        "mlperf_results": [
            _result_row(r, s, record) for (r, s), record in zip(fresh, records, strict=True)
        ],
        "mlperf_systems": [_system_row(s, digests) for s in systems.values()],
        "mlperf_stack_components": [
            {"system_id": s.system_id, "position": i, **c.model_dump()}
            for s in systems.values()
            for i, c in enumerate(s.stack.components)
        ],
        "mlperf_checks": [
            {"key": r["key"], "position": i, **c}
            for r in records
            for i, c in enumerate(r["checks"])
        ],
        "mlperf_result_files": [{"key": r["key"], **s} for r in records for s in r["sources"]],
        "mlperf_rejections": [
            {"location": x.location, "reason": x.reason, "problems": list(x.problems)}
            for x in rejected
        ],
    }
    for table, rows in tables.items():
        _bulk(store, bulk_insert_sql(table), rows)
    loadgen = ("detail", "summary")
    _insert_files(
        store,
        (
            (s, f"mlperf.{s.role}", "mlperf-loadgen", r.loadgen_version)
            if s.role in loadgen
            else (s, f"mlperf.{s.role}", None, None)
            for r in results
            for s in r.sources
        ),
    )


def _insert_files(
    store: Store, entries: Iterable[tuple[SourceFile, str, str | None, str | None]]
) -> None:
    """Every file read into ``files`` (source, role, tool, tool version), once per path."""
    rows: dict[tuple[str, str], dict[str, Any]] = {
        (s.sha256, s.path): {
            "sha256": s.sha256,
            "path": s.path,
            "size_bytes": s.size_bytes,
            "role": role,
            "tool": tool,
            "tool_version": version,
            "warnings": [],
        }
        for s, role, tool, version in entries
    }
    _bulk(store, _FILES_SQL, list(rows.values()))


def _partition_training(
    store: Store, built: list[TrainingResult]
) -> tuple[list[TrainingResult], list[str], list[Rejection]]:
    known = {
        row["key"]: row["sources_sha256"]
        for row in store.rows(
            "SELECT key, sources_sha256 FROM mlperf_training_results ORDER BY key"
        )
    }
    fresh: list[TrainingResult] = []
    unchanged: list[str] = []
    conflicts: list[Rejection] = []
    for result in built:
        if result.key in known and known[result.key] != fingerprint(result):
            message = (
                f"{result.sources[0].path}: training result key {result.key} is already taken "
                "by an earlier import with other files (import into a new store to replace it)"
            )
            conflicts.append(
                Rejection(location=result.location, reason=message, problems=(message,))
            )
        elif result.key in known:
            unchanged.append(result.key)
        else:
            fresh.append(result)
    return fresh, unchanged, conflicts


def _insert_training(store: Store, fresh: list[TrainingResult]) -> None:
    tables: dict[str, list[dict[str, Any]]] = {
        "mlperf_training_results": [training_row(t, fingerprint(t)) for t in fresh],
        "mlperf_training_runs": [
            {"key": t.key, **run.model_dump()} for t in fresh for run in t.runs
        ],
        "mlperf_checks": [
            {"key": t.key, "position": i, **c.model_dump()}
            for t in fresh
            for i, c in enumerate(t.checks)
        ],
        "mlperf_result_files": [{"key": t.key, **s.model_dump()} for t in fresh for s in t.sources],
    }
    for table, rows in tables.items():
        _bulk(store, bulk_insert_sql(table), rows)
    _insert_files(
        store,
        (
            (
                s,
                f"mlperf.training.{s.role}",
                "mlperf-logging" if s.role.startswith("run:") else None,
                None,
            )
            for t in fresh
            for s in t.sources
        ),
    )


def _insert_endpoints(store: Store, fresh: list[EndpointsCurve]) -> None:
    rows = [endpoints_row(c) for c in fresh]
    _bulk(store, bulk_insert_sql("mlperf_endpoints_curves"), rows)
    _bulk(
        store,
        bulk_insert_sql("mlperf_result_files"),
        [{"key": c.key, **s.model_dump()} for c in fresh for s in c.sources],
    )
    _insert_files(
        store,
        (
            (s, f"mlperf.endpoints.{s.role}", "mlperf-endpoints", None)
            for c in fresh
            for s in c.sources
        ),
    )


_FILES_SQL = (
    "INSERT OR IGNORE INTO files BY NAME SELECT * FROM read_json(?, "
    "format = 'newline_delimited', columns = {'sha256': 'VARCHAR', 'path': 'VARCHAR', "
    "'size_bytes': 'BIGINT', 'role': 'VARCHAR', 'tool': 'VARCHAR', 'tool_version': 'VARCHAR', "
    "'warnings': 'VARCHAR[]'})"
)


def _bulk(store: Store, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
    if not rows:
        return
    path = write_ndjson(rows)
    try:
        store.execute(sql, [path])
    finally:
        os.unlink(path)


_NOT_COLUMNS = frozenset(
    {
        "latency_ms",
        "ttft_ms",
        "tpot_ms",
        "runtime",
        "platform",
        "checks",
        "sources",
        "notes",
        "power",
        "accelerator_types",
        "official_unit_label",
        "availability",
        "available_by",
    }
)
"""Fields of a result kept only in its ``record`` JSON, not as columns of ``mlperf_results``."""


def _result_row(
    result: MlperfResult, system: SystemInfo | None, record: dict[str, Any]
) -> dict[str, Any]:
    """A result's ``mlperf_results`` row, from its JSON dump ``record``."""
    row = {k: v for k, v in record.items() if k not in _NOT_COLUMNS}
    primary = result.primary_runtime
    power = result.power
    row.update(
        invalid_reasons=list(result.invalid_reasons),
        latency_p99_ms=result.latency_ms.get("p99"),
        runtime=primary.name if primary else None,
        runtime_version=primary.version if primary else None,
        system_id=system.system_id if system else None,
        sources_sha256=fingerprint(result),
        record=record,
        power_source=power.source if power else None,
        power_watts=power.average_watts if power else None,
        power_metric=power.metric_value if power else None,
        power_unit=power.metric_unit if power else None,
        joules_per_token=power.joules_per_token if power else None,
    )
    return row


def _system_row(system: SystemInfo, digests: Mapping[str, str]) -> dict[str, Any]:
    sha = digests[system.path]
    row = system.model_dump(exclude={"stack", "raw_json", "notes"}, mode="json")
    row.update(
        sha256=sha,
        stack_raw=system.stack.raw,
        notes=list(system.notes),
        raw=json.loads(system.raw_json),
    )
    return row
