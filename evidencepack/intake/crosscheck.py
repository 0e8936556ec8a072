"""Check a tool's summary file against its per-request file of the same run, once both are stored.

AIPerf (``profile_export_aiperf.json`` + ``profile_export.jsonl``) and llmperf (``*_summary.json``
+ ``*_individual_responses.json``) split one run over two files. Two stored runs are companions
when they belong to the same candidate and tool, one has per-request rows and the other none,
they count the same completed requests, and their start times lie within 5 s (or, when either
has no time, they are the only such pair). The summary's figures are then checked against the
rows with the same rule as within a file; the checks land in ``run_checks`` (``against_run_id``)
and in the summary run's document, with a warning for any disagreement. The per-request run,
which the analysis keeps as the run's one load point, takes from its summary what its own records
do not state: the model, the tool version and the load (concurrency).

A team's own LoadGen folder gets the check an MLPerf submission gets: its
``mlperf_log_summary.txt`` against its ``mlperf_log_detail.txt`` (``loadgen_pair``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..errors import InputError
from ..mlperf.loadgen_log import parse_detail
from ..mlperf.loadgen_summary import cross_check, parse_summary_raw
from ..readers._runs import disagreement, same_meaning
from ..readers.models import AggregateCheck, LatencyStats, RunFinding, ServingRun
from ..staging.stage import EMPTY_OUTPUT, compare
from ..store import Store
from .stored import insert_check, pairing_candidates

MAX_START_GAP_S = 5.0
_ROW_COLUMN = {"ttft": "ttft_ms", "tpot": "tpot_ms", "e2e": "e2e_ms"}


def link_companions(store: Store, runs: list[ServingRun]) -> None:
    """Find each new run's companion among stored runs and record the checks between them."""
    for run in runs:
        for summary, detail in _pairs(store, run):
            checks = _checks(store, summary, detail)
            if not checks:
                continue
            for check in checks:
                insert_check(store, summary.run_id, check, detail.run_id)
            note = f"checked against the per-request rows of {detail.run_id}"
            warnings = [note] + [disagreement(c) for c in checks if not c.ok]
            updated = summary.model_copy(
                update={
                    "checks": summary.checks + tuple(checks),
                    "warnings": summary.warnings + tuple(warnings),
                }
            )
            store.execute(
                "UPDATE serving_runs SET document = ? WHERE run_id = ?",
                [updated.model_dump_json(), summary.run_id],
            )
            _inherit(store, detail, summary)


def _inherit(store: Store, detail: ServingRun, summary: ServingRun) -> None:
    """The per-request run completed with what only its summary states (model, version, load)."""
    stored = store.rows("SELECT document FROM serving_runs WHERE run_id = ?", [detail.run_id])
    detail = ServingRun.model_validate_json(stored[0]["document"]) if stored else detail
    identity = detail.identity.model_copy(
        update={
            key: getattr(summary.identity, key)
            for key in ("model_name", "model_revision", "precision", "concurrency")
            if getattr(detail.identity, key) is None and getattr(summary.identity, key) is not None
        }
    )
    load = detail.load if detail.load.kind is not None else summary.load
    version = detail.tool_version or summary.tool_version
    if (identity, load, version) == (detail.identity, detail.load, detail.tool_version):
        return
    taken = f"model, version and load taken from its summary {summary.run_id}"
    updated = detail.model_copy(
        update={
            "identity": identity,
            "load": load,
            "tool_version": version,
            "warnings": (*detail.warnings, taken),
        }
    )
    store.execute(
        "UPDATE serving_runs SET document = ?, model_name = ?, precision = ?, tool_version = ?, "
        "load_kind = ?, request_rate_per_s = ?, arrival = ?, concurrency = ? WHERE run_id = ?",
        [
            updated.model_dump_json(),
            identity.model_name,
            identity.precision,
            version,
            load.kind,
            load.request_rate_per_s,
            load.arrival,
            load.concurrency,
            detail.run_id,
        ],
    )


