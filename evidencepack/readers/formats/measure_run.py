"""``evidencepack measure`` run folders: the per-request ``requests.jsonl`` and the ``run.json``
record beside LoadGen's logs.

``requests.jsonl`` is a format of its own (one row per request, recomputed in SQL, failures
kept with their reason). ``run.json`` is a companion: whichever reader reads a file of the folder
(this one, or the LoadGen reader for ``mlperf_log_detail.txt``) takes from it what the run
*observed*: the model the server named, the runtime and version it reported, the concurrency
limit, the client's failed requests and whether the run completed. These are recorded by the
measurement itself, so the envelope check treats them as observed, never declared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import JsonValue, ValidationError

from ...core.provenance import FileRecord
from ...errors import InputError
from ...mlperf.measure_record import RECORD_SCHEMA, MeasureRunRecord
from ...staging.context import ReadContext
from ...staging.stage import Staging
from ...staging.stage_batch import StagedRun, stage_batch
from ...store.connection import literal_path
from .._json import load_json_document
from .._runs import build_run, one_run, request_window
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id
from ..models import Identity, Load
from ..normalise import SERVING_RUNTIMES, normalise_runtime
from .measure_server_metrics import metrics_warnings

RECORD_FILE = "run.json"
REQUEST_SCHEMA = "evidencepack.measure.request/v1"
TOOL = "evidencepack-measure"

_COLUMNS = {
    "sample_id": "UBIGINT",
    "send_time_s": "DOUBLE",
    "ttft_ms": "DOUBLE",
    "e2e_ms": "DOUBLE",
    "tpot_ms": "DOUBLE",
    "itl_gaps_ms": "DOUBLE[]",
    "input_tokens": "DOUBLE",
    "output_tokens": "DOUBLE",
    "status": "VARCHAR",
    "error": "VARCHAR",
}

_FIELDS = """line - 1 AS request_index, line,
       status = 'ok' AS ok, error, input_tokens, output_tokens,
       send_time_s AS start_s, ttft_ms, e2e_ms, tpot_ms, itl_gaps_ms,
       CASE WHEN status NOT IN ('ok', 'failed') THEN '$.status: expected ok or failed, found '
                 || coalesce(status, 'nothing')
            WHEN status = 'ok' AND (ttft_ms IS NULL OR e2e_ms IS NULL)
                 THEN '$.ttft_ms: a successful request needs ttft_ms and e2e_ms' END AS problem"""
_SELECT = f"""
SELECT 0 AS run_index, {_FIELDS}
FROM (SELECT row_number() OVER () AS line, * FROM read_json(?, format='newline_delimited',
      columns=?))
"""
_BATCH_SELECT = f"""
SELECT list_position(?::VARCHAR[], filename) - 1 AS run_index, {_FIELDS}
FROM (SELECT n - min(n) OVER (PARTITION BY filename) + 1 AS line, *
      FROM (SELECT row_number() OVER () AS n, *
            FROM read_json(?, format='newline_delimited', columns=?, filename=true)))
"""
"""Many files at once (``stage_many``): each file's run numbered by its place in the batch,
each row's line counted within its file (rows are read in file order, as ``_SELECT`` reads
one file's)."""


@dataclass(frozen=True)
class Companion:
    """What ``run.json`` says about the run it sits beside."""

    path: Path
    complete: bool
    identity: Identity
    load_concurrency: int | None
    sent: int
    ok: int
    failed: int
    input_tokens_mean: float | None
    output_tokens_mean: float | None
    started: str | None
    warnings: list[str] = field(default_factory=list)


