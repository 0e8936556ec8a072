"""A run folder read whole: the request rows beside the cited log (read by the intake,
``intake/intake.py``) reconciled with it.

``evidencepack measure`` writes a LoadGen folder (``mlperf_log_detail.txt``, the summary) and,
beside it, the client's own record of every request (``requests.jsonl``) and of the run
(``run.json``). LoadGen sees every sample complete, whether the request behind it succeeded or
not; only the request rows know which failed. So the rows are read too: their failures, token
lengths and the model and server they name join the run, and a count they contradict is a
PROV-DATA failure naming both files.
"""

from __future__ import annotations

from ..intake.records import InputFile, in_spec
from ..intake.run_folders import FolderRows
from ..readers.formats.measure_server_metrics import client_view, cross_check
from ..readers.models import Identity, ServingRun, TokenStats
from .evidence import DataFinding


def _metrics_findings(label: str, rows: FolderRows, model: str | None) -> list[DataFinding]:
    """The engine's own counts against the client's rows: each disagreement beyond the stated
    tolerance (``measure_server_metrics``) is a FAIL naming both files."""
    if rows.metrics_file is None:
        return []
    metrics_name, rows_name = in_spec(rows.metrics_file), in_spec(rows.file)
    if rows.metrics is None:
        detail = f"{metrics_name} is unreadable: {rows.metrics_problem}"
        return [
            DataFinding(label, rows.metrics_file, model, "summary-disagrees", "FAIL", None, detail)
        ]
    return [
        DataFinding(
            label,
            rows.metrics_file,
            model,
            "summary-disagrees",
            "FAIL",
            c.figure,
            f"the engine's metrics disagree with the client on the {c.figure}: {c.detail} "
            f"(files {metrics_name} and {rows_name})",
        )
        for c in cross_check(rows.metrics, client_view(rows.run))
        if not c.agrees
    ]


def _identity(log: Identity, rows: Identity) -> Identity:
    """The log's identity, with what the rows' run record names where the log says nothing."""
    updates = {
        name: getattr(rows, name)
        for name in ("model_name", "model_digest", "precision", "runtime_name", "runtime_version")
        if getattr(log, name) is None and getattr(rows, name) is not None
    }
    return log.model_copy(update=updates)


def reconcile(
    label: str, log_file: InputFile, run: ServingRun, rows: FolderRows, model: str | None
) -> tuple[ServingRun, list[DataFinding]]:
    """The run with its folder's request rows joined in, and what they contradict."""
    findings: list[DataFinding] = []
    ok = rows.run.requests_completed or 0
    failed = rows.run.requests_failed or 0
    sent = ok + failed
    logged = (run.requests_completed or 0) + (run.requests_failed or 0)
    rows_name, log_name = in_spec(rows.file), in_spec(log_file)
    names = f"{rows_name} and {log_name}"
    if failed > (run.requests_failed or 0):
        findings.append(
            DataFinding(
                label,
                rows.file,
                model,
                "summary-disagrees",
                "FAIL",
                "failed requests",
                f"{rows_name} records {failed} of {sent} requests failed "
                f"({failed / sent:.1%}) but {log_name} counts "
                f"{run.requests_failed or 0} failed: the run's error rate is the rows' "
                f"(files {names})",
            )
        )
    if logged and sent != logged:
        findings.append(
            DataFinding(
                label,
                rows.file,
                model,
                "summary-disagrees",
                "FAIL",
                "request count",
                f"{rows_name} holds {sent} requests but {log_name} counts {logged}",
            )
        )
    findings += _metrics_findings(label, rows, model)
    tokens = run.tokens
    if tokens.input_mean_tokens is None and tokens.output_mean_tokens is None:
        tokens = TokenStats.model_validate(rows.run.tokens.model_dump())
    joined = run.model_copy(
        update={
            "requests_failed": max(failed, run.requests_failed or 0),
            "requests_completed": min(ok, run.requests_completed or ok) if sent else ok,
            "tokens": tokens,
            "identity": _identity(run.identity, rows.run.identity),
        }
    )
    return joined, findings
