"""GPU telemetry as measured accelerator energy: DCGM exporter scrapes and the GPU telemetry of a
GenAI-Perf / AIPerf profile export, each read into one reference point whose energy per output
token is measured by the GPUs' own counters (``energy_method`` ``accelerator``).

DCGM (``dcgm-exporter``'s Prometheus text, saved from ``/metrics`` or a federation dump): samples
``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`` (a counter, mJ since the driver loaded) and
``DCGM_FI_DEV_POWER_USAGE`` (W), labelled ``gpu``, ``UUID``, ``modelName``, ``Hostname``. A
window needs two readings at least, so every sample carries its Prometheus timestamp (ms). A
GPU's energy over the window is its counter's last minus first reading; a GPU without the
counter has its power samples integrated over time (trapezoids). Output tokens come from the
serving engine's own counter scraped in the same file (``vllm:generation_tokens_total``,
``sglang:generation_tokens_total``, ``llamacpp:tokens_predicted_total``,
``tgi_request_generated_tokens_sum``); without one, the energy is known but not per token.

GPUs that did no work in the window (no utilisation, where the file states it) are left out and
named. Nothing here is summed with a wall-power figure: the scope says what is covered. The
profile exports' telemetry (GenAI-Perf, AIPerf) is read by ``profile_telemetry.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...core.provenance import FileRecord
from ...errors import InputError
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id
from ..models import ReferenceFigures, ReferenceLoad, ReferencePoint
from ._reference import parsed_references

MAX_LINES = 2_000_000
"""Lines of a DCGM text file read at most (a scrape of 8 GPUs is ~400 lines)."""
MAX_GPUS = 4096
"""GPUs one telemetry file may describe."""
MAX_SAMPLES_PER_SERIES = 100_000
"""Readings of one series kept at most (one a second for a day)."""
WINDOW_TOLERANCE = 0.10
"""A telemetry window within +-10% of the run's duration needs no remark."""

ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
POWER = "DCGM_FI_DEV_POWER_USAGE"
UTIL = "DCGM_FI_DEV_GPU_UTIL"
TOKEN_COUNTERS = (
    "vllm:generation_tokens_total",
    "sglang:generation_tokens_total",
    "llamacpp:tokens_predicted_total",
    "tgi_request_generated_tokens_sum",
)
"""The serving engines' own counters of generated tokens (see ``measure_server_metrics``)."""
ENERGY_UNITS = {"mj": 1e6, "kj": 1e3, "j": 1.0, "wh": 3600.0, "kwh": 3.6e6}
"""GenAI-Perf's energy units -> joules (its ``MJ`` is megajoules; DCGM's raw mJ is converted
to MJ by GenAI-Perf before it writes the file)."""
_SAMPLE = re.compile(
    r"^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)"
    r"(?:\s+(?P<ts>-?\d+))?\s*$"
)
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def scope(counted: int, left_out: list[str], how: str) -> str:
    """What an energy figure covers: the GPUs counted, how, and those left out (no work)."""
    out = f"the {counted} GPU(s) that worked in the window only (their own counters, {how})"
    if left_out:
        out += f"; left out, idle: GPU {', '.join(left_out)}"
    return out


# -- DCGM exporter text ------------------------------------------------------------------------


def detect_dcgm(probe: Probe) -> bool:
    """Prometheus text holding DCGM energy or power samples (its label commas can make it look
    like CSV to the container probe, so the bytes decide)."""
    if probe.container not in ("text", "csv"):
        return False
    head = probe.head.decode("utf-8", "replace")
    return re.search(rf"^(?:{ENERGY}|{POWER})\{{", head, re.MULTILINE) is not None


@dataclass
class _Series:
    labels: dict[str, str]
    readings: list[tuple[int, float]] = field(default_factory=list)