def read_companion(beside: Path, name: str | None = None) -> Companion | None:
    """The ``run.json`` of the measure run that ``beside`` belongs to, if there is one
    (messages name it beside ``name``, what they call ``beside``); validated against
    ``MeasureRunRecord``, an InputError naming the file and the field when it is not one."""
    path = beside.parent / RECORD_FILE
    if not path.is_file():
        return None
    shown = str(path) if name is None else str(PurePosixPath(name).parent / RECORD_FILE)
    doc = load_json_document(path, shown)
    if not isinstance(doc, dict) or doc.get("schema") != RECORD_SCHEMA:
        return None
    try:
        rec = MeasureRunRecord.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise InputError(first["msg"], file=shown, where=where) from None
    seen = list(rec.response_models)
    model_name = seen[0] if len(seen) == 1 else None
    runtime = _runtime(rec.server.models, model_name)
    reported = rec.server.version
    version = None
    if runtime is not None and isinstance(reported, dict):
        found = reported.get("version")
        if found is not None and not isinstance(found, str):
            raise InputError("expected text", file=shown, where="$.server.version.version")
        version = found
    limit = rec.limits.max_in_flight
    settings: dict[str, str | int | float | bool | None] = {
        "endpoint": rec.endpoint,
        "api": rec.request.api,
        "max_tokens": rec.request.max_tokens,
    }
    for key, value in sorted(rec.request.sampling.items()):
        if isinstance(value, str | int | float | bool):
            settings[f"sampling.{key}"] = value
    identity = Identity(
        model_name=model_name,
        runtime_name=runtime,
        runtime_version=version,
        concurrency=limit,
        settings=settings,
    )
    counts = rec.requests
    warnings: list[str] = []
    if not rec.complete:
        warnings.append(
            f"incomplete measure run ({rec.stop_reason or 'stopped'}): LoadGen gave no "
            "verdict; only the requests measured before the stop are here"
        )
    if counts.failed:
        listed = ", ".join(f"{k} x{v}" for k, v in sorted(counts.failures.items()))
        warnings.append(f"{counts.failed} request(s) failed" + (f": {listed}" if listed else ""))
    if counts.rate_limited:
        after = ", ".join(counts.retry_after_seen or []) or "none"
        warnings.append(
            f"{counts.rate_limited} request(s) were rate limited (HTTP 429, counted as failed; "
            f"Retry-After seen: {after})"
        )
    if (counted := _counted_requests(rec)) is not None:
        warnings.append(counted)
    if len(seen) > 1:
        warnings.append(f"the responses named several models: {', '.join(seen)}")
    if model_name is None and not seen:
        warnings.append("no response named its model; the model is not observed")
    return Companion(
        path=path,
        complete=rec.complete,
        identity=identity,
        load_concurrency=limit,
        sent=counts.sent,
        ok=counts.ok,
        failed=counts.failed,
        input_tokens_mean=counts.input_tokens_mean,
        output_tokens_mean=counts.output_tokens_mean,
        started=rec.started_utc,
        warnings=warnings,
    )


def _counted_requests(rec: MeasureRunRecord) -> str | None:
    """A warning when some output token counts are streamed chunks counted, not tokens."""
    sources = rec.requests.output_tokens_sources
    if not sources:
        return None
    counted = sources.get("counted", 0)
    if counted <= 0:
        return None
    total = sum(sources.values())
    problem = rec.tokenizer.problem if rec.tokenizer is not None else None
    why = f"; {problem}" if problem else ""
    return (
        f"output tokens of {counted} of {total} successful request(s) are streamed chunks "
        f"counted, not tokens (the server sent no usage and its tokenizer did not count them"
        f"{why}): their token counts, TPOT and tokens/s are estimates, not exact"
    )


def _runtime(models: list[dict[str, JsonValue]], model_name: str | None) -> str | None:
    """The serving engine the server names as the model's owner (vLLM says ``vllm``)."""
    for entry in models:
        owner = normalise_runtime(str(entry.get("owned_by") or ""))
        if (model_name is None or entry.get("id") == model_name) and owner in SERVING_RUNTIMES:
            return owner
    return None


def detect_requests(probe: Probe) -> bool:
    """An ``evidencepack measure`` ``requests.jsonl``: records carrying its request schema."""
    return (
        probe.container == "jsonl"
        and isinstance(probe.first, dict)
        and probe.first.get("schema") == REQUEST_SCHEMA
    )


