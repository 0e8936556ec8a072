"""DDL of the MLPerf tables, and the one bulk path that fills them (NDJSON through read_json).

Tables (every query that returns rows orders them; keys are described in
``evidencepack.mlperf.models``):

``mlperf_results``: one row per result, PRIMARY KEY ``key``. Identity (``round``,
``round_source`` argument/folder/seeds, ``division``, ``submitter``, ``system``, ``system_name``,
``location`` = results folder relative to the tree root, ``benchmark`` canonical,
``benchmark_dir`` as on disk, ``model_family``, ``scenario`` Offline/Server/Interactive/
SingleStream); LoadGen's verdict (``validity``, ``invalid_reasons``) and ours (``checks_ok``:
no failed row in ``mlperf_checks``); metrics (``headline_value`` + ``headline_unit``,
``tokens_per_s``, ``tokens_inferred``, ``samples_per_s``, ``ttft_p99_ms``, ``tpot_p99_ms``,
``latency_p99_ms``, ``target_qps``, ``ttft_limit_ms``/``tpot_limit_ms`` as LoadGen ran them,
``min_duration_ms``, ``query_count``); provenance (``loadgen_version``, ``test_datetime``,
``log_source`` detail/summary, ``seed_round``); hardware and stack (``system_id``,
``accelerator``, ``accelerators_per_node``, ``nodes``, ``accelerators_total``, ``precision``
normalised, ``precision_raw``, ``runtime``/``runtime_version`` = primary runtime,
``stack_raw``); ``accuracy`` (JSON metrics), ``accuracy_hash``, ``test06`` pass/fail;
``sources_sha256`` (digest over the result's files: re-importing them adds nothing),
``record`` (the whole MlperfResult as JSON, what ``load_results`` returns); power (``power_source``
measured/table, ``power_watts`` average system watts, ``power_metric`` + ``power_unit`` the
official figure, W or mJ per query, ``joules_per_token``) and ``design_power_watts``.

``mlperf_systems``: one row per system description, PRIMARY KEY ``system_id``
(``<round>/<division>/<submitter>/<system>``), with ``path``, ``sha256``, the normalised fields
(``accelerator_types``: each kind of accelerator with its count per node; ``design_power_watts``),
``stack_raw``, ``notes`` (what could not be read) and ``raw`` JSON.

``mlperf_stack_components``: (``system_id``, ``position``) -> ``kind`` runtime/platform/library/
driver, ``name``, ``version``, ``field`` (framework/other_software_stack), ``text`` as written.

``mlperf_checks``: (``key``, ``position``) -> ``rule``, ``round``, ``expected``, ``actual``,
``status`` pass/fail/skip, ``source`` (``file:line``).

``mlperf_result_files``: (``key``, ``role``) -> ``path``, ``sha256``, ``size_bytes``; every file
is also in ``files``.

``mlperf_rejections``: (``location``, ``reason``) -> ``problems`` (``file:line: ...``).

``mlperf_training_results``: one row per MLPerf Training result, PRIMARY KEY ``key``
(``training/<round>/<division>/<submitter>/<system>/<benchmark>``): the reference ``model``,
``dataset``, ``quality_metric`` and ``quality_target``, ``time_to_train_min`` (the olympic
average ``olympic_min`` times ``scaling_factor``), ``runs_total``/``runs_used``, the system's
``accelerator``/``accelerators_total``, ``checks_ok`` (its check rows are in ``mlperf_checks``,
its files in ``mlperf_result_files``) and ``record`` (the whole TrainingResult).

``mlperf_training_runs``: (``key``, ``path``) -> each run's ``run_start_ms``/``run_stop_ms``,
``minutes``, ``status``, ``converged``, ``used`` by the score, ``last_eval``, ``target``,
``line`` (its ``run_stop``).

``mlperf_endpoints_curves``: one row per MLPerf Endpoints curve, PRIMARY KEY ``key``
(``endpoints/<layout>/<division>/<submission>/<system>/<model>``): ``layout`` v1.0/v0.7,
``model_name``, ``accelerator``/``accelerators_total``, ``points``, the provisioned
``power_watts`` and ``power_tier`` (declared/computed/mlc_estimated), ``checks_failed`` (rules
re-applied) and ``record`` (the whole EndpointsCurve with its points and checks).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

# table -> (column, DuckDB type); the order is the DDL's
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "mlperf_results": (
        ("key", "VARCHAR"),
        ("round", "VARCHAR"),
        ("round_source", "VARCHAR"),
        ("division", "VARCHAR"),
        ("submitter", "VARCHAR"),
        ("system", "VARCHAR"),
        ("system_name", "VARCHAR"),
        ("location", "VARCHAR"),
        ("benchmark", "VARCHAR"),
        ("benchmark_dir", "VARCHAR"),
        ("model_family", "VARCHAR"),
        ("scenario", "VARCHAR"),
        ("validity", "VARCHAR"),
        ("invalid_reasons", "VARCHAR[]"),
        ("checks_ok", "BOOLEAN"),
        ("headline_value", "DOUBLE"),
        ("headline_unit", "VARCHAR"),
        ("tokens_per_s", "DOUBLE"),
        ("tokens_inferred", "BOOLEAN"),
        ("samples_per_s", "DOUBLE"),
        ("ttft_p99_ms", "DOUBLE"),
        ("tpot_p99_ms", "DOUBLE"),
        ("latency_p99_ms", "DOUBLE"),
        ("target_qps", "DOUBLE"),
        ("ttft_limit_ms", "DOUBLE"),
        ("tpot_limit_ms", "DOUBLE"),
        ("min_duration_ms", "BIGINT"),
        ("query_count", "BIGINT"),
        ("loadgen_version", "VARCHAR"),
        ("test_datetime", "VARCHAR"),
        ("log_source", "VARCHAR"),
        ("seed_round", "VARCHAR"),
        ("system_id", "VARCHAR"),
        ("accelerator", "VARCHAR"),
        ("accelerators_per_node", "INTEGER"),
        ("nodes", "INTEGER"),
        ("accelerators_total", "INTEGER"),
        ("precision", "VARCHAR"),
        ("precision_raw", "VARCHAR"),
        ("runtime", "VARCHAR"),
        ("runtime_version", "VARCHAR"),
        ("stack_raw", "VARCHAR"),
        ("accuracy", "JSON"),
        ("accuracy_hash", "VARCHAR"),
        ("test06", "VARCHAR"),
        ("sources_sha256", "VARCHAR"),
        ("record", "JSON"),
        ("power_source", "VARCHAR"),
        ("power_watts", "DOUBLE"),
        ("power_metric", "DOUBLE"),
        ("power_unit", "VARCHAR"),
        ("joules_per_token", "DOUBLE"),
        ("design_power_watts", "DOUBLE"),
    ),
    "mlperf_systems": (
        ("system_id", "VARCHAR"),
        ("path", "VARCHAR"),
        ("sha256", "VARCHAR"),
        ("submitter", "VARCHAR"),
        ("division", "VARCHAR"),
        ("status", "VARCHAR"),
        ("system_name", "VARCHAR"),
        ("system_type", "VARCHAR"),
        ("accelerator", "VARCHAR"),
        ("accelerator_memory", "VARCHAR"),
        ("accelerators_per_node", "INTEGER"),
        ("nodes", "INTEGER"),
        ("accelerators_total", "INTEGER"),
        ("host_processor", "VARCHAR"),
        ("host_processors_per_node", "INTEGER"),
        ("operating_system", "VARCHAR"),
        ("design_power_watts", "DOUBLE"),
        ("accelerator_types", "JSON"),
        ("stack_raw", "VARCHAR"),
        ("notes", "VARCHAR[]"),
        ("raw", "JSON"),
    ),
    "mlperf_stack_components": (
        ("system_id", "VARCHAR"),
        ("position", "INTEGER"),
        ("kind", "VARCHAR"),
        ("name", "VARCHAR"),
        ("version", "VARCHAR"),
        ("field", "VARCHAR"),
        ("text", "VARCHAR"),
    ),
    "mlperf_checks": (
        ("key", "VARCHAR"),
        ("position", "INTEGER"),
        ("rule", "VARCHAR"),
        ("round", "VARCHAR"),
        ("expected", "VARCHAR"),
        ("actual", "VARCHAR"),
        ("status", "VARCHAR"),
        ("source", "VARCHAR"),
    ),
    "mlperf_result_files": (
        ("key", "VARCHAR"),
        ("role", "VARCHAR"),
        ("path", "VARCHAR"),
        ("sha256", "VARCHAR"),
        ("size_bytes", "BIGINT"),
    ),
    "mlperf_training_results": (
        ("key", "VARCHAR"),
        ("round", "VARCHAR"),
        ("division", "VARCHAR"),
        ("submitter", "VARCHAR"),
        ("system", "VARCHAR"),
        ("benchmark", "VARCHAR"),
        ("model", "VARCHAR"),
        ("dataset", "VARCHAR"),
        ("quality_metric", "VARCHAR"),
        ("quality_target", "DOUBLE"),
        ("time_to_train_min", "DOUBLE"),
        ("olympic_min", "DOUBLE"),
        ("scaling_factor", "DOUBLE"),
        ("runs_total", "INTEGER"),
        ("runs_used", "INTEGER"),
        ("accelerator", "VARCHAR"),
        ("accelerators_total", "INTEGER"),
        ("checks_ok", "BOOLEAN"),
        ("sources_sha256", "VARCHAR"),
        ("record", "JSON"),
    ),
    "mlperf_training_runs": (
        ("key", "VARCHAR"),
        ("path", "VARCHAR"),
        ("run_start_ms", "BIGINT"),
        ("run_stop_ms", "BIGINT"),
        ("minutes", "DOUBLE"),
        ("status", "VARCHAR"),
        ("converged", "BOOLEAN"),
        ("used", "BOOLEAN"),
        ("last_eval", "DOUBLE"),
        ("target", "DOUBLE"),
        ("line", "INTEGER"),
    ),
    "mlperf_endpoints_curves": (
        ("key", "VARCHAR"),
        ("layout", "VARCHAR"),
        ("division", "VARCHAR"),
        ("submission", "VARCHAR"),
        ("system", "VARCHAR"),
        ("model", "VARCHAR"),
        ("model_name", "VARCHAR"),
        ("accelerator", "VARCHAR"),
        ("accelerators_total", "INTEGER"),
        ("points", "INTEGER"),
        ("power_watts", "DOUBLE"),
        ("power_tier", "VARCHAR"),
        ("checks_failed", "INTEGER"),
        ("sources_sha256", "VARCHAR"),
        ("record", "JSON"),
    ),
    "mlperf_rejections": (
        ("location", "VARCHAR"),
        ("reason", "VARCHAR"),
        ("problems", "VARCHAR[]"),
    ),
}

_PRIMARY_KEYS = {
    "mlperf_results": ("key",),
    "mlperf_systems": ("system_id",),
    "mlperf_stack_components": ("system_id", "position"),
    "mlperf_checks": ("key", "position"),
    "mlperf_result_files": ("key", "role"),
    "mlperf_rejections": ("location", "reason"),
    "mlperf_training_results": ("key",),
    "mlperf_training_runs": ("key", "path"),
    "mlperf_endpoints_curves": ("key",),
}
_NOT_NULL = {
    "mlperf_results": {
        "location",
        "benchmark_dir",
        "scenario",
        "validity",
        "invalid_reasons",
        "checks_ok",
        "tokens_inferred",
        "log_source",
        "stack_raw",
        "sources_sha256",
        "record",
    },
    "mlperf_systems": {"path", "sha256", "stack_raw", "raw"},
    "mlperf_stack_components": {"kind", "name", "field", "text"},
    "mlperf_checks": {"rule", "expected", "actual", "status", "source"},
    "mlperf_result_files": {"path", "sha256", "size_bytes"},
    "mlperf_rejections": {"problems"},
    "mlperf_training_results": {"submitter", "system", "benchmark", "sources_sha256", "record"},
    "mlperf_training_runs": {"run_start_ms", "run_stop_ms", "minutes", "converged", "used"},
    "mlperf_endpoints_curves": {
        "layout",
        "submission",
        "system",
        "model",
        "sources_sha256",
        "record",
    },
}


def _ddl(table: str) -> str:
    columns = [
        f"{name} {kind}" + (" NOT NULL" if name in _NOT_NULL.get(table, ()) else "")
        for name, kind in TABLES[table]
    ]
    columns.append(f"PRIMARY KEY ({', '.join(_PRIMARY_KEYS[table])})")
    return f"CREATE TABLE IF NOT EXISTS {table} (\n    " + ",\n    ".join(columns) + "\n)"


DDL: tuple[str, ...] = tuple(_ddl(table) for table in TABLES)


def bulk_insert_sql(table: str) -> str:
    """``INSERT OR IGNORE ... SELECT FROM read_json(?)`` for one table; the file is a parameter.

    Only identifiers and types from ``TABLES`` (code constants) enter the SQL text; every value
    travels in the NDJSON file that DuckDB reads.
    """
    columns = ", ".join(f"'{name}': '{kind}'" for name, kind in TABLES[table])
    return (
        f"INSERT OR IGNORE INTO {table} BY NAME SELECT * FROM read_json(?, "
        f"format = 'newline_delimited', columns = {{{columns}}})"
    )


def write_ndjson(rows: Sequence[Mapping[str, Any]], folder: str | None = None) -> str:
    """Rows to a temporary NDJSON file (the caller deletes it); returns its path."""
    handle, path = tempfile.mkstemp(prefix="evidencepack-", suffix=".ndjson", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False, allow_nan=False))
            out.write("\n")
    return path
