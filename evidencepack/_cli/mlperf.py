"""``evidencepack mlperf``: import, list and show MLPerf Inference results."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EXIT_FAILED, EXIT_OK
from ._common import Command, Handler, Parser, add_command, emit, group_help, json_argument


@dataclass(frozen=True)
class MlperfImportOptions:
    path: Path
    db: Path
    round: str | None
    benchmark: str | None
    json: bool


@dataclass(frozen=True)
class MlperfListOptions:
    db: Path
    benchmark: str | None
    scenario: str | None
    accelerator: str | None
    json: bool


@dataclass(frozen=True)
class MlperfShowOptions:
    db: Path
    key: str
    json: bool


def _progress_bar(done: int, total: int, location: str) -> None:
    width = 30
    filled = width * done // total
    tail = location[-50:]
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {tail:<50}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _cmd_mlperf_import(args: argparse.Namespace) -> int:
    from ..api.mlperf import mlperf_import
    from ..api.terminal import progress_wanted

    opts = MlperfImportOptions(
        Path(args.path), Path(args.db), args.round, args.benchmark, args.json
    )
    bar = _progress_bar if progress_wanted(sys.stderr, as_json=opts.json) else None
    report = mlperf_import(
        opts.path, opts.db, round=opts.round, benchmark=opts.benchmark, progress=bar
    )
    lines = [
        f"{opts.path}: imported {len(report.imported)} result(s), "
        f"{len(report.unchanged)} already in {opts.db}, {len(report.rejected)} rejected, "
        f"{len(report.skipped)} skipped"
    ]
    for title, items in (("rejected", report.rejected), ("skipped", report.skipped)):
        if items:
            lines.append(f"{title}:")
        for item in items:
            lines.append(f"  {item.location}")
            lines.extend(f"    {problem}" for problem in item.problems)
    emit(report.model_dump(mode="json"), as_json=opts.json, text="\n".join(lines))
    return EXIT_FAILED if report.rejected else EXIT_OK


def _cmd_mlperf_list(args: argparse.Namespace) -> int:
    from ..api.mlperf import mlperf_list
    from ..api.options import MlperfListOptions as ListOptions

    opts = MlperfListOptions(
        Path(args.db), args.benchmark, args.scenario, args.accelerator, args.json
    )
    listing = mlperf_list(
        opts.db,
        ListOptions(benchmark=opts.benchmark, scenario=opts.scenario, accelerator=opts.accelerator),
    )
    rows, training, curves = listing.results, listing.training, listing.endpoints
    text = _table(rows) if rows or not (training or curves) else ""
    if training:
        text = (text + "\n\n" if text else "") + _training_table(training)
    if curves:
        text = (text + "\n\n" if text else "") + _endpoints_table(curves)
    emit(listing.model_dump(mode="json"), as_json=opts.json, text=text)
    return EXIT_OK


def _cmd_mlperf_show(args: argparse.Namespace) -> int:
    from ..api.mlperf import mlperf_show

    opts = MlperfShowOptions(Path(args.db), args.key, args.json)
    result, text = mlperf_show(opts.db, opts.key)
    emit(result.model_dump(mode="json"), as_json=opts.json, text=text)
    return EXIT_OK


_UNITS = {"Tokens/s": "tok/s", "Samples/s": "samples/s", "Queries/s": "queries/s"}
_TABLE_WIDTH = 100


def _table(rows: Sequence[Any]) -> str:
    """Results grouped by submission and system (the key up to the benchmark), one line each,
    fitting 100 columns; ``mlperf show KEY`` has everything else."""

    def fmt(value: float | None, digits: int = 6) -> str:
        return "-" if value is None else f"{value:.{digits}g}"

    header: tuple[str, ...] = (
        "benchmark/scenario",
        "validity",
        "checks",
        "headline",
        "TTFT",
        "TPOT",
        "accel",
    )
    with_power = any(r.power_metric is not None for r in rows)
    if with_power:
        header = (*header, "power")
    groups: dict[str, list[tuple[str, ...]]] = {}
    for r in rows:
        parts = r.key.split("/")
        cut = -2 if len(parts) > 2 else -1  # loadgen/<folder>: the folder alone
        group, leaf = "/".join(parts[:cut]), "/".join(parts[cut:])
        if len(parts) > 2 and parts[-1] != r.scenario:
            leaf += f" ({r.scenario})"  # v5.0: llama2-70b-interactive-99/Server is Interactive
        unit = r.headline_unit or ""
        headline = fmt(r.headline_value) + (" " + _UNITS.get(unit, unit) if unit else "")
        checks = "FAIL" if not r.checks_ok else ("ok" if r.round else "not run")
        cells: tuple[str, ...] = (
            leaf,
            r.validity,
            checks,
            headline,
            fmt(r.ttft_p99_ms, 4),
            fmt(r.tpot_p99_ms, 4),
            "-" if r.accelerators_total is None else str(r.accelerators_total),
        )
        if with_power:
            power_unit = {"watts": "W", "millijoules": "mJ"}.get((r.power_unit or "").lower(), "")
            cells = (*cells, f"{fmt(r.power_metric, 5)} {power_unit}".strip())
        groups.setdefault(group, []).append(cells)
    table = [header] + [line for lines in groups.values() for line in lines]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    widths[0] = max(12, min(widths[0], _TABLE_WIDTH - 2 - sum(w + 2 for w in widths[1:])))

    def line(row: tuple[str, ...]) -> str:
        cells = (_shorten(cell, w).ljust(w) for cell, w in zip(row, widths, strict=True))
        return "  " + "  ".join(cells).rstrip()

    out = [line(header)]
    for group, lines in groups.items():
        out.append(_shorten(group + "/", _TABLE_WIDTH))
        out.extend(line(row) for row in lines)
    out.append(
        f"{len(rows)} result(s); checks: ok (the round's rules passed), FAIL, not run (no "
        "round); TTFT, TPOT: p99 in ms"
    )
    if with_power:
        out.append("power: the system's average W, or mJ per query (SingleStream, MultiStream)")
    out.append("the key is the group line + benchmark/scenario; 'mlperf show KEY' says why")
    return "\n".join(out)


def _training_table(rows: Sequence[Any]) -> str:
    """MLPerf Training results, apart from inference: time to train and the runs it used."""
    out = ["MLPerf Training (time to train; a situational reference, not serving capacity):"]
    for r in rows:
        ttt = "-" if r.time_to_train_min is None else f"{r.time_to_train_min:.4g} min"
        accel = "-" if r.accelerators_total is None else str(r.accelerators_total)
        out.append(_shorten(r.key, _TABLE_WIDTH))
        out.append(
            f"  {ttt:<12} runs {r.runs_used}/{r.runs_total} used  accel {accel:<5} "
            f"checks {'ok' if r.checks_ok else 'FAIL'}"
        )
    out.append(f"{len(rows)} training result(s); 'mlperf show KEY' lists each run")
    return "\n".join(out)


def _endpoints_table(rows: Sequence[Any]) -> str:
    """MLPerf Endpoints curves: points, provisioned power and the rules that failed."""
    out = ["MLPerf Endpoints (curves over concurrency; references, measured elsewhere):"]
    for r in rows:
        power = "-" if r.power_watts is None else f"{r.power_watts:,.0f} W ({r.power_tier})"
        accel = "-" if r.accelerators_total is None else str(r.accelerators_total)
        checks = "ok" if not r.checks_failed else f"{r.checks_failed} FAIL"
        out.append(_shorten(r.key, _TABLE_WIDTH))
        out.append(
            f"  {r.layout:<5} {r.points:>2} points  accel {accel:<5} power {power}  rules {checks}"
        )
    out.append(f"{len(rows)} curve(s); 'mlperf show KEY' gives each point and rule")
    return "\n".join(out)


def _shorten(text: str, width: int) -> str:
    """Middle-elided to ``width`` (only names longer than a whole line are cut)."""
    if len(text) <= width:
        return text
    keep = width - 3
    return text[: keep - keep // 2] + "..." + text[len(text) - keep // 2 :]


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command("mlperf", group_help, "import, list and show MLPerf Inference results")
    mlperf = p.add_subparsers(dest="mlperf_command", metavar="ACTION", parser_class=Parser)

    def action(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        return add_command(mlperf, name, handler, help_text)

    q = action(
        "import",
        _cmd_mlperf_import,
        "read a results tree, one submission or a LoadGen output folder into the store",
    )
    q.add_argument("path", metavar="PATH", help="a results tree, a submission or a LoadGen folder")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    q.add_argument(
        "--round",
        metavar="ROUND",
        help="check against this round's rules (a LoadGen run of your own needs it)",
    )
    q.add_argument(
        "--benchmark", metavar="B", help="the benchmark of a LoadGen folder whose name lacks it"
    )
    json_argument(q, "print the report as JSON")

    q = action("list", _cmd_mlperf_list, "list the MLPerf results in the store, ordered by key")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    q.add_argument("--benchmark", metavar="B", help="only this benchmark (or model family)")
    q.add_argument("--scenario", metavar="S", help="only this scenario")
    q.add_argument("--accelerator", metavar="A", help="only accelerators whose name contains A")
    json_argument(q, "print the results as JSON")

    q = action(
        "show",
        _cmd_mlperf_show,
        "one result in full: figures, stack, and each rule applied with its limit and value",
    )
    q.add_argument("key", metavar="KEY", help="a result key, as 'mlperf list' groups them")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    json_argument(q, "print the result as JSON (schemas/mlperf-result.v1.schema.json)")