def parse_requests(probe: Probe, record: FileRecord) -> ParsedInput:
    """One serving run from an ``evidencepack measure`` ``requests.jsonl`` and its ``run.json``."""
    path = probe.path
    companion = read_companion(path, probe.name)

    def locate(run: int, request: int, line: int | None, column: str) -> str:
        return f"line {line}" if column == "problem" else f"line {line}: $.{column}"

    staged = probe.context.prestaged.get(path)  # read with a batch (``stage_many``)
    staging = Staging(path, locate, probe.name, probe.context) if staged is None else None
    try:
        if staging is not None:
            staging.insert(_SELECT, [literal_path(path), _COLUMNS])
            staging.finish()
        rows: Staging | StagedRun = staging if staging is not None else staged  # type: ignore[assignment]
        window = request_window(rows, probe.name)
        warnings = [
            "the client's own timing (from each request's send); LoadGen's verdict and its "
            "TTFT/TPOT (from each query's issue) are in mlperf_log_detail.txt beside it"
        ]
        identity = Identity()
        if companion is None:
            warnings.append(f"no {RECORD_FILE} beside it: the model and server are unknown")
        else:
            warnings += companion.warnings
            identity = companion.identity
        run = build_run(
            window.settled,
            warnings,
            run_id=item_id(record, 0),
            index=0,
            format_id=REQUESTS_FORMAT.id,
            tool=TOOL,
            timestamp=iso_from_epoch(window.start_s),
            identity=identity,
            load=Load(concurrency=companion.load_concurrency if companion else None),
            **window.run_fields,
        )
        columns = rows.columns()
    finally:
        if staging is not None:
            staging.close()
    if (beside := metrics_warnings(path, run, probe.name)) is not None:
        warnings += beside
        run = run.model_copy(update={"warnings": (*run.warnings, *beside)})
    return one_run(REQUESTS_FORMAT.id, record, run, file_warnings=warnings, requests=columns)


def stage_many(paths: Sequence[Path], context: ReadContext) -> dict[Path, StagedRun]:
    """The rows of many ``requests.jsonl`` files staged together (a few statements for all)
    under ``context``, by path; {} when they cannot be taken as one batch (each file is then
    read alone). The file states no latency figure of its own, so nothing is checked against
    its rows."""

    def params(staged: Sequence[Path]) -> list[Any]:
        return [[str(p) for p in staged], [literal_path(p) for p in staged], _COLUMNS]

    return stage_batch(paths, _BATCH_SELECT, params, context, checks=False)  # no tool figures


def with_companion(parsed: ParsedInput, log_path: Path, name: str) -> ParsedInput:
    """A LoadGen log's run completed with what the ``run.json`` beside it observed.

    LoadGen has no failed samples: the SUT completes a failed request at the moment it failed,
    so LoadGen counts it as completed. The record's counts replace LoadGen's here.
    """
    if not parsed.runs:
        return parsed
    try:
        companion = read_companion(log_path, name)
    except InputError as exc:
        raise InputError(f"{name}: {RECORD_FILE} beside the log: {exc.message}") from exc
    if companion is None:
        return parsed
    run = parsed.runs[0]
    warnings = list(run.warnings) + companion.warnings
    if companion.failed:
        warnings.append(
            f"LoadGen counted the {companion.failed} failed request(s) as completed samples: its "
            "latency percentiles and throughput include them"
        )
    tokens = run.tokens.model_copy(
        update={
            "input_mean_tokens": companion.input_tokens_mean,
            "output_mean_tokens": companion.output_tokens_mean or run.tokens.output_mean_tokens,
        }
    )
    settings = dict(run.identity.settings) | dict(companion.identity.settings)
    identity = companion.identity.model_copy(update={"settings": settings})
    load = run.load.model_copy(update={"concurrency": companion.load_concurrency})
    updated = run.model_copy(
        update={
            "identity": identity,
            "load": load,
            "requests_sent": companion.sent,
            "requests_completed": companion.ok,
            "requests_failed": companion.failed,
            "tokens": tokens,
            "warnings": tuple(warnings),
        }
    )
    return replace(parsed, runs=(updated,), warnings=tuple(warnings))


REQUESTS_FORMAT = Format(
    "evidencepack-measure-requests", "runs", TOOL, detect_requests, parse_requests
)
