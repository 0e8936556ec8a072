"""``run.json``: the record ``evidencepack measure`` writes beside LoadGen's logs, as a model.

``measure/worker.py`` validates the record against ``MeasureRunRecord`` before it writes it and
``readers/formats/measure_run.py`` validates what it reads, naming the file and the field; the
published schema is ``schemas/measure-run.v1.schema.json``. It lives here, beside the LoadGen
logs it accompanies, because both the writer (``measure/``) and the reader (``inputs/``) sit
above this stage.

Numbers are finite: JSON has no Infinity or NaN, so a not-finite number in a record being written
is written as null (``finite_or_null``: only optional fields and free-form values hold numbers
that could be), and a record read with one is refused. Fields added to v1 after its first
release (``requests.retried``, ``requests.rate_limited``, ``requests.retry_after_seen``,
``requests.output_tokens_sources``, ``tokenizer``,
``server_metrics``, ``loadgen_logs``) are optional, so records written before them still read.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import ConfigDict, Field, JsonValue

from ..core._models import Sha256Hex
from ..core._models import StrictModel as _Base

RECORD_SCHEMA = "evidencepack.measure.run/v1"


class StrictModel(_Base):
    """A part of the record: strict types too (a 0 is not ``false``, ``"3"`` not 3)."""

    model_config = ConfigDict(strict=True)


class ServerSeen(StrictModel):
    """The server's own word on itself, asked before the run."""

    models: list[dict[str, JsonValue]] = Field(
        description="GET /v1/models: each model's id, owned_by, root and max_model_len as sent"
    )
    version: JsonValue = Field(description="GET /version's body as sent (None: no answer)")
    headers: dict[str, str] = Field(
        description="the response headers kept (server, x-powered-by, x-request-id, ...)"
    )
    probe_errors: list[str] = Field(description="each probe that failed, and why")


class RequestSettings(StrictModel):
    """How each request was sent."""

    api: Literal["completions", "chat"] = Field(description="the OpenAI-compatible API used")
    path: str = Field(description="the request path (/v1/completions or /v1/chat/completions)")
    model: str = Field(description="the model named in each request")
    max_tokens: int | None = Field(description="max_tokens sent (None: not sent)")
    sampling: dict[str, JsonValue] = Field(description="the sampling parameters sent as given")
    include_usage: bool = Field(
        alias="stream_options.include_usage",
        description="whether stream_options.include_usage was asked for",
    )
    timeout_s: float = Field(description="the per-request timeout, seconds")
    api_key_env: str | None = Field(description="the environment variable read for the API key")
    api_key_sent: bool = Field(description="whether an API key was sent (its value never is)")


class LoadgenSettings(StrictModel):
    """The LoadGen test settings of the run."""

    scenario: Literal["Server", "Offline"] = Field(description="LoadGen's scenario")
    target_qps: float | None = Field(description="the Server scenario's target queries/s")
    ttft_limit_ms: float | None = Field(description="the TTFT latency bound LoadGen checks, ms")
    tpot_limit_ms: float | None = Field(description="the TPOT latency bound LoadGen checks, ms")
    min_duration_ms: int | None = Field(description="LoadGen's minimum duration, ms")
    min_query_count: int | None = Field(description="LoadGen's minimum query count")
    max_duration_ms: int | None = Field(description="LoadGen's maximum duration, ms")
    offline_expected_qps: float | None = Field(description="the Offline scenario's expected QPS")
    seed: int | None = Field(description="the seed of LoadGen's random generators, if set")


class Limits(StrictModel):
    """The client's concurrency limit and the most requests it had in flight."""

    max_in_flight: int | None = Field(description="the limit on requests in flight (None: none)")
    max_in_flight_seen: int = Field(description="the most requests in flight at once")


class Prompts(StrictModel):
    """The prompt file the run drew from."""

    file: str = Field(description="the prompt file's name")
    sha256: Sha256Hex = Field(description="its sha256")
    count: int = Field(description="how many prompts it holds")


class ClientHost(StrictModel):
    """The measuring host."""

    hostname: str = Field(description="the host's name")
    platform: str = Field(description="Python's platform.platform()")
    machine: str = Field(description="the machine type (x86_64, arm64, ...)")
    cpus: int | None = Field(description="the CPU count (None: not known)")