def _pairs(store: Store, run: ServingRun) -> list[tuple[ServingRun, ServingRun]]:
    completed = _tool_completed(store, run)
    if not completed:
        return []
    others = pairing_candidates(
        store,
        candidate=run.candidate,
        tool=run.tool,
        with_rows=not run.per_request_rows,
        exclude=run.run_id,
        completed=completed,
        empty_error=EMPTY_OUTPUT,
    )
    timed = [r for r in others if _close(r.timestamp, run.timestamp)]
    untimed = [r for r in others if _start(r.timestamp) is None or _start(run.timestamp) is None]
    chosen = timed if timed else (untimed if len(untimed) == 1 else [])
    out = []
    for other in chosen:
        summary, detail = (other, run) if run.per_request_rows else (run, other)
        done = store.rows(
            "SELECT count(*) AS n FROM run_checks WHERE run_id = ? AND against_run_id = ?",
            [summary.run_id, detail.run_id],
        )
        if not done[0]["n"]:
            out.append((summary, detail))
    return out


def _tool_completed(store: Store, run: ServingRun) -> int:
    """The completed count as the tool wrote it: with the requests it counted as successes
    that produced no output token (which the per-request reading counts as failed)."""
    empty: int = store.rows(
        "SELECT count(*) AS n FROM run_requests WHERE run_id = ? AND error = ?",
        [run.run_id, EMPTY_OUTPUT],
    )[0]["n"]
    return (run.requests_completed or 0) + empty


def _start(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    # AIPerf writes its start time without a zone; it is UTC, like its nanosecond stamps.
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _close(a: str | None, b: str | None) -> bool:
    first, second = _start(a), _start(b)
    return bool(first and second and abs((first - second).total_seconds()) <= MAX_START_GAP_S)


def _checks(store: Store, summary: ServingRun, detail: ServingRun) -> list[AggregateCheck]:
    checks: list[AggregateCheck] = []
    for metric in ("ttft", "tpot", "itl", "e2e"):
        theirs: LatencyStats | None = getattr(summary, metric)
        ours: LatencyStats | None = getattr(detail, metric)
        if theirs is None or ours is None or not same_meaning(ours, theirs):
            continue
        column = _ROW_COLUMN.get(metric)
        # chunk gaps are not kept per request in the store: only the mean is checked
        count = _count(store, detail.run_id, column) if column else 0

        def order_stats(indices: list[int], column: str | None = column) -> list[float]:
            bounds: list[float] = store.rows(
                "SELECT list_transform(?::BIGINT[], lambda i: s[i]) AS b FROM "
                f"(SELECT list_sort(list({column})) AS s FROM run_requests "
                f"WHERE run_id = ? AND ok AND {column} IS NOT NULL)",
                [indices, detail.run_id],
            )[0]["b"]
            return bounds

        checks += compare(metric, ours, theirs, count, order_stats)
    return checks


def _count(store: Store, run_id: str, column: str) -> int:
    count: int = store.rows(
        f"SELECT count({column}) AS n FROM run_requests WHERE run_id = ? AND ok", [run_id]
    )[0]["n"]
    return count


def loadgen_pair(
    detail: Path, summary: Path, names: tuple[str, str] | None = None
) -> list[RunFinding]:
    """Every figure a LoadGen summary prints that its detail log contradicts, as FAIL findings
    (the run is read from the detail log; a summary that disagrees is not trusted silently).
    ``names`` are what the findings call the two files (default: their paths)."""
    shown = names or (str(detail), str(summary))
    try:
        log, raw = parse_detail(detail, shown[0]), parse_summary_raw(summary, shown[1])
    except InputError as exc:  # a file that cannot be read: no figure is named
        found: list[tuple[str | None, str]] = [(None, t) for t in (exc.message, *exc.problems)]
    else:
        found = [(problem.field, problem.text) for problem in cross_check(log, raw)]
    return [
        RunFinding(kind="summary-disagrees", severity="FAIL", figure=figure, detail=text)
        for figure, text in found
    ]
