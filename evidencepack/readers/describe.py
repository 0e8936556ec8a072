"""Plain-text description of a ParsedInput, for ``evidencepack inspect``."""

from __future__ import annotations

from pathlib import Path

from .base import ParsedInput
from .models import Goodput, LatencyStats, ReferencePoint, ScoreSet, ServingRun

# A run folder (what ``measure`` writes; any LoadGen output folder) as a spec's ``runs`` entry
# reads it: by its LoadGen detail log, with the client's request rows beside it; the summary is
# cross-checked against the log. The names match ``intake/intake.py``'s.
_RUN_FOLDER_READ = ("mlperf_log_detail.txt", "mlperf_log_summary.txt", "requests.jsonl")


def run_folder_files(folder: Path) -> list[Path]:
    """The files of a run folder that ``inspect`` reads, in the order a check uses them;
    empty when ``folder`` holds none of them (it is then no run folder)."""
    return [folder / name for name in _RUN_FOLDER_READ if (folder / name).is_file()]


SHOWN_RUNS = 20
"""``inspect`` describes at most this many runs of one file line by line; a file of thousands
of appended runs (``vllm bench serve --append-result``) says how many more it holds."""


def describe(parsed: ParsedInput, *, max_runs: int = SHOWN_RUNS) -> list[str]:
    """The lines ``evidencepack inspect`` prints for one parsed file (format, tool, digest, ...);
    at most ``max_runs`` runs in full, then a count of the rest (``--json`` lists every run)."""
    record = parsed.file
    tool = record.tool or "?"
    version = f" {record.tool_version}" if record.tool_version else ""
    lines = [
        f"{record.path}: {parsed.format_id} ({tool}{version}); {record.size_bytes} bytes, "
        f"sha256 {record.sha256}"
    ]
    lines += [line for run in parsed.runs[:max_runs] for line in _run(run)]
    if len(parsed.runs) > max_runs:
        more = len(parsed.runs) - max_runs
        lines.append(f"  ... and {more:,} more runs (--json lists every run)")
    lines += [line for score_set in parsed.score_sets for line in _set(score_set)]
    lines += [line for point in parsed.references for line in _reference(point)]
    if not parsed.runs and not parsed.score_sets and not parsed.references:
        lines.append("  holds no serving run and no score set")
    shown = {w for run in parsed.runs for w in run.warnings}
    shown |= {w for s in parsed.score_sets for w in s.warnings}
    shown |= {f"{p.point_id}: {w}" for p in parsed.references for w in p.warnings}
    lines += [f"  warning: {w}" for w in parsed.warnings if w not in shown and not _prefixed(w)]
    return lines


def _prefixed(warning: str) -> bool:
    return "#" in warning.split(":", 1)[0]


def _num(value: float | None, digits: int = 4) -> str:
    return "?" if value is None else f"{value:.{digits}g}"


def _run(run: ServingRun) -> list[str]:
    who = run.identity
    load = run.load
    load_text: str = load.kind or "load unknown"
    if load.request_rate_per_s:
        load_text += f" {_num(load.request_rate_per_s)} req/s" + (
            f" ({load.arrival})" if load.arrival else ""
        )
    if load.concurrency:
        load_text += f" concurrency {load.concurrency}"
    lines = [
        f"  run {run.run_id} [{run.layout or run.tool}]: model {who.model_name or '?'}; "
        f"{load_text}; {_num(run.requests_completed, 10)} completed, "
        f"{_num(run.requests_failed, 10)} failed; {_num(run.request_throughput_per_s)} req/s, "
        f"{_num(run.output_token_throughput_per_s)} output tok/s"
        + (
            f", {_num(run.total_token_throughput_per_s)} total tok/s"
            if run.total_token_throughput_per_s is not None
            else ""
        )
        + (f"; {run.per_request_rows} per-request rows" if run.per_request_rows else "")
    ]
    lines += ["    " + _stats(s) for s in (run.ttft, run.tpot, run.itl, run.e2e) if s is not None]
    if run.goodput is not None:
        lines.append("    " + _goodput(run.goodput))
    lines += [f"    {f.severity} {f.kind}: {f.detail}" for f in run.findings]
    failed = [c for c in run.checks if not c.ok]
    if run.checks:
        lines.append(
            f"    checks against the tool's aggregates: {len(run.checks) - len(failed)} of "
            f"{len(run.checks)} agree"
        )
    lines += [f"    warning: {w}" for w in run.warnings]
    return lines


