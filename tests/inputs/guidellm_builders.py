"""guidellm ``benchmarks.json`` in its older layouts, built from guidellm's own models.

v0.3: ``guidellm/benchmark/benchmark.py`` (GenerativeBenchmark with ``args``, ``run_stats``,
``worker``, ``request_totals``, ``requests`` of ``generative_text_response``). v0.4:
``guidellm/benchmark/schemas.py`` (``scheduler``, ``benchmarker``, ``run_stats``,
``request_totals``, ``generative_request_stats``). v0.5-0.6: ``benchmark/schemas/`` (report
``args`` (+ ``metadata`` v1), benchmarks with ``config``, ``scheduler_state``,
``scheduler_metrics`` and ``metrics.request_totals``). Values come from synthetic requests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .builders import Requests

_PCTS = {
    "p001": 0.1,
    "p01": 1,
    "p05": 5,
    "p10": 10,
    "p25": 25,
    "p50": 50,
    "p75": 75,
    "p90": 90,
    "p95": 95,
    "p99": 99,
    "p999": 99.9,
}


def distribution(values: list[float], weights: list[float] | None = None) -> dict[str, Any]:
    """A guidellm DistributionSummary (weighted values are repeated, as guidellm counts them)."""
    if weights is not None:
        values = [v for v, w in zip(values, weights, strict=True) for _ in range(int(w))]
    array = np.array(values)
    return {
        "mean": float(array.mean()),
        "median": float(np.median(array)),
        "mode": float(array.min()),
        "variance": float(array.var()),
        "std_dev": float(array.std()),
        "min": float(array.min()),
        "max": float(array.max()),
        "count": len(values),
        "total_sum": float(array.sum()),
        "percentiles": {k: float(np.percentile(array, q)) for k, q in _PCTS.items()},
        "cumulative_distribution_function": None,
    }


def status(values: list[float], weights: list[float] | None = None) -> dict[str, Any]:
    dist = distribution(values, weights)
    empty = {**dist, "count": 0}
    return {"successful": dist, "errored": empty, "incomplete": empty, "total": dist}


def _metrics(r: Requests, start: float) -> dict[str, Any]:
    ok = r.ok
    lat = [r.latencies[i] for i in ok]
    ttft = [r.ttfts[i] * 1000 for i in ok]
    outs = [float(r.output_lens[i]) for i in ok]
    ins = [float(r.input_lens[i]) for i in ok]
    tpot_incl = [r.latencies[i] * 1000 / r.output_lens[i] for i in ok]
    itl = [(r.latencies[i] - r.ttfts[i]) * 1000 / (r.output_lens[i] - 1) for i in ok]
    duration = max(start + r.start_times[i] + r.latencies[i] for i in ok) - start
    return {
        "requests_per_second": status([len(ok) / duration] * len(ok)),
        "request_concurrency": status([2.0] * len(ok)),
        "request_latency": status(lat),
        "prompt_token_count": status(ins),
        "output_token_count": status(outs),
        "time_to_first_token_ms": status(ttft),
        "time_per_output_token_ms": status(tpot_incl, outs),
        "inter_token_latency_ms": status(itl, [o - 1 for o in outs]),
        "output_tokens_per_second": status([sum(outs) / duration] * len(ok)),
        "tokens_per_second": status([(sum(outs) + sum(ins)) / duration] * len(ok)),
    }


def _totals(r: Requests) -> dict[str, int]:
    n = len(r.ok)
    return {"successful": n, "incomplete": 0, "errored": 0, "total": n}


def v03(r: Requests, start: float = 1796000000.0) -> dict[str, Any]:
    reqs = []
    for i in r.ok:
        begin = start + r.start_times[i]
        first = begin + r.ttfts[i]
        end = begin + r.latencies[i]
        reqs.append(
            {
                "type_": "generative_text_response",
                "request_id": f"r{i}",
                "request_type": "text_completions",
                "scheduler_info": {},
                "prompt": "p",
                "output": "o",
                "prompt_tokens": r.input_lens[i],
                "output_tokens": r.output_lens[i],
                "start_time": begin,
                "end_time": end,
                "first_token_time": first,
                "last_token_time": end,
                "request_latency": end - begin,
                "time_to_first_token_ms": (first - begin) * 1000,
                "time_per_output_token_ms": (end - first) * 1000 / r.output_lens[i],
                "inter_token_latency_ms": (end - first) * 1000 / (r.output_lens[i] - 1),
            }
        )
    bench = {
        "type_": "generative_benchmark",
        "id_": "b0",
        "run_id": "run0",
        "args": {
            "profile": {"type_": "async", "strategy_type": "poisson", "rate": [5.0]},
            "strategy_index": 0,
            "strategy": {"type_": "poisson", "rate": 5.0, "max_concurrency": None},
            "max_number": len(r.ok),
            "max_duration": None,
            "warmup_number": None,
            "warmup_duration": None,
            "cooldown_number": None,
            "cooldown_duration": None,
        },
        "run_stats": {"start_time": start, "end_time": start + 10, "requests_made": _totals(r)},
        "worker": {
            "type_": "generative_requests_worker",
            "backend_type": "openai_http",
            "backend_target": "http://localhost:8000",
            "backend_model": "acme/contract-summariser-70b",
            "backend_info": {},
        },
        "request_loader": {"type_": "generative_request_loader"},
        "extras": {},
        "metrics": _metrics(r, start),
        "request_totals": _totals(r),
        "request_samples": None,
        "start_time": start,
        "end_time": start + 10,
        "duration": 10.0,
        "requests": {"successful": reqs, "incomplete": [], "errored": []},
    }
    return {"benchmarks": [bench]}


def _stats_v04(r: Requests, start: float) -> list[dict[str, Any]]:
    out = []
    for i in r.ok:
        begin = start + r.start_times[i]
        out.append(
            {
                "type_": "generative_request_stats",
                "request_id": f"r{i}",
                "request_type": "chat_completions",
                "request_args": "{}",
                "output": "o",
                "iterations": r.output_lens[i],
                "prompt_tokens": r.input_lens[i],
                "output_tokens": r.output_lens[i],
                "total_tokens": r.input_lens[i] + r.output_lens[i],
                "request_latency": r.latencies[i],
                "time_to_first_token_ms": r.ttfts[i] * 1000,
                "time_per_output_token_ms": r.latencies[i] * 1000 / r.output_lens[i],
                "inter_token_latency_ms": (r.latencies[i] - r.ttfts[i])
                * 1000
                / (r.output_lens[i] - 1),
                "info": {"status": "completed", "timings": {"request_start": begin}, "error": None},
                "input_metrics": {"text_tokens": r.input_lens[i]},
                "output_metrics": {"text_tokens": r.output_lens[i]},
            }
        )
    return out


def v04(r: Requests, start: float = 1796000000.0, *, keep: int | None = None) -> dict[str, Any]:
    reqs = _stats_v04(r, start)
    bench = {
        "type_": "generative_benchmark",
        "id_": "b0",
        "run_id": "run0",
        "run_index": 0,
        "scheduler": {
            "strategy": {"type_": "concurrent", "streams": 4},
            "constraints": {},
            "state": {},
        },
        "benchmarker": {
            "args": {"sample_requests": keep},
            "profile": {"type_": "concurrent", "streams": [4]},
            "requests": {},
            "backend": {"type_": "openai_http", "model": "acme/contract-summariser-70b"},
            "environment": {},
        },
        "run_stats": {"start_time": start, "end_time": start + 10, "requests_made": _totals(r)},
        "start_time": start,
        "end_time": start + 10,
        "duration": 10.0,
        "metrics": _metrics(r, start),
        "request_totals": _totals(r),
        "requests": {
            "successful": reqs if keep is None else reqs[:keep],
            "incomplete": [],
            "errored": [],
        },
    }
    return {"benchmarks": [bench]}


def v05(r: Requests, start: float = 1796000000.0, *, metadata: bool = True) -> dict[str, Any]:
    metrics = _metrics(r, start)
    metrics["request_totals"] = _totals(r)
    bench = {
        "type_": "generative_benchmark",
        "config": {
            "id_": "b0",
            "run_id": "run0",
            "run_index": 0,
            "strategy": {"type_": "constant", "rate": 2.0},
            "backend": {"kind": "openai_http", "model": "acme/contract-summariser-70b"},
        },
        "scheduler_state": {"successful_requests": len(r.ok)},
        "scheduler_metrics": {"measure_start_time": start, "measure_end_time": start + 10},
        "metrics": metrics,
        "requests": {"successful": _stats_v04(r, start), "incomplete": [], "errored": []},
        "start_time": start,
        "end_time": start + 10,
        "duration": 10.0,
    }
    report: dict[str, Any] = {"args": {"target": "http://localhost:8000"}, "benchmarks": [bench]}
    if metadata:
        report = {
            "metadata": {
                "version": 1,
                "guidellm_version": "0.5.3",
                "python_version": "3.12",
                "platform": "Linux",
            },
            **report,
        }
    return report