def _labels(text: str) -> dict[str, str] | None:
    """A sample's labels, or None when they are not ``key="value"`` pairs."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        match = _LABEL.match(text, pos)
        if match is None:
            return None
        value = match.group(2).replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        out[match.group(1)] = value
        pos = match.end()
    return out


def _samples(probe: Probe) -> Iterator[tuple[int, str, dict[str, str], float, int | None]]:
    """(line, name, labels, value, timestamp ms) of every sample of the file."""
    with probe.path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, 1):
            if number > MAX_LINES:
                raise InputError(f"more than {MAX_LINES:,} lines", file=probe.name)
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            match = _SAMPLE.match(line)
            if match is None:
                raise InputError(
                    f"line {number}: not a Prometheus sample (name{{labels}} value timestamp)",
                    file=probe.name,
                    where=f"line {number}",
                )
            name = match.group("name")
            if name not in (ENERGY, POWER, UTIL, *TOKEN_COUNTERS):
                continue
            where = f"line {number}"
            labels = _labels(match.group("labels") or "")
            if labels is None:
                raise InputError(
                    f'{where}: a label of {name} is not key="value"', file=probe.name, where=where
                )
            try:
                value = float(match.group("value"))
            except ValueError:
                raise InputError(
                    f"{where}: {name}'s value {match.group('value')!r} is not a number",
                    file=probe.name,
                    where=where,
                ) from None
            if not math.isfinite(value) or value < 0:
                raise InputError(
                    f"{where}: {name} is {value}, not a finite reading >= 0",
                    file=probe.name,
                    where=where,
                )
            ts = match.group("ts")
            yield number, name, labels, value, int(ts) if ts is not None else None


def _gpu_key(labels: dict[str, str]) -> str:
    gpu = labels.get("UUID") or labels.get("gpu") or "?"
    host = labels.get("Hostname")
    return f"{host}/{gpu}" if host else gpu


def parse_dcgm(probe: Probe, record: FileRecord) -> ParsedInput:
    """One reference point: the GPUs' energy over the scrapes' window, per output token where the
    engine's token counter was scraped too."""
    series: dict[tuple[str, str], _Series] = {}
    untimed, first_untimed = 0, 0
    for number, name, labels, value, ts in _samples(probe):
        if ts is None:
            untimed += 1
            if untimed == 1:
                first_untimed = number
            continue
        key = (name, _gpu_key(labels) if name.startswith("DCGM_") else repr(sorted(labels.items())))
        found = series.setdefault(key, _Series(labels))
        if len(found.readings) >= MAX_SAMPLES_PER_SERIES:
            raise InputError(
                f"line {number}: more than {MAX_SAMPLES_PER_SERIES:,} readings of one {name} "
                "series",
                file=probe.name,
            )
        found.readings.append((ts, value))
    gpus = sorted({gpu for name, gpu in series if name in (ENERGY, POWER)})
    if not gpus:
        where = f" (line {first_untimed} has none)" if untimed else ""
        raise InputError(
            f"no timestamped {ENERGY} or {POWER} sample{where}: a window needs readings at two "
            "times at least (save each scrape with its Prometheus timestamp in ms)",
            file=probe.name,
        )
    if len(gpus) > MAX_GPUS:
        raise InputError(f"{len(gpus):,} GPUs, more than {MAX_GPUS:,}", file=probe.name)
    warnings: list[str] = []
    if untimed:
        warnings.append(f"{untimed} sample(s) without a timestamp were left out")
    joules: dict[str, float] = {}
    how: set[str] = set()
    start, end = math.inf, -math.inf
    for gpu in gpus:
        counter, power = series.get((ENERGY, gpu)), series.get((POWER, gpu))
        chosen = counter if counter is not None and len(counter.readings) > 1 else power
        if chosen is None or len(chosen.readings) < 2:
            raise InputError(
                f"GPU {gpu}: fewer than two timestamped readings of {ENERGY} or {POWER}: no window",
                file=probe.name,
            )
        readings = sorted(chosen.readings)
        start, end = min(start, readings[0][0]), max(end, readings[-1][0])
        if chosen is counter:
            delta = readings[-1][1] - readings[0][1]
            if delta < 0:
                raise InputError(
                    f"GPU {gpu}: {ENERGY} went down ({readings[0][1]:g} to {readings[-1][1]:g} "
                    "mJ): the driver was reloaded in the window",
                    file=probe.name,
                )
            joules[gpu] = delta / 1000.0
            how.add("the energy counter's difference")
        else:
            joules[gpu] = sum(
                (t1 - t0) / 1000.0 * (w0 + w1) / 2
                for (t0, w0), (t1, w1) in zip(readings, readings[1:], strict=False)
            )
            how.add("power samples integrated over time")
    busy = [g for g in gpus if _worked(series.get((UTIL, g)))]
    left_out = [g for g in gpus if g not in busy]
    counted = busy or gpus
    seconds = (end - start) / 1000.0
    energy = sum(joules[g] for g in counted)
    models = sorted(
        {
            m
            for (name, g), s in series.items()
            if name in (ENERGY, POWER) and g in counted and (m := s.labels.get("modelName"))
        }
    )
    if len(models) > 1:
        warnings.append(f"the counted GPUs are of several models: {', '.join(models)}")
    tokens, token_model, token_warnings = _tokens(series, start, end)
    warnings += token_warnings
    per_token = energy / tokens if tokens else None
    hosts = sorted({h for s in series.values() if (h := s.labels.get("Hostname"))})
    point = ReferencePoint(
        point_id=item_id(record, 0),
        index=0,
        format_id=DCGM_FORMAT.id,
        source_tool="dcgm-exporter",
        provenance="measured_elsewhere",
        publisher="DCGM (the team's own telemetry)",
        date=iso_from_epoch(start / 1000.0),
        label=f"{len(counted)} x {models[0] if len(models) == 1 else 'GPU'} "
        f"{'on ' + ', '.join(hosts) + ' ' if hosts else ''}over {seconds:g} s",
        accelerator=models[0] if len(models) == 1 else None,
        accelerator_count=len(counted),
        model_name=token_model,
        load=ReferenceLoad(output_tokens=None),
        figures=ReferenceFigures(
            duration_s=seconds,
            energy_per_output_token_joules=per_token,
            average_power_watts=energy / seconds if seconds > 0 else None,
            energy_method="accelerator",
            energy_scope=scope(len(counted), left_out, " and ".join(sorted(how))),
        ),
        warnings=tuple(warnings),
    )
    return parsed_references(DCGM_FORMAT.id, record, "dcgm-exporter", None, [point], [])


