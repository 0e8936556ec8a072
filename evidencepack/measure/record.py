"""What a measure run writes beside LoadGen's logs: ``requests.jsonl`` and ``run.json``.

``requests.jsonl`` has one row per request (send time, TTFT, chunk gaps, TPOT, tokens, status,
error). ``run.json`` records what was observed: the endpoint, the server's model list, version
and response headers, the request settings, the client host, library versions, timestamps and
whether the run completed. Both are written to a temporary name and renamed. ``run.json`` is
validated against its model first (``mlperf/measure_record.py``, published as
``schemas/measure-run.v1.schema.json``); a not-finite number in it is written as null.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
import socket
from collections import Counter
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

import pydantic

from ..errors import CouldNotRun
from ..mlperf.measure_record import RECORD_SCHEMA as RECORD_SCHEMA
from ..mlperf.measure_record import checked_record
from .client import Client
from .sut import Prompt, Row

REQUESTS_FILE = "requests.jsonl"
RECORD_FILE = "run.json"
REQUEST_SCHEMA = "evidencepack.measure.request/v1"
_HEADERS_KEPT = ("server", "x-powered-by", "x-request-id", "openai-version", "via")


def utc_now() -> str:
    """The current UTC time, ISO 8601 with milliseconds and ``Z``."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def probe_server(client: Client) -> dict[str, Any]:
    """The server's own word on itself: ``/version``, ``/v1/models`` and response headers."""
    out: dict[str, Any] = {"models": [], "version": None, "headers": {}, "probe_errors": []}
    base = client.endpoint.base_path.removesuffix("/v1")
    for key, path in (
        ("version", base + "/version"),
        ("models", client.endpoint.base_path + "/models"),
    ):
        try:
            status, headers, body = await client.get_json(path)
        except (OSError, TimeoutError) as exc:
            out["probe_errors"].append(f"GET {path}: {type(exc).__name__}: {exc}")
            continue
        out["headers"].update({k: v for k, v in headers.items() if k in _HEADERS_KEPT})
        if status != 200 or body is None:
            out["probe_errors"].append(f"GET {path}: HTTP {status}")
            continue
        if key == "version":
            out["version"] = body
        elif isinstance(body, dict) and isinstance(body.get("data"), list):
            out["models"] = [
                {k: m.get(k) for k in ("id", "owned_by", "root", "max_model_len") if k in m}
                for m in body["data"]
                if isinstance(m, dict)
            ]
    return out


def request_row(row: Row, prompt: Prompt) -> dict[str, Any]:
    """One ``requests.jsonl`` row; times in ms from the request's send."""
    o = row.outcome
    ms = 1e-6
    ttft = (o.first_token_ns - o.sent_ns) * ms if o.first_token_ns is not None else None
    e2e = (o.done_ns - o.sent_ns) * ms if o.done_ns is not None and o.ok else None
    gaps = [(b - a) * ms for a, b in zip(o.chunk_ns, o.chunk_ns[1:], strict=False)]
    tpot = None
    if o.ok and ttft is not None and e2e is not None and (o.output_tokens or 0) > 1:
        tpot = (e2e - ttft) / ((o.output_tokens or 0) - 1)
    return {
        "schema": REQUEST_SCHEMA,
        "sample_id": row.sample_id,
        "sample_index": row.sample_index,
        "send_time_s": round(o.sent_epoch_s, 6),
        "queue_ms": round(max(o.sent_ns - row.issued_ns, 0) * ms, 3),
        "ttft_ms": _r(ttft),
        "e2e_ms": _r(e2e),
        "tpot_ms": _r(tpot),
        "itl_gaps_ms": [round(g, 3) for g in gaps],
        "input_tokens": o.input_tokens if o.input_tokens is not None else prompt.input_tokens,
        "output_tokens": o.output_tokens,
        "tokens_source": o.tokens_source,
        "tokenize_ms": _r(o.tokenize_ms),
        "status": "ok" if o.ok else "failed",
        "http_status": o.http_status,
        "finish_reason": o.finish_reason,
        "error": o.error,
        "retried": o.retried,
        "retry_after": o.headers.get("retry-after") if o.http_status == 429 else None,
    }


def _r(value: float | None) -> float | None:
    return round(value, 3) if value is not None else None


def failure_counts(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Failed requests per reason (the reason up to its first colon)."""
    counts = Counter(str(r["error"]).split(":")[0] for r in rows if r["status"] != "ok")
    return dict(sorted(counts.items()))


def library_versions() -> dict[str, str | None]:
    """The installed versions of evidencepack, LoadGen and the tokenizers library (None
    if absent)."""
    out: dict[str, str | None] = {}
    for name in ("evidencepack", "mlcommons-loadgen", "tokenizers"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    out["python"] = platform.python_version()
    return out


def client_host() -> dict[str, Any]:
    """The measuring host: name, platform, machine, CPU count."""
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write ``payload`` as indented JSON through a temporary file and a rename."""
    tmp = path.with_name(path.name + ".tmp")
    # Strict JSON: a non-finite figure would be a bare Infinity or NaN no JSON reader takes.
    tmp.write_text(
        json.dumps(_finite(payload), indent=2, sort_keys=True, allow_nan=False) + "\n",
        encoding="utf-8",
    )
    tmp.replace(path)


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write ``run.json``: every not-finite number as null, then validated against
    ``MeasureRunRecord`` (``mlperf/measure_record.py``); a record that is not one is this tool's
    fault and nothing is written (CouldNotRun naming the field)."""
    try:
        checked = checked_record(record)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CouldNotRun(
            f"{path}: the run record is not valid at {where}: {first['msg']}"
        ) from exc
    write_json_atomic(path, checked)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (inf, NaN) as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def write_rows(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write one JSON line per row through a temporary file and a rename."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(_finite(row), sort_keys=True, allow_nan=False) + "\n")
    tmp.replace(path)
