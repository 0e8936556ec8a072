"""Test inputs for tools whose output could not be produced here (no GPU), built from the
documented field lists (DOMAIN.md section 3 and each tool's source) and from synthetic
per-request data, with every aggregate computed the way the tool computes it (numpy, as
vLLM/SGLang do). Never hard-coded results.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Requests:
    """Synthetic per-request measurements in seconds; failed requests are all zeros."""

    input_lens: list[int]
    output_lens: list[int]
    ttfts: list[float]
    itls: list[list[float]]
    latencies: list[float]
    errors: list[str]
    start_times: list[float]

    @property
    def ok(self) -> list[int]:
        return [i for i, e in enumerate(self.errors) if not e]


def requests(n: int = 40, seed: int = 0, failures: int = 0) -> Requests:
    rng = random.Random(seed)
    data: dict[str, list[Any]] = {k: [] for k in Requests.__dataclass_fields__}
    clock = 0.0
    for i in range(n):
        clock += rng.uniform(0.0, 0.05)
        data["start_times"].append(clock)
        data["input_lens"].append(rng.randint(100, 300))
        if i >= n - failures:
            data["output_lens"].append(0)
            data["ttfts"].append(0.0)
            data["itls"].append([])
            data["latencies"].append(0.0)
            data["errors"].append("ClientConnectorError: connection reset")
            continue
        out = rng.randint(2, 60)
        ttft = rng.uniform(0.02, 0.4)
        gaps = [rng.uniform(0.004, 0.03) for _ in range(out - 1)]
        data["output_lens"].append(out)
        data["ttfts"].append(ttft)
        data["itls"].append(gaps)
        data["latencies"].append(ttft + sum(gaps))
        data["errors"].append("")
    return Requests(**data)


def distributions(r: Requests) -> dict[str, list[float]]:
    """What vLLM's calculate_metrics computes, in ms, over successful requests only."""
    ok = r.ok
    return {
        "ttft": [r.ttfts[i] * 1000 for i in ok],
        "tpot": [
            (r.latencies[i] - r.ttfts[i]) / (r.output_lens[i] - 1) * 1000
            for i in ok
            if r.output_lens[i] > 1
        ],
        "itl": [g * 1000 for i in ok for g in r.itls[i]],
        "e2el": [r.latencies[i] * 1000 for i in ok],
    }


def _metric_fields(
    name: str, key: str, values: list[float], pcts: tuple[float, ...]
) -> dict[str, float]:
    out = {
        f"mean_{key}_ms": float(np.mean(values)),
        f"median_{key}_ms": float(np.median(values)),
        f"std_{key}_ms": float(np.std(values)),
    }
    for p in pcts:
        word = str(int(p)) if int(p) == p else str(p)
        out[f"p{word}_{key}_ms"] = float(np.percentile(values, p))
    return out


def vllm_result(
    r: Requests,
    *,
    new: bool = True,
    detailed: bool = True,
    request_rate: float | str = "inf",
    max_concurrency: int | None = None,
    burstiness: float = 1.0,
    percentiles: tuple[float, ...] = (50, 90, 99),
) -> dict[str, Any]:
    """One ``vllm bench serve --save-result`` object (vllm/benchmarks/serve.py field list)."""
    ok = r.ok
    duration = max(r.start_times[i] + r.latencies[i] for i in ok) - min(r.start_times)
    total_in = sum(r.input_lens[i] for i in ok)
    total_out = sum(r.output_lens[i] for i in ok)
    result: dict[str, Any] = {
        "date": "20261130-051200",
        "backend": "vllm",
        "model_id": "acme/contract-summariser-70b",
        "tokenizer_id": "acme/contract-summariser-70b",
        "num_prompts": len(r.errors),
        "request_rate": request_rate,
        "burstiness": burstiness,
        "max_concurrency": max_concurrency,
        "duration": duration,
        "completed": len(ok),
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_throughput": len(ok) / duration,
        "request_goodput": None,
        "output_throughput": total_out / duration,
        "total_token_throughput": (total_in + total_out) / duration,
    }
    if new:
        result.update(
            endpoint_type="vllm",
            label=None,
            failed=len(r.errors) - len(ok),
            max_output_tokens_per_s=total_out / duration * 1.5,
            max_concurrent_requests=8,
            rtfx=0.0,
        )
    dist = distributions(r)
    for key in ("ttft", "tpot", "itl", "e2el") if new else ("ttft", "tpot", "itl"):
        result.update(_metric_fields(key, key, dist[key], percentiles))
    if detailed:
        result.update(
            input_lens=r.input_lens,
            output_lens=r.output_lens,
            ttfts=r.ttfts,
            itls=r.itls,
            generated_texts=["x" * n for n in r.output_lens],
            errors=r.errors,
        )
        if new:
            result.update(start_times=r.start_times)
    if new:
        # vLLM keeps latencies even without --save-detailed.
        result["latencies"] = r.latencies
    return result