def _goodput(g: Goodput) -> str:
    """Goodput on its own line, with the SLOs that define it: never beside the throughputs."""
    rates = [f"{_num(g.requests_per_s)} req/s"] if g.requests_per_s is not None else []
    if g.tokens_per_s is not None:
        rates.append(f"{_num(g.tokens_per_s)} tok/s")
    counted = ""
    if g.good_requests is not None:
        of = f" of {g.judged_requests}" if g.judged_requests is not None else ""
        counted = f"; {g.good_requests}{of} requests met every SLO"
    if g.slos:
        limits = ", ".join(f"{name} <= {_num(limit)}" for name, limit in g.slos.items())
        slos = f"SLOs {limits} ({g.slo_source})"
    else:
        slos = f"SLOs {g.slo_source or 'not stated in the file'}"
    return f"goodput {', '.join(rates) or '?'}{counted}; {slos}; not a throughput"


def _stats(s: LatencyStats) -> str:
    mark = "" if s.canonical else "  (NOT the compared definition)"
    return (
        f"{s.metric.upper():4} mean {_num(s.mean_ms)} p50 {_num(s.p50_ms)} p90 {_num(s.p90_ms)} "
        f"p99 {_num(s.p99_ms)} ms [{s.definition}, per {s.weighting}, {s.source}]{mark}"
    )


def _set(s: ScoreSet) -> list[str]:
    what = " ".join(
        part
        for part in (
            f"task {s.task}" if s.task else None,
            f"scorer {s.scorer}" if s.scorer else None,
            f"metric {s.metric}",
            f"filter {s.filter}" if s.filter else None,
        )
        if part
    )
    tool_value = f"; tool value {_num(s.value)}" if s.value is not None else ""
    stderr = f" ± {_num(s.stderr)}" if s.stderr is not None else ""
    lines = [
        f"  score set {s.set_id}: {what}; {s.n_items} items"
        + (f", {s.kind}" if s.kind else "")
        + (f", item mean {_num(s.mean_item_score)}" if s.mean_item_score is not None else "")
        + tool_value
        + stderr
        + f"; model {s.identity.model_name or '?'}"
    ]
    lines += [f"    warning: {w}" for w in s.warnings]
    return lines


def _reference(p: ReferencePoint) -> list[str]:
    """A reference point: where it comes from, on what, under which load, and its figures."""
    kind = "SIMULATED" if p.provenance == "simulated" else "measured elsewhere"
    stack = " ".join(x for x in (p.runtime_name, p.runtime_version) if x) or "?"
    hardware = f"{p.accelerator_count or '?'}x {p.accelerator or '?'}"
    load: str = p.load.kind or "load unknown"
    if p.load.concurrency:
        load += f" concurrency {p.load.concurrency}"
    if p.load.request_rate_per_s:
        load += f" {_num(p.load.request_rate_per_s)} req/s"
    f = p.figures
    lines = [
        f"  reference {p.point_id} ({kind}, {p.source_tool}"
        + (f", {p.publisher}" if p.publisher else "")
        + (f", {p.date}" if p.date else "")
        + f"): {hardware}; model {p.model_name or '?'} {p.precision or '?'}; stack {stack}; "
        f"{load}; {_num(f.throughput_per_accelerator)} tok/s per accelerator, "
        f"{_num(f.output_throughput_per_accelerator)} output tok/s per accelerator, "
        f"{_num(f.output_throughput)} output tok/s, interactivity "
        f"{_num(f.interactivity.get('mean'))} tok/s/user"
    ]
    lines += ["    " + _stats(s) for s in (f.ttft, f.tpot, f.itl, f.e2e) if s is not None]
    if f.energy_per_output_token_joules is not None or f.average_power_watts is not None:
        lines.append(
            f"    energy {_num(f.energy_per_output_token_joules)} J per output token, "
            f"{_num(f.average_power_watts)} W average (method {f.energy_method or '?'}: "
            f"{f.energy_scope or 'scope not stated'})"
        )
    lines += [f"    warning: {w}" for w in p.warnings]
    return lines
