"""The team's own MLPerf LoadGen runs as serving runs, read by the MLPerf stage's parser.

``mlperf_log_detail.txt`` (``:::MLLOG`` lines: the truth) or, alone, ``mlperf_log_summary.txt``.
No second LoadGen parser lives here: ``evidencepack.mlperf.loadgen_log`` reads the log and this
module maps its ``LoadgenLog`` onto a ServingRun. LoadGen's TPOT is (latency - TTFT) /
(tokens - 1) per sample: the canonical definition. An accuracy-mode run holds no performance.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.provenance import FileRecord
from ...errors import InputError
from ...mlperf.loadgen_log import LoadgenLog, parse_detail
from ...mlperf.loadgen_summary import parse_summary_raw
from .._runs import build_run, one_run, reconcile, tool_stats
from ..base import Format, ParsedInput, Probe, item_id, require_completed, with_tool
from ..models import Identity, LatencyMetric, LatencyStats, Load, RunFinding, TokenStats
from .measure_run import with_companion

_LATENCY_REASON = re.compile(r"constrain|latency", re.IGNORECASE)
"""LoadGen's reason for an INVALID run that names a latency limit (``TTFT constrain not met``),
as against too few queries or too short a run."""

_MAIN = ("mean", "p50", "p90", "p95", "p99", "min", "max")


def latency_reason(reasons: tuple[str, ...] | list[str]) -> bool:
    """Whether LoadGen's own reasons for an INVALID run name a latency limit."""
    return any(_LATENCY_REASON.search(reason) for reason in reasons)


def detect_detail(probe: Probe) -> bool:
    """A LoadGen ``mlperf_log_detail.txt``: ``:::MLLOG`` records."""
    return probe.container == "text" and str(probe.first).startswith(":::MLLOG")


def detect_summary(probe: Probe) -> bool:
    # An accuracy-mode run's summary holds only the two "encountered during test" lines.
    """A LoadGen ``mlperf_log_summary.txt`` (a performance or an accuracy run's)."""
    return probe.container == "text" and (
        b"MLPerf Results Summary" in probe.head[:400]
        or probe.head.lstrip().startswith(b"No warnings encountered during test")
    )


def parse_detail_log(probe: Probe, record: FileRecord) -> ParsedInput:
    """The team's own LoadGen run from its detail log."""
    parsed = _parsed(parse_detail(probe.path, probe.name), record, DETAIL_FORMAT.id)
    return with_companion(
        parsed, probe.path, probe.name
    )  # an `evidencepack measure` run.json beside it


def parse_summary_log(probe: Probe, record: FileRecord) -> ParsedInput:
    """The team's own LoadGen run from its summary alone (an accuracy run has no results)."""
    raw = parse_summary_raw(probe.path, probe.name)
    if not raw.has_results:
        return _accuracy_only(record, SUMMARY_FORMAT.id, None)
    return _parsed(raw.to_log(), record, SUMMARY_FORMAT.id)


def _accuracy_only(record: FileRecord, format_id: str, version: str | None) -> ParsedInput:
    warning = "an accuracy-mode LoadGen run: it measures no performance, so it yields no run"
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, "mlperf-loadgen", version, [warning]),
        warnings=(warning,),
    )


def _stats(values: dict[str, float], metric: LatencyMetric) -> LatencyStats | None:
    extra = {k: v for k, v in values.items() if k not in _MAIN}
    return tool_stats(metric, {k: values.get(k) for k in _MAIN}, extra=extra)


def _parsed(log: LoadgenLog, record: FileRecord, format_id: str) -> ParsedInput:
    if not log.is_performance_run:
        return _accuracy_only(record, format_id, log.loadgen_version)
    log.require_validity()
    if log.scenario is None:
        raise InputError(f"{record.path}: the LoadGen log names no scenario")
    per_query = log.settings.samples_per_query or 1
    completed = log.query_count * per_query if log.query_count is not None else None
    if log.scenario == "Offline" and log.settings.samples_per_query is None:
        completed = None
    if completed is not None:
        require_completed(Path(record.path), log.cite("result_query_count"), completed)
    warnings: list[str] = []
    findings: list[RunFinding] = []
    if log.validity == "INVALID":
        why = "; ".join(log.invalid_reasons) or "no reason logged"
        warnings.append(f"LoadGen judged the run INVALID: {why}")
        findings.append(
            # WARN: the run stays a measured point that broke the SLO, never an operating point
            RunFinding(
                # a latency limit not met (``TTFT constrain not met``), or too few queries or too
                # short a run: LoadGen's own reasons say which, and the kind carries it on
                kind="invalid-run-latency"
                if latency_reason(log.invalid_reasons)
                else "invalid-run",
                severity="WARN",
                figure="result_validity",
                detail=f"LoadGen judged the run INVALID ({log.cite('result_validity')}): {why}",
            )
        )
    findings += [
        RunFinding(
            kind="duplicate-key",
            severity="FAIL",
            figure=line.split(": ", 1)[1].split(" = ", 1)[0],
            detail=line,
        )
        for line in log.repeated_keys
    ]
    if log.tokens_inferred:
        warnings.append("token throughput is LoadGen's inferred figure (no token counts logged)")
    warnings += [f"{line.file}:{line.line}: {line.message}" for line in log.errors]
    settled = reconcile(
        None,
        0,
        {
            "ttft": _stats(log.ttft_ms, "ttft"),
            "tpot": _stats(log.tpot_ms, "tpot"),
            "e2e": _stats(log.latency_ms, "e2e"),
        },
    )
    duration = completed / log.samples_per_s if completed and log.samples_per_s else None
    run = build_run(
        settled,
        warnings,
        run_id=item_id(record, 0),
        index=0,
        format_id=format_id,
        tool="mlperf-loadgen",
        tool_version=log.loadgen_version,
        layout=f"{log.scenario} ({log.test_mode or 'PerformanceOnly'})",
        label=log.sut_name,
        timestamp=log.test_datetime,
        identity=Identity(settings={"sut_name": log.sut_name} if log.sut_name else {}),
        findings=tuple(findings),
        load=_load(log),
        verdict=log.validity,
        verdict_reasons=log.invalid_reasons,
        requests_sent=completed,
        requests_completed=completed,
        requests_failed=log.num_errors,
        duration_s=duration,
        request_throughput_per_s=log.samples_per_s,
        output_token_throughput_per_s=log.tokens_per_s,
        tokens=TokenStats(
            output_mean_tokens=log.tokens_per_s / log.samples_per_s
            if log.tokens_per_s and log.samples_per_s
            else None
        ),
    )
    return one_run(format_id, record, run)


def _load(log: LoadgenLog) -> Load:
    if log.scenario == "Offline":
        return Load(kind="offline")
    if log.scenario == "Server":
        return Load(
            kind="open_loop", request_rate_per_s=log.settings.target_qps or None, arrival="poisson"
        )
    if log.scenario == "SingleStream":
        return Load(kind="closed_loop", concurrency=1)
    return Load(kind="closed_loop", concurrency=log.settings.samples_per_query)


DETAIL_FORMAT = Format(
    "mlperf-loadgen-detail", "runs", "mlperf-loadgen", detect_detail, parse_detail_log
)
SUMMARY_FORMAT = Format(
    "mlperf-loadgen-summary", "runs", "mlperf-loadgen", detect_summary, parse_summary_log
)