def sglang_result(r: Requests, *, new: bool = True, details: bool = True) -> dict[str, Any]:
    """One SGLang ``bench_serving`` JSON line (python/sglang/bench_serving.py field list)."""
    ok = r.ok
    duration = max(r.start_times[i] + r.latencies[i] for i in ok) - min(r.start_times)
    total_in = sum(r.input_lens[i] for i in ok)
    total_out = sum(r.output_lens[i] for i in ok)
    dist = distributions(r)
    result: dict[str, Any] = {
        "backend": "sglang",
        "dataset_name": "random",
        "request_rate": 8.0,
        "random_input_len": 200,
        "random_output_len": 30,
        "random_range_ratio": 0.5,
        "duration": duration,
        "completed": len(ok),
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "total_output_tokens_retokenized": total_out,
        "request_throughput": len(ok) / duration,
        "input_throughput": total_in / duration,
        "output_throughput": total_out / duration,
        "mean_e2e_latency_ms": float(np.mean(dist["e2el"])),
        "median_e2e_latency_ms": float(np.median(dist["e2el"])),
    }
    for key in ("ttft", "tpot", "itl"):
        values = dist[key]
        result.update(
            {
                f"mean_{key}_ms": float(np.mean(values)),
                f"median_{key}_ms": float(np.median(values)),
                f"std_{key}_ms": float(np.std(values)),
                f"p99_{key}_ms": float(np.percentile(values, 99)),
            }
        )
    if new:
        result.update(
            max_concurrency=16,
            std_e2e_latency_ms=float(np.std(dist["e2el"])),
            p99_e2e_latency_ms=float(np.percentile(dist["e2el"], 99)),
            p95_itl_ms=float(np.percentile(dist["itl"], 95)),
            concurrency=3.2,
            accept_length=None,
        )
    if details:
        result.update(
            input_lens=r.input_lens,
            output_lens=r.output_lens,
            ttfts=r.ttfts,
            itls=r.itls,
            generated_texts=["x" * n for n in r.output_lens],
            errors=r.errors,
        )
    return result


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_jsonl(path: Path, values: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(v) for v in values) + "\n", encoding="utf-8")
    return path


def _pstats(values: list[float], scale: float = 1.0) -> dict[str, float]:
    """trtllm-bench's PercentileStats keys, converted by ``scale``."""
    return {
        "p50": float(np.percentile(values, 50)) * scale,
        "p90": float(np.percentile(values, 90)) * scale,
        "p95": float(np.percentile(values, 95)) * scale,
        "p99": float(np.percentile(values, 99)) * scale,
        "minimum": min(values) * scale,
        "maximum": max(values) * scale,
        "average": float(np.mean(values)) * scale,
    }


