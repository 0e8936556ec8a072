"""Shared steps of the serving-run readers: tool figures as LatencyStats, and reconciliation.

``reconcile`` picks, per metric, the distribution recomputed from per-request rows when the
file has them (always the canonical definition) and the tool's own figure otherwise (kept
under the tool's definition), and checks the tool's figure wherever both mean the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.provenance import FileRecord
from ..staging.stage import TOLERANCE_TEXT, Staging
from ..staging.stage_batch import StagedRun
from .base import ParsedInput, require_completed, with_tool
from .models import (
    CANONICAL,
    DEFINITIONS,
    AggregateCheck,
    Definition,
    Goodput,
    LatencyMetric,
    LatencyStats,
    RunFinding,
    ServingRun,
    TokenStats,
    Weighting,
)

METRICS: tuple[LatencyMetric, ...] = ("ttft", "tpot", "itl", "e2e")
_WEIGHTING: dict[str, Weighting] = {
    "ttft": "request",
    "tpot": "request",
    "itl": "gap",
    "e2e": "request",
}
_STAT_KEYS = ("mean", "p50", "p90", "p95", "p99", "min", "max", "std")


def tool_stats(
    metric: LatencyMetric,
    values: Mapping[str, float | None],
    *,
    definition: Definition | None = None,
    weighting: Weighting | None = None,
    scale: float = 1.0,
    count: int | None = None,
    extra: Mapping[str, float | None] | None = None,
) -> LatencyStats | None:
    """A tool's aggregate as LatencyStats in ms (``scale`` converts the tool's unit to ms).

    ``values`` uses the keys mean, p50, p90, p95, p99, min, max, std; None when all are absent.
    """
    fields = {f"{key}_ms": values.get(key) for key in _STAT_KEYS}
    if all(v is None for v in fields.values()):
        return None
    scaled = {k: (None if v is None else v * scale) for k, v in fields.items()}
    extras = {k: v * scale for k, v in (extra or {}).items() if v is not None}
    return LatencyStats(
        metric=metric,
        definition=definition or CANONICAL[metric],
        weighting=weighting or _WEIGHTING[metric],
        source="tool_aggregate",
        count=count,
        extra_percentiles_ms=extras,
        **scaled,
    )


@dataclass
class Reconciled:
    latency: dict[str, LatencyStats | None] = field(default_factory=dict)
    checks: list[AggregateCheck] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    empty_outputs: int = 0
    """Requests the tool counted as successes that produced no output token (now errors)."""
    ok_rows: int | None = None
    """Successful staged requests (without the empty outputs); None without rows."""

    @property
    def ttft(self) -> LatencyStats | None:
        """Time to first token, as reconciled (None when neither source has it)."""
        return self.latency.get("ttft")

    @property
    def tpot(self) -> LatencyStats | None:
        """Time per output token, as reconciled."""
        return self.latency.get("tpot")

    @property
    def itl(self) -> LatencyStats | None:
        """Inter-token latency, as reconciled."""
        return self.latency.get("itl")

    @property
    def e2e(self) -> LatencyStats | None:
        """End-to-end request latency, as reconciled."""
        return self.latency.get("e2e")


def reconcile(
    staging: Staging | StagedRun | None,
    run_index: int,
    tool: Mapping[LatencyMetric, LatencyStats | None] | Mapping[str, LatencyStats | None],
    *,
    tool_itl_definition: Definition | None = None,
) -> Reconciled:
    """Final latency stats for one run, the checks made, and warnings for anything not canonical.

    ``tool_itl_definition`` names the definition of a per-request ITL the tool wrote itself
    (staged as ``tool_itl_ms``), used for the ITL slot when no chunk gaps were recorded.
    """
    out = Reconciled()
    if staging is not None:
        out.empty_outputs = staging.empty_outputs(run_index)
        out.ok_rows = staging.counts(run_index)[1]
    for metric in METRICS:
        ours = None
        if staging is not None:
            ours = staging.stats(run_index, metric, metric, CANONICAL[metric], _WEIGHTING[metric])
        if ours is None and metric == "itl" and staging is not None and tool_itl_definition:
            ours = staging.stats(run_index, "tool_itl", "itl", tool_itl_definition, "request")
            slot = "tool_itl"
        else:
            slot = metric
        theirs = tool.get(metric)
        unmeasured = not_measured(theirs)
        if unmeasured:
            out.warnings.append(unmeasured)
            theirs = None
        if ours is not None:
            if theirs is not None and same_meaning(ours, theirs):
                checks = staging.check(run_index, slot, ours, theirs) if staging else []
                out.checks += checks
                out.warnings += [disagreement(c) for c in checks if not c.ok]
            out.latency[metric] = ours
        else:
            out.latency[metric] = theirs
        final = out.latency[metric]
        if final is not None and not final.canonical:
            out.warnings.append(_non_canonical(final))
    return out


UNBOUNDED_RATE_PER_S = 1e6
"""A request rate at or above this is a sentinel for "no rate limit" (``--request-rate 1e9``,
Ray Serve LLM's spelling of ``inf``): no benchmark client offers a million requests a second."""

_INFINITE = frozenset(("inf", "+inf", "infinity", "+infinity"))


def unbounded_rate(raw: Any) -> bool:
    """Whether a tool's request rate means "send as fast as allowed": ``inf`` in any spelling
    (``"inf"``, ``"Infinity"``, a float infinity) or a sentinel rate of ``UNBOUNDED_RATE_PER_S``
    or more (``1e9``, ``"1e9"``). Such a load is bounded only by its concurrency cap: a closed
    loop at that concurrency, or offline without one, never an open loop at that rate."""
    if isinstance(raw, bool):
        return False
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in _INFINITE:
            return True
        try:
            raw = float(text)
        except ValueError:
            return False
    return isinstance(raw, int | float) and raw >= UNBOUNDED_RATE_PER_S


SLOS_NOT_STATED = "not stated in the file"


def goodput_fields(
    requests_per_s: float | None,
    *,
    tokens_per_s: float | None = None,
    good_requests: float | None = None,
    judged_requests: float | None = None,
    slos: Mapping[str, Any] | None = None,
    slo_source: str | None = None,
) -> dict[str, Any]:
    """The ServingRun fields of a tool's goodput (``goodput`` and its rate ``goodput_per_s``);
    {} when the file states none. ``slos`` keeps the numeric limits (name -> limit)."""
    if requests_per_s is None and tokens_per_s is None and good_requests is None:
        return {}
    limits = {
        str(k): float(v)
        for k, v in (slos or {}).items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    goodput = Goodput(
        requests_per_s=requests_per_s,
        tokens_per_s=tokens_per_s,
        good_requests=None if good_requests is None else int(round(good_requests)),
        judged_requests=None if judged_requests is None else int(round(judged_requests)),
        slos=limits,
        slo_source=slo_source if limits else SLOS_NOT_STATED,
    )
    return {"goodput": goodput, "goodput_per_s": requests_per_s}


def build_run(settled: Reconciled, warnings: list[str], **fields: Any) -> ServingRun:
    """A ServingRun with the reconciled latency, the checks made and every warning; requests
    the tool counted as successes without an output token move to the failed count."""
    findings = list(fields.pop("findings", ()))
    empty = settled.empty_outputs
    if empty:
        completed: int | None = fields.get("requests_completed")
        from_rows = completed is not None and completed == settled.ok_rows
        claimed = completed + empty if completed is not None and from_rows else completed
        detail = (
            f"{empty} of {claimed if claimed is not None else '?'} requests the tool counted "
            "as successful produced no output token: counted as failed (set "
            "task.empty_output_is_valid in the spec where an empty answer is right)"
        )
        findings.append(
            RunFinding(
                kind="empty-output", severity="WARN", figure="requests completed", detail=detail
            )
        )
        warnings = [*warnings, detail]
        # A reader that counted completions from the staged rows has them already.
        if completed and not from_rows:
            kept = max(completed - empty, 0)
            rate = fields.get("request_throughput_per_s")
            if rate is not None:
                fields["request_throughput_per_s"] = rate * kept / completed
            fields["requests_completed"] = kept
            fields["requests_failed"] = (fields.get("requests_failed") or 0) + empty
    return ServingRun(
        ttft=settled.ttft,
        tpot=settled.tpot,
        itl=settled.itl,
        e2e=settled.e2e,
        checks=tuple(settled.checks),
        findings=tuple(findings),
        warnings=tuple(warnings + settled.warnings),
        **fields,
    )


def staged_tokens(staging: Staging | StagedRun, run_index: int) -> TokenStats:
    """Mean and total token counts over one run's successful staged requests."""
    mean_in, mean_out, total_in, total_out = staging.token_means(run_index)
    return TokenStats(
        input_mean_tokens=mean_in,
        output_mean_tokens=mean_out,
        input_total_tokens=total_in,
        output_total_tokens=total_out,
    )


@dataclass(frozen=True)
class RequestWindow:
    """What staged per-request rows give a run besides latency: counts, window, throughput."""

    rows: int
    ok: int
    start_s: float | None
    duration_s: float | None
    settled: Reconciled
    tokens: TokenStats

    def per_s(self, count: float | None) -> float | None:
        """``count`` over the window from the first send to the last successful end."""
        if not self.duration_s or count is None:
            return None
        return count / self.duration_s

    @property
    def run_fields(self) -> dict[str, Any]:
        """The ServingRun fields every per-request format fills the same way."""
        total_in, total_out = self.tokens.input_total_tokens, self.tokens.output_total_tokens
        return {
            "requests_sent": self.rows,
            "requests_completed": self.ok,
            "requests_failed": self.rows - self.ok,
            "duration_s": self.duration_s,
            "request_throughput_per_s": self.per_s(self.ok),
            "output_token_throughput_per_s": self.per_s(total_out),
            "total_token_throughput_per_s": self.per_s(
                None if total_in is None or total_out is None else total_in + total_out
            ),
            "tokens": self.tokens,
            "per_request_rows": self.rows,
        }


def request_window(staging: Staging | StagedRun, name: str) -> RequestWindow:
    """Counts (refusing a file with no successful request), window, latency and tokens of the
    one run staged, alone or in a batch (messages name the file ``name``); rows need
    ``start_s`` (epoch seconds) and ``e2e_ms``."""
    rows, ok = staging.counts(0)
    require_completed(name, f"{rows} request record(s)", ok)
    first, last = staging.window(0)
    duration = last - first if first is not None and last is not None else None
    return RequestWindow(
        rows, ok, first, duration, reconcile(staging, 0, {}), staged_tokens(staging, 0)
    )


def one_run(format_id: str, record: FileRecord, run: ServingRun, **extra: Any) -> ParsedInput:
    """The ParsedInput of a file that holds exactly one run."""
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, run.tool, run.tool_version, list(extra.pop("file_warnings", []))),
        runs=(run,),
        warnings=run.warnings,
        **extra,
    )


