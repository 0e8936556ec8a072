"""GPU telemetry of a GenAI-Perf / AIPerf profile export as measured accelerator energy: one
reference point whose energy per output token is measured by the GPUs' own counters
(``energy_method`` ``accelerator``); the DCGM reader (``gpu_telemetry.py``) shares its bounds.

GenAI-Perf (``telemetry_stats`` beside its metrics): per GPU index, statistics of
``energy_consumption`` (a cumulative counter in its unit: its max minus min is the energy over
the collection window) and ``gpu_power_usage``; the tokens are the run's own (requests x mean
output length). The file names no GPU model, and its window is not recorded: the counter's
energy over the average power estimates it, and a window unlike the run's is a warning.

AIPerf (``--gpu-telemetry``: ``telemetry_data`` in ``profile_export_aiperf.json``): per
endpoint and GPU, its ``gpu_name``, ``gpu_uuid``, ``hostname`` and statistics of
``nvidia_energy_consumption`` (or ``amd_energy_consumption``; MJ, cumulative: max minus min)
and ``nvidia_power_usage`` (``amd_power``); the window is ``summary.start_time`` to
``end_time``, the run's time its ``benchmark_duration`` and its tokens ``total_output_tokens``.

GPUs that did no work in the window (no utilisation, where the file states it) are left out and
named. Nothing here is summed with a wall-power figure: the scope says what is covered.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._json import Node, text_or_none
from ..base import ParsedInput, Probe, item_id
from ..models import ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references
from .gpu_telemetry import ENERGY_UNITS, MAX_GPUS, WINDOW_TOLERANCE, scope


def has_telemetry(doc: Any) -> bool:
    """Whether a GenAI-Perf / AIPerf profile export holds GPU energy telemetry."""
    if not isinstance(doc, dict):
        return False
    stats = doc.get("telemetry_stats")
    if isinstance(stats, dict) and isinstance(stats.get("energy_consumption"), dict):
        return True
    data = doc.get("telemetry_data")
    return isinstance(data, dict) and isinstance(data.get("endpoints"), dict)


def parse_profile_telemetry(probe: Probe, record: FileRecord) -> ParsedInput:
    """One reference point: the energy the busy GPUs' counters measured over the telemetry
    window, per output token of the run."""
    root = Node(probe.first, probe.name)
    if root.obj("telemetry_data") is not None and root.obj("telemetry_stats") is None:
        return _parse_aiperf(probe, record, root)
    stats = root.obj("telemetry_stats")
    energy_node = stats.obj("energy_consumption") if stats is not None else None
    if stats is None or energy_node is None:
        raise InputError("no telemetry_stats.energy_consumption", file=probe.name)
    unit = (energy_node.str_("unit") or "").lower()
    scale = ENERGY_UNITS.get(unit)
    if scale is None:
        raise InputError(
            f"telemetry_stats.energy_consumption: unit {unit!r} is none of "
            f"{', '.join(ENERGY_UNITS)}",
            file=probe.name,
        )
    gpus = [k for k in energy_node.value if k != "unit"]
    if not gpus or len(gpus) > MAX_GPUS:
        raise InputError(
            f"telemetry_stats.energy_consumption: {len(gpus)} GPUs (1 to {MAX_GPUS} expected)",
            file=probe.name,
        )
    util = stats.obj("gpu_utilization")
    power = stats.obj("gpu_power_usage")
    joules, watts, busy = {}, {}, []
    for gpu in gpus:
        node = energy_node.obj(gpu)
        low, high = (node.num("min"), node.num("max")) if node is not None else (None, None)
        if low is None or high is None or high < low:
            raise InputError(
                f"telemetry_stats.energy_consumption.{gpu}: min and max readings are needed",
                file=probe.name,
            )
        joules[gpu] = (high - low) * scale
        gpu_power = power.obj(gpu) if power is not None else None
        watts[gpu] = gpu_power.num("avg") if gpu_power is not None else None
        gpu_util = util.obj(gpu) if util is not None else None
        if gpu_util is None or (gpu_util.num("max") or 0) > 0:
            busy.append(gpu)
    counted = busy or gpus
    left_out = [g for g in gpus if g not in counted]
    energy = sum(joules[g] for g in counted)
    requests = root.obj("request_count")
    osl = root.obj("output_sequence_length")
    rate = root.obj("request_throughput")
    n = requests.num("avg") if requests is not None else None
    mean_osl = osl.num("avg") if osl is not None else None
    tokens = n * mean_osl if n and mean_osl else None
    run_s = n / r if n and rate is not None and (r := rate.num("avg")) else None
    avg_watts = [w for g in counted if (w := watts[g])]
    window_s = energy / sum(avg_watts) if avg_watts and len(avg_watts) == len(counted) else None
    warnings = [
        "GenAI-Perf's telemetry names no GPU model: where it is cited, the candidate's "
        "declared hardware stands in",
    ]
    warnings += _window_warning(window_s, run_s, energy, sum(avg_watts), tokens)
    config = root.obj("input_config")
    names = config.value.get("model_names") if config is not None else None
    model = text_or_none(names[0]) if isinstance(names, list) and names else None
    point = ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=AIPERF_TELEMETRY_ID,
        source_tool="genai-perf",
        tool_version=text_or_none(probe.first.get("aiperf_version")),
        provenance="measured_elsewhere",
        publisher="GenAI-Perf GPU telemetry (the team's own run)",
        label=f"{len(counted)} GPU(s) {model or ''} {int(n or 0)} requests".replace("  ", " "),
        accelerator=None,
        accelerator_count=len(counted),
        model_name=model,
        load=ReferenceLoad(output_tokens=mean_osl),
        figures=ReferenceFigures(
            duration_s=run_s,
            energy_per_output_token_joules=energy / tokens if tokens else None,
            average_power_watts=sum(avg_watts) if avg_watts else None,
            energy_method="accelerator",
            energy_scope=scope(len(counted), left_out, "the energy counter's max minus min"),
        ),
        warnings=tuple(warnings),
    )
    return parsed_references(AIPERF_TELEMETRY_ID, record, "genai-perf", None, [point], [])


def _window_warning(
    window_s: float | None,
    run_s: float | None,
    joules: float,
    watts: float,
    tokens: float | None,
    *,
    stated: bool = False,
) -> list[str]:
    """A telemetry window that does not cover the run, or covers much more than it (``stated``:
    the file gives the window's start and end; else it is the energy over the average power)."""
    if window_s is None or run_s is None:
        return ["the telemetry window is not known: its energy may not be the run's"]
    how = (
        f"{window_s:.0f} s, from its start to its end time"
        if stated
        else f"~{window_s:.0f} s: the counters' {joules:,.0f} J over {watts:,.1f} W average"
    )
    if window_s < run_s * (1 - WINDOW_TOLERANCE):
        return [
            f"the telemetry window ({how}) does not cover the run ({run_s:.0f} s): the energy "
            "misses part of the run"
        ]
    if window_s > run_s * (1 + WINDOW_TOLERANCE):
        alt = (
            f"; at the average power over the run's time it would be "
            f"{watts * run_s / tokens:.3g} J per output token"
            if tokens
            else ""
        )
        return [
            f"the telemetry window ({how}) is {window_s / run_s:.1f}x the run's {run_s:.0f} s: the "
            "energy includes work outside the run, so the figure per token is high" + alt
        ]
    return []


AIPERF_TELEMETRY_ID = "genai-perf-telemetry"
"""The format id of a profile export read for its GPU telemetry (cited under references)."""


_ENERGY_KEYS = ("nvidia_energy_consumption", "amd_energy_consumption", "energy_consumption")
_POWER_KEYS = ("nvidia_power_usage", "amd_power", "gpu_power_usage")
_UTIL_KEYS = ("nvidia_gpu_utilization", "amd_gfx_activity", "gpu_utilization")


def _first(metrics: Node, keys: tuple[str, ...]) -> Node | None:
    return next((n for k in keys if (n := metrics.obj(k)) is not None), None)


def _seconds(start: str | None, end: str | None) -> float | None:
    """The seconds between two ISO 8601 times (None when either is missing or unreadable)."""
    try:
        first = dt.datetime.fromisoformat(start or "")
        last = dt.datetime.fromisoformat(end or "")
    except ValueError:
        return None
    return (last - first).total_seconds()


def _parse_aiperf(probe: Probe, record: FileRecord, root: Node) -> ParsedInput:
    """AIPerf's ``telemetry_data``: each endpoint's GPUs, named, over the summary's window."""
    data = root.obj("telemetry_data")
    endpoints = data.obj("endpoints") if data is not None else None
    if data is None or endpoints is None:
        raise InputError("telemetry_data.endpoints is missing", file=probe.name)
    gpus: list[tuple[str, Node]] = []
    for name in endpoints.value:
        node = endpoints.obj(name)
        listed = node.obj("gpus") if node is not None else None
        if listed is not None:
            gpus += [(f"{name}/{k}", g) for k in listed.value if (g := listed.obj(k)) is not None]
    if not gpus or len(gpus) > MAX_GPUS:
        raise InputError(
            f"telemetry_data: {len(gpus)} GPUs (1 to {MAX_GPUS} expected)", file=probe.name
        )
    joules: dict[str, float] = {}
    watts: dict[str, float | None] = {}
    names: dict[str, str | None] = {}
    busy = []
    for key, gpu in gpus:
        metrics = gpu.obj("metrics")
        energy = _first(metrics, _ENERGY_KEYS) if metrics is not None else None
        if metrics is None or energy is None:
            raise InputError(
                f"telemetry_data: GPU {key} has no energy consumption statistics",
                file=probe.name,
            )
        scale = ENERGY_UNITS.get((energy.str_("unit") or "").lower())
        low, high = energy.num("min"), energy.num("max")
        if scale is None or low is None or high is None or high < low:
            raise InputError(
                f"telemetry_data: GPU {key}: its energy statistics need a known unit "
                f"({', '.join(ENERGY_UNITS)}) and min <= max",
                file=probe.name,
            )
        joules[key] = (high - low) * scale
        power = _first(metrics, _POWER_KEYS)
        watts[key] = power.num("avg") if power is not None else None
        names[key] = gpu.str_("gpu_name")
        util = _first(metrics, _UTIL_KEYS)
        if util is None or (util.num("max") or 0) > 0:
            busy.append(key)
    counted = busy or [k for k, _ in gpus]
    left_out = [k for k, _ in gpus if k not in counted]
    energy_j = sum(joules[g] for g in counted)
    summary = data.obj("summary")
    window_s = (
        _seconds(summary.str_("start_time"), summary.str_("end_time"))
        if summary is not None
        else None
    )
    duration = root.obj("benchmark_duration")
    run_s = duration.num("avg") if duration is not None else None
    total = root.obj("total_output_tokens")
    tokens = total.num("avg") if total is not None else None
    models = sorted({n for g in counted if (n := names[g])})
    warnings = []
    if len(models) > 1:
        warnings.append(f"the counted GPUs are of several models: {', '.join(models)}")
    avg_watts = [w for g in counted if (w := watts[g])]
    warnings += _window_warning(window_s, run_s, energy_j, sum(avg_watts), tokens, stated=True)
    config = root.obj("input_config")
    model = None
    if config is not None:
        value = config.path("models", "items", 0, "name").value
        model = value if isinstance(value, str) and value else None
    point = ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=AIPERF_TELEMETRY_ID,
        source_tool="aiperf",
        tool_version=text_or_none(probe.first.get("aiperf_version")),
        provenance="measured_elsewhere",
        publisher="AIPerf GPU telemetry (the team's own run)",
        date=summary.str_("start_time") if summary is not None else None,
        label=f"{len(counted)} x {models[0] if len(models) == 1 else 'GPU'} {model or ''}".strip(),
        accelerator=models[0] if len(models) == 1 else None,
        accelerator_count=len(counted),
        model_name=model,
        figures=ReferenceFigures(
            duration_s=run_s,
            energy_per_output_token_joules=energy_j / tokens if tokens else None,
            average_power_watts=sum(avg_watts) if avg_watts else None,
            energy_method="accelerator",
            energy_scope=scope(len(counted), left_out, "the energy counter's max minus min"),
        ),
        warnings=tuple(warnings),
    )
    return parsed_references(AIPERF_TELEMETRY_ID, record, "aiperf", None, [point], [])