def trtllm_report(r: Requests, *, streaming: bool = True) -> dict[str, Any]:
    """``trtllm-bench throughput --report_json`` (ReportUtility.get_statistics_dict)."""
    dist = distributions(r)
    ok = r.ok
    duration_ms = (max(r.start_times[i] + r.latencies[i] for i in ok) - min(r.start_times)) * 1000
    total_out = sum(r.output_lens[i] for i in ok)
    total_in = sum(r.input_lens[i] for i in ok)
    report: dict[str, Any] = {
        "engine": {
            "model": "acme/contract-summariser-70b",
            "model_path": "/models/acme",
            "engine_dir": "None",
            "version": "0.21.0",
            "backend": "Pytorch",
            "dtype": "bfloat16",
            "kv_cache_dtype": "FP8",
            "quantization": "FP8",
        },
        "machine": None,
        "world_info": {
            "tp_size": 2,
            "pp_size": 1,
            "ep_size": 1,
            "world_size": 2,
            "max_batch_size": 256,
            "max_num_tokens": 8192,
            "scheduling_policy": "GUARANTEED_NO_EVICT",
            "kv_cache_percentage": 0.9,
            "issue_rate": 1000.0,
        },
        "request_info": {
            "num_requests": len(ok),
            "avg_num_concurrent_requests": 12.5,
            "avg_input_length": total_in / len(ok),
            "avg_output_length": total_out / len(ok),
        },
        "performance": {
            "total_latency_ms": duration_ms,
            "avg_request_latency_ms": float(np.mean(dist["e2el"])),
            "request_throughput_req_s": len(ok) / duration_ms * 1000,
            "system_output_throughput_tok_s": total_out / duration_ms * 1000,
            "system_total_throughput_tok_s": (total_in + total_out) / duration_ms * 1000,
            "output_throughput_per_user_tok_s": 50.0,
            "output_throughput_per_gpu_tok_s": total_out / duration_ms * 500,
            "request_latency_percentiles_ms": _pstats(dist["e2el"]),
        },
        "dataset": {"isl_stats": {}, "osl_stats": {}},
    }
    if streaming:
        report["streaming_metrics"] = {
            "token_output_speed_tok_s": 60.0,
            "avg_ttft_ms": float(np.mean(dist["ttft"])),
            "avg_tpot_ms": float(np.mean(dist["tpot"])),
            "tpot_percentiles": _pstats(dist["tpot"]),
            "ttft_percentiles": _pstats(dist["ttft"]),
            "gen_tps_percentiles": _pstats([60.0, 61.0]),
        }
    return report


def llmperf_responses(r: Requests) -> list[dict[str, Any]]:
    """llmperf ``*_individual_responses.json`` records (token_benchmark_ray.py)."""
    out = []
    for i, err in enumerate(r.errors):
        n_out = r.output_lens[i]
        out.append(
            {
                "error_code": 500 if err else None,
                "error_msg": err,
                # llmperf averages every gap including the TTFT: latency / output tokens.
                "inter_token_latency_s": r.latencies[i] / n_out if n_out else 0,
                "ttft_s": r.ttfts[i],
                "end_to_end_latency_s": r.latencies[i],
                "request_output_throughput_token_per_s": n_out / r.latencies[i] if n_out else 0,
                "number_total_tokens": r.input_lens[i] + n_out,
                "number_output_tokens": n_out,
                "number_input_tokens": r.input_lens[i],
            }
        )
    return out


def llmperf_summary(r: Requests) -> dict[str, Any]:
    """llmperf ``*_summary.json`` (flattened ``results_*`` statistics, seconds)."""
    ok = r.ok
    series = {
        "inter_token_latency_s": [r.latencies[i] / r.output_lens[i] for i in ok],
        "ttft_s": [r.ttfts[i] for i in ok],
        "end_to_end_latency_s": [r.latencies[i] for i in ok],
    }
    out: dict[str, Any] = {
        "version": "2023-08-31",
        "name": "acme-summariser_200_30_summary",
        "model": "acme/contract-summariser-70b",
        "mean_input_tokens": 200,
        "stddev_input_tokens": 50,
        "mean_output_tokens": 30,
        "stddev_output_tokens": 10,
        "num_concurrent_requests": 4,
    }
    for key, values in series.items():
        for q in (25, 50, 75, 90, 95, 99):
            out[f"results_{key}_quantiles_p{q}"] = float(np.quantile(values, q / 100))
        out[f"results_{key}_mean"] = float(np.mean(values))
        out[f"results_{key}_min"] = min(values)
        out[f"results_{key}_max"] = max(values)
        out[f"results_{key}_stddev"] = float(np.std(values, ddof=1))
    duration_min = (max(r.start_times[i] + r.latencies[i] for i in ok) - min(r.start_times)) / 60
    out.update(
        results_number_input_tokens_mean=float(np.mean([r.input_lens[i] for i in ok])),
        results_number_output_tokens_mean=float(np.mean([r.output_lens[i] for i in ok])),
        results_num_requests_started=len(r.errors),
        results_error_rate=(len(r.errors) - len(ok)) / len(r.errors),
        results_number_errors=len(r.errors) - len(ok),
        results_error_code_frequency="{}",
        results_mean_output_throughput_token_per_s=sum(r.output_lens) / duration_min / 60,
        results_num_completed_requests=len(ok),
        results_num_completed_requests_per_min=len(ok) / duration_min,
        timestamp=1796015000,
    )
    return out