class RequestCounts(StrictModel):
    """What happened to the requests."""

    sent: int = Field(description="requests sent")
    ok: int = Field(description="requests that succeeded")
    failed: int = Field(description="requests that failed (or were never sent)")
    failures: dict[str, int] = Field(description="failed requests per reason")
    retried: int | None = Field(default=None, description="requests retried once")
    rate_limited: int | None = Field(
        default=None,
        description="requests the server refused with HTTP 429 (rate limited): failed requests, "
        "counted in failed and failures too",
    )
    retry_after_seen: list[str] | None = Field(
        default=None, description="each distinct Retry-After value the 429 answers carried"
    )
    input_tokens_mean: float | None = Field(description="mean prompt tokens of the successes")
    output_tokens_mean: float | None = Field(description="mean output tokens of the successes")
    output_tokens_sources: dict[str, int] | None = Field(
        default=None,
        description="successful requests per source of their output token count "
        "(usage, endpoint, file, counted)",
    )


class TokenizerFileUsed(StrictModel):
    """The tokenizer file the user named (``measure --tokenizer``)."""

    kept: str | None = Field(description="its copy in the run folder, if it counted anything")
    sha256: Sha256Hex | None = Field(description="that copy's sha256, if kept")
    source: dict[str, JsonValue] = Field(description="the file it came from: name, sha256, format")


class TokenizerSeen(StrictModel):
    """How output tokens were counted when the server sent no usage."""

    path: str | None = Field(description="the server's tokenize endpoint found, if any")
    special_tokens_added: int = Field(
        description="tokens the endpoint adds to any text (counted on an empty one), taken off "
        "each count"
    )
    problem: str | None = Field(description="why no endpoint could count, if none could")
    counted_by: Literal["endpoint", "file"] | None = Field(
        description="what counted output tokens (None: the usage the server sent, or chunks)"
    )
    file: TokenizerFileUsed | None = Field(description="the tokenizer file the user named")


class ServerMetricsSeen(StrictModel):
    """``measure --server-metrics``: the engine's Prometheus endpoint, scraped around the run."""

    url: str = Field(description="the metrics URL")
    file: str | None = Field(description="server-metrics.json, when both scrapes succeeded")
    error: str | None = Field(description="why a scrape failed, if one did")
    engine: str | None = Field(default=None, description="the engine its metric names belong to")


class MeasureRunRecord(StrictModel):
    """``run.json``: what one ``evidencepack measure`` run observed, beside LoadGen's logs."""

    schema_: Literal["evidencepack.measure.run/v1"] = Field(
        alias="schema", description="the record's schema id"
    )
    complete: bool = Field(description="whether LoadGen ran to its verdict")
    stop_reason: str | None = Field(description="why the run stopped early, if it did")
    endpoint: str = Field(description="the endpoint measured (scheme, host, port)")
    server: ServerSeen = Field(description="the server's own word on itself")
    response_models: list[str] = Field(description="every model name the responses carried")
    request: RequestSettings = Field(description="how each request was sent")
    loadgen: LoadgenSettings = Field(description="LoadGen's test settings")
    limits: Limits = Field(description="the client's concurrency")
    prompts: Prompts = Field(description="the prompt file")
    client: ClientHost = Field(description="the measuring host")
    libraries: dict[str, str | None] = Field(
        description="versions of evidencepack, LoadGen, tokenizers and Python (None: absent)"
    )
    note: str | None = Field(description="the user's note (measure --note)")
    started_utc: str = Field(description="when the run started, ISO 8601 UTC")
    finished_utc: str = Field(description="when it finished, ISO 8601 UTC")
    requests: RequestCounts = Field(description="what happened to the requests")
    tokenizer: TokenizerSeen | None = Field(
        default=None, description="how output tokens were counted (absent in early v1 records)"
    )
    server_metrics: ServerMetricsSeen | None = Field(
        default=None, description="the engine's metrics scrape, with --server-metrics"
    )
    loadgen_logs: str | None = Field(
        default=None, description="why LoadGen's logs are not in the folder, when they are not"
    )


def finite_or_null(value: Any) -> Any:
    """``value`` (JSON-shaped) with every not-finite float replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_null(v) for v in value]
    return value


def checked_record(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as ``run.json`` will hold it: not-finite numbers as null, validated against
    ``MeasureRunRecord`` (ValueError naming the field if it is not one)."""
    clean: dict[str, Any] = finite_or_null(record)
    MeasureRunRecord.model_validate(clean)
    return clean
