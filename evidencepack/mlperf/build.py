"""Turn one result's files into an MlperfResult: parse, resolve names, normalise, re-check.

Every problem that makes a result unusable raises ``InputError`` naming ``file:line``; the
importer records it as a rejection and goes on with the other results.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..errors import InputError
from .accuracy import AccuracyResult, read_accuracy, read_precision, read_test06
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
from .context import ImportContext
from .endpoint_result import EndpointRun, read_endpoint_accuracy, read_endpoint_run
from .loadgen_log import LoadgenLog, sample_headline
from .loadgen_run import parse_run
from .models import MlperfResult, SourceFile
from .power import result_power
from .rounds import KNOWN_ROUNDS
from .system import SystemInfo, available_by, normalise_system
from .tree import ResultFiles


class NotAPerformanceRun(InputError):
    """An accuracy-mode LoadGen run: nothing to import, but nothing wrong either."""


class OutOfScope(NotAPerformanceRun):
    """A result of a non-LLM benchmark (resnet, yolo, ...): skipped with its reason."""


def build_result(
    files: ResultFiles,
    *,
    round_: str | None,
    benchmark: str | None,
    names: ImportContext,
) -> tuple[MlperfResult, SystemInfo | None]:
    """One result from its files; raises InputError (or NotAPerformanceRun) with file:line."""
    if files.detail is None and files.summary is None and files.endpoint_summary is None:
        raise InputError(
            "no performance/run_1/mlperf_log_detail.txt or mlperf_log_summary.txt, and no "
            "performance/result_summary.json (missing performance logs)",
            file=names.name(files.results_dir),
        )
    resolved, mapped_by = _benchmark(files, benchmark, names)
    endpoint = _endpoint_run(files, names)
    if endpoint is not None:
        log = endpoint.to_log(resolve_scenario(files.scenario_dir) or files.scenario_dir)
    else:
        log = parse_run(
            names.private_or_none(files.detail),
            names.private_or_none(files.summary),
            detail_name=names.name_or_none(files.detail),
            summary_name=names.name_or_none(files.summary),
        )
    if not log.is_performance_run:
        raise NotAPerformanceRun(
            f"{log.cite('effective_test_mode')}: an {log.test_mode} run has no performance result"
        )
    log.require_validity()
    assert log.validity is not None
    scenario = _scenario(files, log, resolved, names)
    notes: list[str] = []
    if resolved is not None and resolved.assumed_level:
        notes.append(f"accuracy level not in {files.benchmark_dir!r}: assumed {resolved.benchmark}")
    if mapped_by is not None:
        notes.append(f"benchmark {files.benchmark_dir!r} mapped by {names.name(mapped_by)}")
    round_name, round_source = _round(files, log, round_, names)
    system = _system(files, names)
    division = files.division or (system.division if system else None)
    if system is not None:
        system = system.model_copy(update={"system_id": _system_id(files, round_name, division)})
    precision_raw = (
        read_precision(names.private(files.measurements), name=names.name(files.measurements))
        if files.measurements
        else None
    )
    precision = _precision(precision_raw, system)
    if files.in_tree and files.measurements is None:
        notes.append("no measurements JSON: precision from the software stack, if stated")
    accuracy = _accuracy(files, names, endpoint)
    test06 = (
        read_test06(names.private(files.test06), name=names.name(files.test06))
        if files.test06
        else None
    )
    checks = apply_rules(
        round_=round_name,
        benchmark=resolved.benchmark if resolved else None,
        scenario=scenario,
        division=division if files.in_tree else None,
        log=log,
        accuracy=accuracy,
        accuracy_expected=files.in_tree,
        test06=test06,
        endpoint=endpoint,
    )
    power, power_rows, power_sources, design_watts = result_power(
        files,
        names,
        scenario=scenario,
        log=log,
        system_watts=system.design_power_watts if system else None,
    )
    checks = (*checks, *power_rows)
    stack = system.stack if system else None
    headline = (log.headline_value, log.headline_unit)
    table = names.table(files) if files.in_tree else None
    table_row = table.row(files.location, "performance") if table else None
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
        official_unit_label=table_row.unit if table_row else None,
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
        sources=(*_sources(files, mapped_by, names, system), *power_sources),
        notes=tuple(notes) + (system.notes if system else ()),
        power=power,
        design_power_watts=design_watts,
        accelerator_types=system.accelerator_types if system else (),
        availability=system.status if system else None,
        available_by=available_by(system) if system else None,
    )
    return result, system


def _endpoint_run(files: ResultFiles, names: ImportContext) -> EndpointRun | None:
    """The endpoint tool's result, where a result has it and no LoadGen logs."""
    if files.detail is not None or files.summary is not None or files.endpoint_summary is None:
        return None
    path = files.endpoint_summary
    return read_endpoint_run(names.private(path), named=names.name(path))


