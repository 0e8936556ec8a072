"""``measure --server-metrics URL``: the engine's Prometheus endpoint, scraped around a run.

The endpoint speaks the Prometheus text exposition format (0.0.4; vLLM, SGLang, TGI and
llama.cpp's ``llama-server --metrics`` all do). The format is small and line-based, so it is
parsed here rather than with ``prometheus_client``, which would be a dependency of ``measure``
for one function: ``# TYPE`` lines give each family's type, every other non-comment line is one
sample, ``name{label="value",...} value [timestamp]``, with ``\\\\``, ``\\"`` and ``\\n``
escaped in label values. The answer is bounded (16 MiB, 200,000 samples); a line that is no
sample is an error naming its line number.
"""

from __future__ import annotations

import math
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..errors import CouldNotRun, InvalidRequest, option

SERVER_METRICS_FILE = "server-metrics.json"
"""Its reader, ``readers/formats/measure_server_metrics.py``, holds its model (a sibling stage:
neither imports the other); ``schemas/measure-server-metrics.v1.schema.json`` is its schema."""
SERVER_METRICS_SCHEMA = "evidencepack.measure.server-metrics/v1"
_ENGINE_PREFIXES = (
    ("vllm:", "vllm"),
    ("sglang:", "sglang"),
    ("tgi_", "tgi"),
    ("llamacpp:", "llamacpp"),
)

_MAX_BYTES = 16 << 20
_MAX_SAMPLES = 200_000
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"({_NAME})(\{{(.*)\}})?\s+(\S+)(\s+-?[0-9]+)?\s*")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|$)')
_SUFFIXES = ("_total", "_bucket", "_sum", "_count", "_created")
_CUMULATIVE = ("counter", "histogram", "summary")
_TYPES = ("counter", "gauge", "histogram", "summary")


@dataclass(frozen=True)
class Sample:
    """One sample of an exposition: its name, labels, value and family type."""

    name: str
    labels: tuple[tuple[str, str], ...]
    value: float
    type: str


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], text)


def _labels(text: str, line: int) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    position = 0
    while position < len(text.rstrip()):
        match = _LABEL.match(text, position)
        if match is None:
            raise ValueError(f"line {line}: malformed labels {text[:80]!r}")
        out.append((match[1], _unescape(match[2])))
        position = match.end()
    return tuple(sorted(out))


def _value(raw: str, line: int) -> float:
    special = {"+Inf": math.inf, "Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}
    if raw in special:
        return special[raw]
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"line {line}: {raw[:40]!r} is no number") from None


def parse_exposition(text: str) -> list[Sample]:
    """Every sample of a Prometheus text exposition, typed by its family's ``# TYPE`` line."""
    types: dict[str, str] = {}
    samples: list[Sample] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) == 4 and parts[1] == "TYPE":
                types[parts[2]] = parts[3].strip()
            continue
        match = _SAMPLE.fullmatch(line)
        if match is None:
            raise ValueError(f"line {number}: not a sample: {line[:80]!r}")
        name = match[1]
        family = next(
            (name[: -len(s)] for s in _SUFFIXES if name.endswith(s) and name[: -len(s)] in types),
            name,
        )
        kind = types.get(name) or types.get(family) or "untyped"
        samples.append(
            Sample(name, _labels(match[3] or "", number), _value(match[4], number), kind)
        )
        if len(samples) > _MAX_SAMPLES:
            raise ValueError(f"more than {_MAX_SAMPLES} samples")
    return samples


def check_url(url: str) -> None:
    """A InvalidRequest unless ``url`` is an http(s) URL with a host."""
    if not re.match(r"https?://[^/\s]+", url):
        raise InvalidRequest(
            f"{option('server_metrics')} {url!r}: give the http:// or https:// metrics URL"
        )


def scrape(url: str, timeout_s: float = 10.0) -> list[Sample]:
    """The samples the endpoint serves now; CouldNotRun naming the URL when it cannot be read."""
    check_url(url)
    request = urllib.request.Request(url, headers={"Accept": "text/plain"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:  # noqa: S310
            body = answer.read(_MAX_BYTES + 1)
    except (OSError, urllib.error.URLError) as exc:
        raise CouldNotRun(f"{option('server_metrics')} {url}: {exc}") from exc
    if len(body) > _MAX_BYTES:
        raise CouldNotRun(f"{option('server_metrics')} {url}: more than {_MAX_BYTES} bytes")
    try:
        return parse_exposition(body.decode("utf-8", "replace"))
    except ValueError as exc:
        raise CouldNotRun(f"{option('server_metrics')} {url}: not Prometheus text: {exc}") from exc


def _delta(kind: str, before: float | None, after: float | None) -> float | None:
    if kind not in _CUMULATIVE or before is None or after is None:
        return None
    if not (math.isfinite(before) and math.isfinite(after)) or after < before:
        return None  # a reset, or no number: no difference can be taken
    return after - before


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def document(
    url: str, before: list[Sample], after: list[Sample], before_utc: str, after_utc: str
) -> dict[str, Any]:
    """``server-metrics.json``'s content: every series with both readings and its delta."""
    first = {(s.name, s.labels): s for s in before}
    second = {(s.name, s.labels): s for s in after}
    keys = list(first) + [k for k in second if k not in first]
    series: list[dict[str, Any]] = []
    for key in keys:
        a, b = first.get(key), second.get(key)
        kind = b.type if b is not None else a.type if a is not None else "untyped"
        old = a.value if a is not None else None
        new = b.value if b is not None else None
        series.append(
            {
                "name": key[0],
                "labels": dict(key[1]),
                "type": kind if kind in _TYPES else "untyped",
                "before": _finite(old),
                "after": _finite(new),
                "delta": _delta(kind, old, new),
            }
        )
    names = [name for name, _ in keys]
    counts = {e: sum(1 for n in names if n.startswith(p)) for p, e in _ENGINE_PREFIXES}
    engine = max(counts, key=lambda e: counts[e])
    return {
        "schema": SERVER_METRICS_SCHEMA,
        "url": url,
        "engine": engine if counts[engine] else None,
        "before_utc": before_utc,
        "after_utc": after_utc,
        "series": series,
    }
