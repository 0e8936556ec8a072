"""``server-metrics.json``: what the serving engine itself counted during a ``measure`` run, and
its cross-check against what the client saw.

``evidencepack measure --server-metrics URL`` scrapes the engine's Prometheus endpoint before and
after the run and stores every series with both readings and, for counters and histogram parts,
the difference. The engine's own figures are the server-side view an auditor checks the
client's against. The names each engine uses:

- vLLM: ``vllm:request_success_total`` (finished requests), ``vllm:generation_tokens_total``
  (generated tokens), ``vllm:time_to_first_token_seconds`` (the TTFT histogram, seconds);
- SGLang: ``sglang:num_requests_total``, ``sglang:generation_tokens_total``,
  ``sglang:time_to_first_token_seconds``;
- TGI: ``tgi_request_success``, ``tgi_request_generated_tokens`` (a histogram: its sum); no
  TTFT histogram;
- llama.cpp's ``llama-server --metrics``: ``llamacpp:tokens_predicted_total`` only (no request
  counter, no TTFT histogram).

The deltas are compared with the client's rows, within these tolerances:

- finished requests: from the client's successful requests to all it sent, give or take
  ``max(1, 2%)`` (a request the client saw fail may still have finished on the server);
- generated tokens: the client's output tokens, give or take ``max(16, 2%)``; with failed
  requests, at least that (their partial outputs count on the server only);
- TTFT: the client's median lies in the bucket holding the server's median, from 5 ms below its
  lower bound to 1.5 times its upper bound plus 50 ms above (the client's view adds the network
  and the HTTP handling; a client that saw first tokens sooner than the server sent them is
  wrong).

Anything else the engine reports (queue time, batch size, requests running) is stored, not
judged. A scrape counts every client of the server: a shared server's figures exceed the run's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field, ValidationError

from ...core._models import StrictModel
from ...errors import InputError
from .._json import load_json_document
from ..models import ServingRun

SERVER_METRICS_FILE = "server-metrics.json"
SERVER_METRICS_SCHEMA = "evidencepack.measure.server-metrics/v1"
Engine = Literal["vllm", "sglang", "tgi", "llamacpp"]
MetricType = Literal["counter", "gauge", "histogram", "summary", "untyped"]

REQUESTS_TOLERANCE = (1, 0.02)
TOKENS_TOLERANCE = (16, 0.02)
TTFT_BELOW_MS = 5.0
TTFT_ABOVE = (1.5, 50.0)


class MetricSeries(StrictModel):
    """One time series of the endpoint: its sample name and labels, read before and after."""

    name: str = Field(description="The sample's name, e.g. vllm:generation_tokens_total.")
    labels: dict[str, str] = Field(default_factory=dict, description="Its labels.")
    type: MetricType = Field(description="The metric family's TYPE line (untyped without one).")
    before: float | None = Field(description="The value before the run (None: absent).")
    after: float | None = Field(description="The value after the run (None: absent).")
    delta: float | None = Field(
        description="after - before for counters and histogram or summary parts; None for "
        "gauges, for a series absent from one scrape and for a counter that went down (reset)."
    )


class ServerMetricsDocument(StrictModel):
    """``server-metrics.json``: the engine's Prometheus series around one ``measure`` run."""

    schema_id: Literal["evidencepack.measure.server-metrics/v1"] = Field(
        alias="schema", description="This document's format and version."
    )
    url: str = Field(description="The endpoint scraped.")
    engine: Engine | None = Field(description="The engine its metric names belong to.")
    before_utc: str = Field(description="When the first scrape was made (before the run).")
    after_utc: str = Field(description="When the second was made (after the last request).")
    series: tuple[MetricSeries, ...] = Field(description="Every series, in exposition order.")


@dataclass(frozen=True)
class EngineNames:
    """Which series hold an engine's finished requests, generated tokens and TTFT histogram."""

    requests: str | None
    output_tokens: str
    ttft_histogram: str | None


ENGINES: dict[str, EngineNames] = {
    "vllm": EngineNames(
        "vllm:request_success_total",
        "vllm:generation_tokens_total",
        "vllm:time_to_first_token_seconds",
    ),
    "sglang": EngineNames(
        "sglang:num_requests_total",
        "sglang:generation_tokens_total",
        "sglang:time_to_first_token_seconds",
    ),
    "tgi": EngineNames("tgi_request_success", "tgi_request_generated_tokens_sum", None),
    "llamacpp": EngineNames(None, "llamacpp:tokens_predicted_total", None),
}
_PREFIXES: tuple[tuple[str, Engine], ...] = (
    ("vllm:", "vllm"),
    ("sglang:", "sglang"),
    ("tgi_", "tgi"),
    ("llamacpp:", "llamacpp"),
)


def engine_of(names: list[str]) -> Engine | None:
    """The engine whose metric names these are (the prefix most of them carry)."""
    counts = {e: sum(1 for n in names if n.startswith(p)) for p, e in _PREFIXES}
    best = max(counts, key=lambda e: counts[e])
    return best if counts[best] else None


def read_server_metrics(path: Path, name: str | None = None) -> ServerMetricsDocument:
    """The document at ``path``; InputError naming the file (``name``, default ``path``) and
    the field when it is not one."""
    shown = str(path) if name is None else name
    doc = load_json_document(path, shown)
    try:
        return ServerMetricsDocument.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise InputError(first["msg"], file=shown, where=where) from None