def _accuracy(
    files: ResultFiles, names: ImportContext, endpoint: EndpointRun | None
) -> AccuracyResult | None:
    """``accuracy.txt``, else the endpoint tool's ``accuracy_results.json`` (no line to cite)."""
    if files.accuracy is not None:
        return read_accuracy(names.private(files.accuracy), name=names.name(files.accuracy))
    if files.endpoint_accuracy is not None:
        name = names.name(files.endpoint_accuracy)
        metrics = read_endpoint_accuracy(names.private(files.endpoint_accuracy), named=name)
        return AccuracyResult(path=name, metrics=metrics, metrics_line=0)
    if endpoint is not None and endpoint.accuracy:  # the legacy results.json's inline scores
        return AccuracyResult(path=endpoint.path, metrics=endpoint.accuracy, metrics_line=0)
    return None


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
                f"{model!r}{named} is not an LLM benchmark: out of scope, skipped",
                file=names.name(files.results_dir),
            )
        assert files.submitter_dir is not None  # in a tree
        raise InputError(
            f"unknown benchmark {files.benchmark_dir!r} (LLM benchmarks: "
            f"{', '.join(BENCHMARKS)}; an open-division name needs model_mapping.json in "
            f"{names.name(files.submitter_dir)} or the round's summary_results.json)",
            file=names.name(files.results_dir),
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


def _scenario(
    files: ResultFiles, log: LoadgenLog, resolved: ResolvedBenchmark | None, names: ImportContext
) -> str:
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
            f"{names.name(files.results_dir)} says {files.scenario_dir}"
        )
    return folder


def _system(files: ResultFiles, names: ImportContext) -> SystemInfo | None:
    if not files.in_tree:
        return None
    if files.system_json is None:
        assert files.submitter_dir is not None
        missing = names.name(files.submitter_dir / "systems" / (str(files.system) + ".json"))
        table = names.table(files)
        row = table.row(files.location, "performance") if table else None
        if table is None or row is None or not row.system:
            raise InputError(f"{missing}: missing (every result needs its system description)")
        # an excerpt of a tree may lack the JSON; the official table's row describes the system
        found = normalise_system(row.system, path=table.path, system_id="")
        note = f"system described by the official table ({row.row}): {missing} is not in the tree"
        return found.model_copy(update={"notes": (*found.notes, note)})
    return names.system(files.system_json)


def _system_id(files: ResultFiles, round_: str | None, division: str | None) -> str:
    """Systems share the key's prefix: ``<round>/<division>/<submitter>/<system>``."""
    parts = (round_ or "no-round", division or "no-division", str(files.submitter))
    return "/".join((*parts, str(files.system)))


RoundSource = Literal["argument", "folder", "table", "seeds"]


def _round(
    files: ResultFiles, log: LoadgenLog, round_: str | None, names: ImportContext
) -> tuple[str | None, RoundSource | None]:
    """``--round``, the folder's name, the official table's ``version`` for this result, or
    the round its seeds identify (never LoadGen's built-in seeds: see ``rounds``)."""
    if round_ is not None:
        return round_, "argument"
    if not files.in_tree:
        return None, None  # a team's own run: only the round the user names
    if files.round_dir is not None:
        return files.round_dir, "folder"
    table = names.table(files)
    row = table.row(files.location, "performance") if table else None
    if row is not None and row.version in KNOWN_ROUNDS:
        return row.version, "table"
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
    files: ResultFiles, mapped_by: Path | None, context: ImportContext, system: SystemInfo | None
) -> tuple[SourceFile, ...]:
    described = system is not None and files.system_json is None
    roles = (
        ("detail", files.detail),
        ("summary", files.summary),
        ("system", files.system_json),
        ("measurements", files.measurements),
        ("user_conf", files.user_conf),
        ("accuracy", files.accuracy),
        ("test06", files.test06),
        ("endpoint_summary", files.endpoint_summary),
        ("endpoint_accuracy", files.endpoint_accuracy),
        ("benchmark_mapping", mapped_by),
        ("system", context.table_path(files) if described else None),
    )
    return tuple(context.source(role, path) for role, path in roles if path is not None)
