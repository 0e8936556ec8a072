"""Serving runs and score sets in the evidence store: the SQL that fills and reads the tables
whose DDL is ``store/runs.py``.

``load_runs`` / ``load_score_sets`` return the normalised models (each row's ``document``);
an lm-eval samples set is completed from the results set that lists the same task hash (task,
model identity, the tool's value and stderr).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core._models import StrictModel
from ..core.provenance import FileRecord
from ..readers.models import AggregateCheck, LatencyStats, RunFinding, ScoreSet, ServingRun
from ..store import Store

_RUN_COLUMNS = (
    "run_id, file_sha256, file_path, role, candidate, format_id, tool, tool_version, layout, "
    "label, timestamp, model_name, model_digest, precision, runtime_name, runtime_version, "
    "backend, load_kind, request_rate_per_s, arrival, concurrency, requests_sent, "
    "requests_completed, requests_failed, duration_s, request_throughput_per_s, "
    "output_token_throughput_per_s, total_token_throughput_per_s, goodput_per_s, "
    "input_tokens_mean, output_tokens_mean, per_request_rows, document"
)


_SET_COLUMNS = (
    "set_id, file_sha256, file_path, role, candidate, format_id, tool, tool_version, task, "
    "task_hash, scorer, metric, filter, direction, kind, value, stderr, n_items, n_passed, "
    "mean_item_score, model_name, model_digest, precision, runtime_name, runtime_version, "
    "dataset_name, dataset_version, dataset_digest, document"
)


class ScoreItem(StrictModel):
    """One scored item as stored (``passed`` is set only in binary sets)."""

    item_id: str
    score: float
    label: str | None = None
    passed: bool | None = None


def insert_run(store: Store, file: FileRecord, run: ServingRun) -> None:
    """One run, already carrying its role and candidate."""
    insert_runs(store, [(file, run)])


RUNS_PER_STATEMENT = 100
"""Rows of one multi-row ``INSERT`` (a statement costs more than a small file's rows)."""


def insert_runs(store: Store, runs: Sequence[tuple[FileRecord, ServingRun]]) -> None:
    """Runs (each with the file read and already carrying its role and candidate), with their
    latency, checks and findings: one statement per table for up to ``RUNS_PER_STATEMENT``."""
    for start in range(0, len(runs), RUNS_PER_STATEMENT):
        part = [run for _, run in runs[start : start + RUNS_PER_STATEMENT]]
        rows = [_run_row(file, run) for file, run in runs[start : start + RUNS_PER_STATEMENT]]
        store.insert_rows(f"INSERT INTO serving_runs ({_RUN_COLUMNS}) VALUES", rows)
        latency = [
            _latency_row(run.run_id, s)
            for run in part
            for s in (run.ttft, run.tpot, run.itl, run.e2e)
            if s
        ]
        store.insert_rows("INSERT INTO run_latency VALUES", latency)
        checks = [_check_row(run.run_id, check, None) for run in part for check in run.checks]
        store.insert_rows("INSERT INTO run_checks VALUES", checks, " ON CONFLICT DO NOTHING")
        findings = [
            (run.run_id, f.kind, f.severity, f.figure, f.detail)
            for run in part
            for f in run.findings
        ]
        store.insert_rows("INSERT INTO run_findings VALUES", findings)


def _run_row(file: FileRecord, run: ServingRun) -> list[Any]:
    who, load, tokens = run.identity, run.load, run.tokens
    return [
        run.run_id,
        file.sha256,
        file.path,
        run.role,
        run.candidate,
        run.format_id,
        run.tool,
        run.tool_version,
        run.layout,
        run.label,
        run.timestamp,
        who.model_name,
        who.model_digest,
        who.precision,
        who.runtime_name,
        who.runtime_version,
        run.backend,
        load.kind,
        load.request_rate_per_s,
        load.arrival,
        load.concurrency,
        run.requests_sent,
        run.requests_completed,
        run.requests_failed,
        run.duration_s,
        run.request_throughput_per_s,
        run.output_token_throughput_per_s,
        run.total_token_throughput_per_s,
        run.goodput_per_s,
        tokens.input_mean_tokens,
        tokens.output_mean_tokens,
        run.per_request_rows,
        run.model_dump_json(),
    ]


def insert_findings(store: Store, run_id: str, findings: Sequence[RunFinding]) -> None:
    """The findings of one run, as rows the PROV-DATA check reads."""
    rows = [(run_id, f.kind, f.severity, f.figure, f.detail) for f in findings]
    store.insert_rows("INSERT INTO run_findings VALUES", rows)


def replace_many_findings(
    store: Store, kind: str, by_run: Mapping[str, Sequence[RunFinding]]
) -> None:
    """Set one kind of the findings of many runs (by run id), in one transaction (a
    cross-check made again finds the same things)."""
    rows = [(r, f.kind, f.severity, f.figure, f.detail) for r, fs in by_run.items() for f in fs]
    with store.transaction():
        store.execute(
            "DELETE FROM run_findings WHERE list_contains(?::VARCHAR[], run_id) AND kind = ?",
            [list(by_run), kind],
        )
        store.insert_rows("INSERT INTO run_findings VALUES", rows)


def run_findings(store: Store, run_ids: Sequence[str]) -> dict[str, list[RunFinding]]:
    """Each run's findings as stored, in the order they were found (one query for all)."""
    rows = store.rows(
        "SELECT run_id, kind, severity, figure, detail FROM run_findings "
        "WHERE list_contains(?::VARCHAR[], run_id) ORDER BY rowid",
        [list(run_ids)],
    )
    out: dict[str, list[RunFinding]] = {run_id: [] for run_id in run_ids}
    for row in rows:
        out[row.pop("run_id")].append(RunFinding.model_validate(row))
    return out


def failed_checks(
    store: Store, run_ids: Sequence[str]
) -> dict[str, list[tuple[AggregateCheck, str | None]]]:
    """Each run's tool figures that disagree with its per-request rows beyond the tolerance,
    each with the run whose rows were used when they are in another file (one query for all)."""
    rows = store.rows(
        "SELECT run_id, metric, statistic, tool_value, recomputed_value, lower, upper, ok, "
        "against_run_id FROM run_checks WHERE list_contains(?::VARCHAR[], run_id) AND NOT ok "
        "ORDER BY run_id, metric, statistic",
        [list(run_ids)],
    )
    out: dict[str, list[tuple[AggregateCheck, str | None]]] = {run_id: [] for run_id in run_ids}
    for row in rows:
        run_id, against = row.pop("run_id"), row.pop("against_run_id")
        out[run_id].append((AggregateCheck.model_validate(row), against))
    return out


def companions(store: Store, run_ids: Sequence[str]) -> dict[str, list[str]]:
    """For each run, the runs cross-checked against its per-request rows (its own summary
    files), one query for all."""
    rows = store.rows(
        "SELECT DISTINCT against_run_id, run_id FROM run_checks "
        "WHERE list_contains(?::VARCHAR[], against_run_id) ORDER BY against_run_id, run_id",
        [list(run_ids)],
    )
    out: dict[str, list[str]] = {run_id: [] for run_id in run_ids}
    for row in rows:
        out[row["against_run_id"]].append(row["run_id"])
    return out


def insert_check(store: Store, run_id: str, check: AggregateCheck, against: str | None) -> None:
    """One check row; ``against`` names the run whose rows were used when it is another file."""
    rows = [_check_row(run_id, check, against)]
    store.insert_rows("INSERT INTO run_checks VALUES", rows, " ON CONFLICT DO NOTHING")


def _check_row(run_id: str, check: AggregateCheck, against: str | None) -> tuple[Any, ...]:
    return (
        run_id,
        check.metric,
        check.statistic,
        check.tool_value,
        check.recomputed_value,
        check.lower,
        check.upper,
        check.ok,
        against,
    )


def _latency_row(run_id: str, s: LatencyStats) -> tuple[Any, ...]:
    return (
        run_id,
        s.metric,
        s.definition,
        s.weighting,
        s.source,
        s.count,
        s.mean_ms,
        s.p50_ms,
        s.p90_ms,
        s.p95_ms,
        s.p99_ms,
        s.min_ms,
        s.max_ms,
        s.std_ms,
    )


def insert_set(store: Store, file: FileRecord, s: ScoreSet) -> None:
    """One score set, already carrying its role and candidate."""
    who, data = s.identity, s.dataset
    values: list[Any] = [
        s.set_id,
        file.sha256,
        file.path,
        s.role,
        s.candidate,
        s.format_id,
        s.tool,
        s.tool_version,
        s.task,
        s.task_hash,
        s.scorer,
        s.metric,
        s.filter,
        s.direction,
        s.kind,
        s.value,
        s.stderr,
        s.n_items,
        s.n_passed,
        s.mean_item_score,
        who.model_name,
        who.model_digest,
        who.precision,
        who.runtime_name,
        who.runtime_version,
        data.name if data else None,
        data.version if data else None,
        data.digest if data else None,
        s.model_dump_json(),
    ]
    marks = ", ".join("?" * len(values))
    store.execute(f"INSERT INTO score_sets ({_SET_COLUMNS}) VALUES ({marks})", values)


def load_runs(
    store: Store, *, candidate: str | None = None, role: str | None = None
) -> list[ServingRun]:
    """Every stored run (optionally of one candidate or role), ordered by run id."""
    rows = store.rows(
        "SELECT document FROM serving_runs "
        "WHERE (? IS NULL OR candidate = ?) AND (? IS NULL OR role = ?) ORDER BY run_id",
        [candidate, candidate, role, role],
    )
    return [ServingRun.model_validate_json(row["document"]) for row in rows]


def pairing_candidates(
    store: Store,
    *,
    candidate: str | None,
    tool: str,
    with_rows: bool,
    exclude: str,
    completed: int,
    empty_error: str,
) -> list[ServingRun]:
    """The candidate's stored runs of ``tool`` that have per-request rows (``with_rows``) or
    none, other than ``exclude``, that count ``completed`` requests as the tool wrote it (with
    the successes that produced no token, stored as ``empty_error``): a keyed lookup in SQL, so
    pairing a new file never reads or validates the other stored runs."""
    rows = store.rows(
        "WITH c AS (SELECT run_id, requests_completed, document FROM serving_runs "
        "WHERE candidate IS NOT DISTINCT FROM ? AND tool = ? AND (per_request_rows > 0) = ? "
        "AND run_id <> ?), "
        "e AS (SELECT run_id, count(*) AS n FROM run_requests "
        "WHERE error = ? AND run_id IN (SELECT run_id FROM c) GROUP BY run_id) "
        "SELECT c.document FROM c LEFT JOIN e USING (run_id) "
        "WHERE coalesce(c.requests_completed, 0) + coalesce(e.n, 0) = ? ORDER BY c.run_id",
        [candidate, tool, with_rows, exclude, empty_error, completed],
    )
    return [ServingRun.model_validate_json(row["document"]) for row in rows]


def pairing_keys(
    store: Store, *, candidate: str | None, tools: Sequence[str], empty_error: str
) -> set[tuple[str, bool, int]]:
    """(tool, has per-request rows, completed as the tool wrote it) of every stored run of the
    candidate and these tools: what ``pairing_candidates`` matches on, for many new runs in
    one query."""
    rows = store.execute(
        "WITH c AS (SELECT run_id, tool, per_request_rows > 0 AS with_rows, requests_completed "
        "FROM serving_runs WHERE candidate IS NOT DISTINCT FROM ? "
        "AND list_contains(?::VARCHAR[], tool)), "
        "e AS (SELECT run_id, count(*) AS n FROM run_requests "
        "WHERE error = ? AND run_id IN (SELECT run_id FROM c) GROUP BY run_id) "
        "SELECT DISTINCT c.tool, c.with_rows, "
        "coalesce(c.requests_completed, 0) + coalesce(e.n, 0) FROM c LEFT JOIN e USING (run_id)",
        [candidate, list(tools), empty_error],
    ).fetchall()
    return {(tool, bool(with_rows), int(completed)) for tool, with_rows, completed in rows}


def runs_of_files(
    store: Store, sha256s: Sequence[str], candidate: str | None
) -> dict[str, list[ServingRun]]:
    """For each file (by digest), the stored runs read from it for one candidate, in file
    order; one query for all the files."""
    rows = store.rows(
        "SELECT file_sha256, document FROM serving_runs WHERE list_contains(?::VARCHAR[], "
        "file_sha256) AND candidate IS NOT DISTINCT FROM ? ORDER BY run_id",
        [list(sha256s), candidate],
    )
    out: dict[str, list[ServingRun]] = {sha: [] for sha in sha256s}
    for row in rows:
        out[row["file_sha256"]].append(ServingRun.model_validate_json(row["document"]))
    return {sha: sorted(runs, key=lambda r: r.index) for sha, runs in out.items()}


def load_score_sets(
    store: Store, *, candidate: str | None = None, role: str | None = None
) -> list[ScoreSet]:
    """Every stored score set, ordered by set id; lm-eval samples sets completed by task hash."""
    rows = store.rows(
        "SELECT document FROM score_sets "
        "WHERE (? IS NULL OR candidate = ?) AND (? IS NULL OR role = ?) ORDER BY set_id",
        [candidate, candidate, role, role],
    )
    sets = [ScoreSet.model_validate_json(row["document"]) for row in rows]
    return [_complete(s, sets) for s in sets]


def _complete(s: ScoreSet, sets: list[ScoreSet]) -> ScoreSet:
    """An lm-eval samples set (a task hash; no model, no tool value) takes what its results
    set states. Its task, where the file name gave one, must be the results set's too.

    lm-eval 0.4.0-0.4.3 samples rows do not record their filter (read as unknown, None): where
    the results file has exactly one filter for that task and metric (``none``, or
    ``get-answer`` of gsm8k and the leaderboard tasks), that filter is theirs, and the set takes
    its name.
    """
    if s.format_id != "lm-eval-samples" or s.task_hash is None or s.value is not None:
        return s
    same = [
        r
        for r in sets
        if r.task is not None
        and r.format_id != "lm-eval-samples"
        and r.task_hash == s.task_hash
        and (s.task is None or r.task == s.task)
        and r.metric == s.metric
        and r.candidate == s.candidate
    ]
    match = next((r for r in same if s.filter is not None and r.filter == s.filter), None)
    named: tuple[str, ...] = ()
    if match is None and s.filter is None and len({r.filter for r in same}) == 1:
        match = same[0]
        named = (
            f"the samples rows do not name their filter; the results file's only filter for "
            f"this task and metric, {match.filter!r}, is theirs",
        )
    if match is None:
        return s
    return s.model_copy(
        update={
            "task": match.task,
            "filter": match.filter,
            "tool_version": match.tool_version,
            "direction": match.direction,
            "value": match.value,
            "stderr": match.stderr,
            "identity": match.identity,
            "dataset": match.dataset,
            "timestamp": match.timestamp,
            "warnings": tuple(
                w for w in s.warnings if "names neither" not in w and "record their filter" not in w
            )
            + (f"task, model and the tool's value taken from {match.set_id} (same task hash)",)
            + named,
        }
    )


def score_item_rows(store: Store, set_id: str) -> list[ScoreItem]:
    """The full item rows of one set, ordered by item id."""
    rows = store.rows(
        "SELECT item_id, score, label, passed FROM score_items WHERE set_id = ? ORDER BY item_id",
        [set_id],
    )
    return [ScoreItem.model_validate(row) for row in rows]
