"""``evidencepack measure``: re-measure an endpoint with MLPerf LoadGen into a run folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import EXIT_COULD_NOT_RUN, EXIT_OK, UsageError
from ._common import Command, emit, json_argument


def _rates(value: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--sweep {value!r}: give rates as X1,X2,... (queries/s)") from None


def _sampling(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.temperature is not None:
        out["temperature"] = args.temperature
    if args.top_p is not None:
        out["top_p"] = args.top_p
    for item in args.sampling or ():
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--sampling {item!r}: give KEY=VALUE (VALUE in JSON, e.g. true)")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _cmd_measure(args: argparse.Namespace) -> int:
    from ..api.measuring import MeasureOptions, measure

    options = MeasureOptions(
        endpoint=args.endpoint,
        model=args.model,
        prompts=Path(args.prompts),
        outdir=Path(args.out),
        scenario=args.scenario,
        target_qps=args.target_qps,
        sweep=_rates(args.sweep) if args.sweep else (),
        api=args.api,
        max_tokens=args.max_tokens,
        sampling=_sampling(args),
        include_usage=not args.no_usage,
        api_key_env=args.api_key_env,
        ttft_ms=args.ttft_ms,
        tpot_ms=args.tpot_ms,
        max_in_flight=args.max_in_flight,
        min_duration_ms=args.min_duration_ms,
        min_query_count=args.min_query_count,
        max_duration_ms=args.max_duration_ms,
        expected_qps=args.expected_qps,
        timeout_s=args.timeout_s,
        lost_after_s=args.lost_after_s,
        seed=args.seed,
        server_metrics=args.server_metrics,
        tokenizer=Path(args.tokenizer) if args.tokenizer else None,
    )
    # Each result line is printed once, as its point ends: on standard output, or, with --json
    # (whose document goes there at the end), on standard error beside the progress.
    result_stream = sys.stderr if args.json else sys.stdout
    results = measure(
        options,
        spec=args.spec,
        candidate=args.candidate,
        progress=lambda line: print(line, file=sys.stderr),
        on_result=lambda result: print(result.line(), file=result_stream, flush=True),
    )
    payload = [
        {
            "folder": str(r.folder),
            "complete": r.complete,
            "stop_reason": r.stop_reason,
            "validity": r.validity,
            "invalid_reasons": list(r.invalid_reasons),
            "ok": r.ok,
            "failed": r.failed,
            "failures": r.failures,
        }
        for r in results
    ]
    if args.json:
        emit(payload, as_json=True, text="")
    return EXIT_OK if all(r.complete for r in results) else EXIT_COULD_NOT_RUN


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command(
        "measure",
        _cmd_measure,
        "re-measure an OpenAI-compatible endpoint with MLPerf LoadGen (Server, Offline, sweeps)",
    )
    p.add_argument("--endpoint", required=True, metavar="URL", help="e.g. http://127.0.0.1:8000")
    p.add_argument("--prompts", required=True, metavar="FILE", help="JSONL: prompt or messages")
    p.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="RUNDIR",
        help="new run folder (a sweep: a folder of qps_X run folders)",
    )
    p.add_argument("--model", metavar="NAME", help="the model to request (default: the spec's)")
    p.add_argument("--scenario", choices=("server", "offline"), default="server")
    p.add_argument("--target-qps", type=float, metavar="X", help="Server: Poisson arrivals/s")
    p.add_argument("--sweep", metavar="X1,X2,...", help="one Server run per rate")
    p.add_argument(
        "--spec",
        metavar="SPEC",
        help="take model, max_tokens, concurrency and SLO from this pack spec",
    )
    p.add_argument("--candidate", metavar="ID", help="the spec's candidate being measured")
    p.add_argument("--api", choices=("completions", "chat"), default="completions")
    p.add_argument("--max-tokens", type=int, metavar="N", help="max_tokens of every request")
    p.add_argument("--temperature", type=float, metavar="T")
    p.add_argument("--top-p", type=float, metavar="P")
    p.add_argument(
        "--sampling",
        action="append",
        metavar="KEY=VALUE",
        help="another request field (JSON value), e.g. ignore_eos=true; repeatable",
    )
    p.add_argument(
        "--no-usage",
        action="store_true",
        help="do not ask for stream_options.include_usage; count streamed chunks",
    )
    p.add_argument("--api-key-env", metavar="VAR", help="send the API key held in $VAR")
    p.add_argument("--ttft-ms", type=float, metavar="MS", help="LoadGen's p99 TTFT limit")
    p.add_argument("--tpot-ms", type=float, metavar="MS", help="LoadGen's p99 TPOT limit")
    p.add_argument("--max-in-flight", type=int, metavar="N", help="cap on concurrent requests")
    p.add_argument("--min-duration-ms", type=int, metavar="MS", help="default: LoadGen's")
    p.add_argument("--min-query-count", type=int, metavar="N", help="default: LoadGen's")
    p.add_argument("--max-duration-ms", type=int, metavar="MS", help="stop issuing after MS")
    p.add_argument("--expected-qps", type=float, metavar="X", help="Offline: sizes the query")
    p.add_argument(
        "--timeout-s",
        type=float,
        default=600.0,
        metavar="S",
        help="per-request timeout (default: %(default)s)",
    )
    p.add_argument(
        "--lost-after-s",
        type=float,
        default=30.0,
        metavar="S",
        help="stop when only connection failures for S seconds (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, metavar="N", help="LoadGen's sample and schedule seeds")
    p.add_argument(
        "--server-metrics",
        metavar="URL",
        help="the engine's Prometheus endpoint (e.g. http://127.0.0.1:8000/metrics): scraped "
        "before and after each run into server-metrics.json, cross-checked with the requests",
    )
    p.add_argument(
        "--tokenizer",
        metavar="FILE",
        help="the model's tokenizer.json, or its GGUF model file: counts output tokens when the "
        "server sends no usage and has no tokenize endpoint (kept in the run folder)",
    )
    json_argument(p)
