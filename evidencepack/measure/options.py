"""What one ``measure`` invocation asks for, and the settings of each load point it runs.

``MeasureOptions`` is built by the CLI (optionally completed from a pack spec's envelope,
traffic and SLO by ``from_spec``); ``PointConfig`` is one LoadGen run, handed to the worker
process as JSON. Neither holds the API key itself, only the name of its environment variable.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidRequest, option
from ..spec.load import LoadedSpec
from .client import parse_endpoint
from .server_metrics import check_url

Scenario = Literal["server", "offline"]


@dataclass(frozen=True)
class MeasureOptions:
    """One ``evidencepack measure`` invocation. ``sweep`` runs one Server point per rate."""

    endpoint: str
    model: str | None
    prompts: Path
    outdir: Path
    scenario: Scenario = "server"
    target_qps: float | None = None
    sweep: tuple[float, ...] = ()
    api: Literal["completions", "chat"] = "completions"
    max_tokens: int | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    include_usage: bool = True
    api_key_env: str | None = None
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    max_in_flight: int | None = None
    min_duration_ms: int | None = None
    min_query_count: int | None = None
    max_duration_ms: int | None = None
    expected_qps: float | None = None
    timeout_s: float = 600.0
    lost_after_s: float = 30.0
    seed: int | None = None
    note: str | None = None
    """Free text kept in run.json (with --spec: which spec and candidate set the options)."""
    server_metrics: str | None = None
    """The engine's Prometheus endpoint, scraped before and after each run."""
    tokenizer: Path | None = None
    """A tokenizer.json or GGUF model file, counting outputs when the server has no tokenize
    endpoint."""


def from_spec(options: MeasureOptions, loaded: LoadedSpec, candidate_id: str) -> MeasureOptions:
    """Fill what the command line left open from the spec: model (a hosted API candidate's
    own), max_tokens (the traffic's mean output length), the concurrency limit, the SLO's p99
    TTFT/TPOT as LoadGen's limits and the model's tokenizer (``envelope.model.tokenizer``,
    checked against its pin; none for a hosted API, whose model is not the envelope's)."""
    spec = loaded.spec
    try:
        api = spec.candidate(candidate_id).api
    except KeyError:
        ids = ", ".join(c.id for c in spec.candidates)
        raise InvalidRequest(
            f"{option('candidate')} {candidate_id!r} is not in {loaded.path}; candidates: {ids}"
        ) from None
    return dataclasses.replace(
        options,
        tokenizer=options.tokenizer or (None if api is not None else _spec_tokenizer(loaded)),
        # A hosted API serves its own model, named as its requests name it.
        model=options.model or (api.model if api is not None else spec.envelope.model.name),
        max_tokens=options.max_tokens or round(spec.traffic.output_tokens.mean),
        max_in_flight=options.max_in_flight or spec.envelope.max_concurrency,
        ttft_ms=options.ttft_ms or spec.slo.ttft_p99_ms,
        tpot_ms=options.tpot_ms or spec.slo.tpot_p99_ms,
        note=options.note or f"settings from {loaded.path.name}, candidate {candidate_id}",
    )


def _spec_tokenizer(loaded: LoadedSpec) -> Path | None:
    """The tokenizer file ``envelope.model.tokenizer`` names, if its bytes match its pin."""
    cited = loaded.spec.envelope.model.tokenizer
    if cited is None:
        return None
    path = loaded.resolve(cited.path)
    from ..core.limits import regular_file_problem

    if (problem := regular_file_problem(path)) is not None:
        raise InvalidRequest(f"{loaded.path}: envelope.model.tokenizer: {path}: {problem}")
    if cited.sha256 is not None:
        from ..core.provenance import sha256_file

        found = sha256_file(path)
        if found != cited.sha256:
            raise InvalidRequest(
                f"{loaded.path}: envelope.model.tokenizer: {cited.path} has sha256 {found}, "
                f"not the pinned {cited.sha256}"
            )
    return path


def check_options(options: MeasureOptions) -> None:
    """Usage errors a run would otherwise hit only after starting LoadGen."""
    parse_endpoint(options.endpoint)
    if options.server_metrics is not None:
        check_url(options.server_metrics)
    if options.model is None:
        raise InvalidRequest(
            f"give {option('model')}, or {option('spec')} and {option('candidate')} to take it "
            "from the envelope"
        )
    if options.sweep and options.scenario != "server":
        raise InvalidRequest(
            f"{option('sweep')} runs Server points: drop {option('scenario')} offline"
        )
    if options.scenario == "server" and not options.sweep and options.target_qps is None:
        raise InvalidRequest(
            f"the Server scenario needs {option('target_qps')} (or {option('sweep')} X1,X2,...)"
        )
    if options.scenario == "server" and (options.ttft_ms is None or options.tpot_ms is None):
        raise InvalidRequest(
            "the Server scenario needs the TTFT and TPOT limits: give "
            f"{option('ttft_ms')} and {option('tpot_ms')}, or {option('spec')} and "
            f"{option('candidate')} to take them from the SLO"
        )
    if any(rate <= 0 for rate in options.sweep) or (options.target_qps or 1) <= 0:
        raise InvalidRequest("request rates must be positive")


@dataclass(frozen=True)
class PointConfig:
    """One LoadGen run, as the worker process reads it (``config.json`` in the run folder)."""

    endpoint: str
    model: str
    prompts: str
    outdir: str
    scenario: Scenario
    target_qps: float | None
    api: Literal["completions", "chat"]
    max_tokens: int | None
    sampling: dict[str, Any]
    include_usage: bool
    api_key_env: str | None
    ttft_ms: float | None
    tpot_ms: float | None
    max_in_flight: int | None
    min_duration_ms: int | None
    min_query_count: int | None
    max_duration_ms: int | None
    expected_qps: float | None
    timeout_s: float
    lost_after_s: float
    seed: int | None
    note: str | None
    server_metrics: str | None = None
    tokenizer_source: dict[str, Any] | None = None
    """Where the ``tokenizer.json`` in the run folder came from (``measure --tokenizer``)."""

    def to_json(self) -> str:
        """The config as JSON, for the worker process."""
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PointConfig:
        """The config the parent process wrote."""
        return cls(**json.loads(text))


def points(options: MeasureOptions) -> list[tuple[str, PointConfig]]:
    """(run folder name, config) per load point: ``qps_<rate>`` for a sweep, else the outdir."""
    assert options.model is not None
    common = {
        f.name: getattr(options, f.name)
        for f in dataclasses.fields(PointConfig)
        if f.name
        not in ("prompts", "outdir", "model", "target_qps", "scenario", "tokenizer_source")
    }
    base = {"model": options.model, "prompts": str(options.prompts.resolve()), **common}
    if options.sweep:
        out = []
        for rate in options.sweep:
            name = f"qps_{rate:g}"
            target = options.outdir / name
            out.append(
                (
                    name,
                    PointConfig(outdir=str(target), scenario="server", target_qps=rate, **base),
                )
            )
        return out
    return [
        (
            options.outdir.name,
            PointConfig(
                outdir=str(options.outdir),
                scenario=options.scenario,
                target_qps=options.target_qps,
                **base,
            ),
        )
    ]