def same_meaning(a: LatencyStats, b: LatencyStats) -> bool:
    """Both distributions measure the same thing, so one can check the other."""
    return a.definition == b.definition and a.weighting == b.weighting


def disagreement(check: AggregateCheck) -> str:
    """A failed summary-versus-rows check in words: the figure, both values, the band."""
    return (
        f"{check.metric} {check.statistic}: the tool reports {check.tool_value:.6g} ms but the "
        f"per-request rows give {check.recomputed_value:.6g} ms (accepted "
        f"{check.lower:.6g}..{check.upper:.6g}; tolerance {TOLERANCE_TEXT})"
    )


def _all_zero(stats: LatencyStats) -> bool:
    """Every figure the tool wrote is exactly 0: what vLLM, SGLang and others write for TPOT
    and ITL when no request had a second token (a prefill-only or one-token run)."""
    values = [getattr(stats, f"{key}_ms") for key in _STAT_KEYS]
    values += list(stats.extra_percentiles_ms.values())
    stated = [v for v in values if v is not None]
    return bool(stated) and all(v == 0 for v in stated)


def not_measured(stats: LatencyStats | None) -> str | None:
    """Why a tool's TPOT or ITL is not a measurement (every statistic exactly 0: no request had
    a second token), or None when it is one. Every reader drops such a figure and says so."""
    if stats is None or stats.metric not in ("tpot", "itl") or not _all_zero(stats):
        return None
    return (
        f"{stats.metric}: the tool wrote 0 ms for every statistic, which is what it writes when "
        "no request produced a second token (a one-token or prefill-only run): not measured, "
        "not 0 ms"
    )


def _non_canonical(stats: LatencyStats) -> str:
    return (
        f"{stats.metric}: kept under the tool's own definition '{stats.definition}' "
        f"({DEFINITIONS[stats.definition]}; weighted per {stats.weighting}); evidencepack "
        f"compares on '{CANONICAL[stats.metric]}' and the file has no per-request data that could "
        "convert it"
    )