@dataclass(frozen=True)
class ClientView:
    """What the client's rows say: requests, output tokens and the median TTFT."""

    ok: int
    failed: int
    output_tokens: float | None
    ttft_p50_ms: float | None


@dataclass(frozen=True)
class Comparison:
    """One figure seen from both sides: agreed within the tolerance, or not."""

    figure: str
    agrees: bool
    detail: str


def _total(doc: ServerMetricsDocument, name: str) -> float | None:
    deltas = [s.delta for s in doc.series if s.name == name]
    if not deltas or any(d is None for d in deltas):
        return None
    return float(sum(d for d in deltas if d is not None))


def ttft_median_bucket(doc: ServerMetricsDocument, name: str) -> tuple[float, float, int] | None:
    """The bucket ``(lower s, upper s, requests)`` holding the median of the histogram's delta."""
    cumulative: dict[float, float] = {}
    for series in doc.series:
        if series.name != f"{name}_bucket" or "le" not in series.labels:
            continue
        if series.delta is None:
            return None
        bound = math.inf if series.labels["le"] in ("+Inf", "Inf") else float(series.labels["le"])
        cumulative[bound] = cumulative.get(bound, 0.0) + series.delta
    if not cumulative or cumulative.get(math.inf, 0.0) <= 0:
        return None
    count = cumulative[math.inf]
    lower = 0.0
    for bound in sorted(cumulative):
        if cumulative[bound] >= count / 2:
            return lower, bound, round(count)
        lower = bound
    return None


def client_view(run: ServingRun) -> ClientView:
    """What a run read from the client's ``requests.jsonl`` says, for ``cross_check``."""
    tokens = run.tokens.output_total_tokens
    return ClientView(
        ok=run.requests_completed or 0,
        failed=run.requests_failed or 0,
        output_tokens=float(tokens) if tokens is not None else None,
        ttft_p50_ms=run.ttft.p50_ms if run.ttft is not None else None,
    )


def cross_check(doc: ServerMetricsDocument, client: ClientView) -> list[Comparison]:
    """The engine's figures against the client's, each within the module's stated tolerance.
    The engine is known by its series' names, not by the document's word for it."""
    names = ENGINES.get(engine_of([s.name for s in doc.series]) or "")
    if names is None:
        return []
    out: list[Comparison] = []
    sent = client.ok + client.failed
    if names.requests and (server := _total(doc, names.requests)) is not None:
        slack = max(REQUESTS_TOLERANCE[0], REQUESTS_TOLERANCE[1] * sent)
        agrees = client.ok - slack <= server <= sent + slack
        out.append(
            Comparison(
                "finished requests",
                agrees,
                f"the server counted {server:g} finished requests ({names.requests}), the "
                f"client {client.ok} successful of {sent} sent (tolerance +-{slack:g})",
            )
        )
    if (
        client.output_tokens is not None
        and (server := _total(doc, names.output_tokens)) is not None
    ):
        slack = max(TOKENS_TOLERANCE[0], TOKENS_TOLERANCE[1] * client.output_tokens)
        agrees = server >= client.output_tokens - slack and (
            client.failed > 0 or server <= client.output_tokens + slack
        )
        out.append(
            Comparison(
                "output tokens",
                agrees,
                f"the server generated {server:g} tokens ({names.output_tokens}), the client "
                f"counted {client.output_tokens:g} (tolerance +-{slack:g})",
            )
        )
    bucket = ttft_median_bucket(doc, names.ttft_histogram) if names.ttft_histogram else None
    if bucket is not None and client.ttft_p50_ms is not None:
        low_s, high_s, count = bucket
        low = low_s * 1e3 - TTFT_BELOW_MS
        high = high_s * 1e3 * TTFT_ABOVE[0] + TTFT_ABOVE[1]
        agrees = low <= client.ttft_p50_ms <= high
        out.append(
            Comparison(
                "TTFT median",
                agrees,
                f"the server's median TTFT lies in its bucket {low_s * 1e3:g}-{high_s * 1e3:g} "
                f"ms ({names.ttft_histogram}, {count} requests), the client's median is "
                f"{client.ttft_p50_ms:.1f} ms (allowed {max(low, 0):g}-{high:g} ms)",
            )
        )
    return out


def metrics_warnings(path: Path, run: ServingRun, name: str) -> list[str] | None:
    """The warnings of the rows at ``path`` (read into ``run``; ``name``: what messages call
    it): what the engine's own metrics beside them say against them (None: there are none)."""
    beside = path.parent / SERVER_METRICS_FILE
    if not beside.is_file():
        return None
    try:
        doc = read_server_metrics(beside, str(PurePosixPath(name).parent / SERVER_METRICS_FILE))
    except InputError as exc:
        return [f"{SERVER_METRICS_FILE} beside it is unreadable: {exc.message}"]
    checked = cross_check(doc, client_view(run))
    out = [
        f"{SERVER_METRICS_FILE} disagrees with {path.name} on the {c.figure}: {c.detail}"
        for c in checked
        if not c.agrees
    ]
    agreed = [c.figure for c in checked if c.agrees]
    if agreed:
        out.append(
            f"the engine's own metrics ({doc.engine}, {SERVER_METRICS_FILE}) agree on the "
            + ", ".join(agreed)
        )
    elif not checked:
        out.append(f"{SERVER_METRICS_FILE}: no figure of the {doc.engine} engine to cross-check")
    return out