def _worked(util: _Series | None) -> bool:
    """Whether a GPU did work in the window (no utilisation series: assumed so)."""
    return util is None or any(value > 0 for _, value in util.readings)


def _tokens(
    series: dict[tuple[str, str], _Series], start: float, end: float
) -> tuple[float | None, str | None, list[str]]:
    """The engine's generated tokens over the window (summed over its label sets), its model
    name label, and what to say about them."""
    counters = [(name, s) for (name, _), s in series.items() if name in TOKEN_COUNTERS]
    if not counters:
        return (
            None,
            None,
            [
                "no serving engine token counter (" + ", ".join(TOKEN_COUNTERS) + ") was scraped "
                "with the GPUs: the energy is known, not per output token"
            ],
        )
    total, warnings = 0.0, []
    models = sorted({m for _, s in counters if (m := s.labels.get("model_name"))})
    for name, s in counters:
        readings = sorted(s.readings)
        if len(readings) < 2:
            warnings.append(f"{name} has one reading only: not counted")
            continue
        total += readings[-1][1] - readings[0][1]
        if readings[0][0] > start or readings[-1][0] < end:
            warnings.append(
                f"{name} was read from {iso_from_epoch(readings[0][0] / 1000)} to "
                f"{iso_from_epoch(readings[-1][0] / 1000)}, not over the GPUs' whole window: "
                "the tokens do not cover the energy's window"
            )
    return (total or None), (models[0] if len(models) == 1 else None), warnings


DCGM_FORMAT = Format(
    id="dcgm-exporter-text",
    kind="references",
    tool="dcgm-exporter",
    detect=detect_dcgm,
    parse=parse_dcgm,
)
