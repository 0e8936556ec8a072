"""NVIDIA aiconfigurator (``aiconfigurator cli``): ``pareto.csv`` and ``best_config_topn.csv``,
aggregated (``agg/``) or disaggregated (``disagg/``, ``(p)``/``(d)`` prefill and decode columns).

Every row is a **simulated** operating point, modelled from aiconfigurator's performance
database, never measured: a reference that can be compared with a measured run of the same
configuration (measured / predicted) but never sizes capacity. Detected by the header: ``model``,
``isl``, ``osl``, ``concurrency``, ``tokens/s/gpu`` and ``tokens/s/user``. ``ttft``, ``tpot`` and
``request_latency`` are ms; ``tokens/s`` is output tokens/s, ``seq/s`` requests/s. ``version``
is the backend's (the perf database's), not aiconfigurator's, which the CSV does not record;
``system`` names the accelerator (``h200_sxm``), ``gemm`` the weights' precision.
"""

from __future__ import annotations

import csv
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from ..base import Format, ParsedInput, Probe, item_id
from ..models import ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references, stats

_NEEDED = ("model", "isl", "osl", "concurrency", "tokens/s/gpu", "tokens/s/user")
_READ = {
    "model", "isl", "osl", "prefix", "concurrency", "request_rate", "ttft", "tpot",
    "request_latency", "seq/s", "tokens/s", "tokens/s/gpu", "tokens/s/user", "num_total_gpus",
    "power_w", "tokens/s/gpu_cluster",
}  # fmt: skip
_PER_SIDE = ("tp", "pp", "dp", "moe_tp", "moe_ep", "workers", "parallel", "gemm", "backend",
             "version", "system")  # fmt: skip
_SIMULATED = (
    "modelled by aiconfigurator from its performance database, not measured: a prediction to "
    "compare with a measured run, never a basis for sizing"
)


def detect(probe: Probe) -> bool:
    """aiconfigurator's ``pareto.csv``/``best_config_topn.csv`` header."""
    header = probe.first if probe.container == "csv" else []
    return bool(header) and header[0] == "model" and all(c in header for c in _NEEDED)


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One simulated reference point per row."""
    try:
        with probe.path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{probe.name}: cannot read the CSV: {exc}") from exc
    header = [c.strip() for c in rows[0]]
    disagg = any(c.startswith("(d)") for c in header)
    sides = ("(p)", "(d)") if disagg else ("",)
    read = _READ | {f"{side}{key}" for side in sides for key in _PER_SIDE}
    unused = sorted(c for c in header if c not in read)
    file_warnings = [_SIMULATED, "the CSV does not record aiconfigurator's version"]
    if unused:
        file_warnings.append("column(s) this reader has no place for were dropped: "
                             + ", ".join(unused))  # fmt: skip
    points: list[ReferencePoint] = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"{probe.name}: line {line}: {len(row)} cells for {len(header)} columns"
            )
        cells = dict(zip(header, (c.strip() for c in row), strict=True))
        points.append(_point(probe, record, len(points), line, cells, disagg))
    if not points:
        raise InputError(f"{probe.name}: line 2: an aiconfigurator CSV without a row")
    return parsed_references(FORMAT.id, record, "aiconfigurator", None, points, file_warnings)


def _point(
    probe: Probe, record: FileRecord, index: int, line: int, cells: dict[str, str], disagg: bool
) -> ReferencePoint:
    def num(column: str) -> float | None:
        cell = cells.get(column, "")
        if not cell:
            return None
        try:
            value = float(cell)
        except ValueError as exc:
            raise InputError(
                f"{probe.name}: line {line}: {column}: not a number: {cell!r}"
            ) from exc
        if value != value or value in (float("inf"), float("-inf")) or value < 0:
            raise InputError(f"{probe.name}: line {line}: {column}: {cell} is not an estimate")
        return value

    def text(column: str) -> str | None:
        # A disaggregated row states each setting per side: the decode side's, else prefill's.
        for key in (f"(d){column}", f"(p){column}") if disagg else (column,):
            if cells.get(key):
                return cells[key]
        return None

    gpus = num("num_total_gpus")
    concurrency = num("concurrency")
    warnings: list[str] = []
    if disagg and {cells.get("(p)system"), cells.get("(p)version")} != {
        cells.get("(d)system"),
        cells.get("(d)version"),
    }:
        warnings.append("prefill and decode differ in system or backend version: decode's kept")
    parallelism: dict[str, int | str | bool] = {}
    for side in ("(p)", "(d)") if disagg else ("",):
        for key in ("tp", "pp", "dp", "moe_tp", "moe_ep", "workers"):
            if (value := num(f"{side}{key}")) is not None:
                parallelism[f"{side}{key}"] = int(value)
    mode = "disagg" if disagg else "agg"
    settings: dict[str, Any] = {
        k: v for k in ("power_w", "tokens/s/gpu_cluster", "prefix") if (v := num(k)) is not None
    }
    return ReferencePoint(
        point_id=item_id(record, index),
        index=index,
        format_id=FORMAT.id,
        source_tool="aiconfigurator",
        provenance="simulated",
        label=f"{mode} {text('parallel') or ''} concurrency {int(concurrency or 0)}".replace(
            "  ", " "
        ),
        accelerator=text("system"),
        accelerator_count=int(gpus) if gpus else None,
        model_name=cells.get("model") or None,
        precision=text("gemm"),
        runtime_name=text("backend"),
        runtime_version=text("version"),
        parallelism=parallelism,
        load=ReferenceLoad(
            kind="modelled",
            concurrency=int(concurrency) if concurrency else None,
            request_rate_per_s=num("request_rate"),
            input_tokens=num("isl"),
            output_tokens=num("osl"),
            workload=f"{mode} serving, fixed ISL/OSL",
        ),
        figures=ReferenceFigures(
            output_throughput_per_accelerator=num("tokens/s/gpu"),
            output_throughput=num("tokens/s"),
            request_throughput_per_s=num("seq/s"),
            interactivity={"mean": v} if (v := num("tokens/s/user")) is not None else {},
            ttft=stats("ttft", {"mean": num("ttft")}, scale=1.0),
            tpot=stats("tpot", {"mean": num("tpot")}, scale=1.0),
            e2e=stats("e2e", {"mean": num("request_latency")}, scale=1.0),
        ),
        settings=settings,
        warnings=tuple(warnings),
    )


FORMAT = Format("aiconfigurator-csv", "references", "aiconfigurator", detect, parse)
