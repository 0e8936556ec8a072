"""The team's own serving runs are cross-examined, not believed (issue 36, the runs' part).

Each case edits a private copy of the sample the way a careless team or a vendor with an
interest would, with files built with the real tools' field names (vLLM ``bench serve``, SGLang
``bench_serving``, ``evidencepack measure``). Before, each gave exit 0, PASS and a capacity the
file's own bytes contradict; now each fails PROV-DATA naming the file and both figures, or is
listed as not fitting with its reason, and the sizing is unchanged.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.analyze.recompute import recompute
from evidencepack.pipeline import CompileOptions, check
from evidencepack.readers.models import ServingRun

from ..inputs.builders import Requests, sglang_result, vllm_result, write_json

BASELINE = {"h200-vllm": 12, "mi325x-vllm": 9, "b200-trtllm": 6}
"""Accelerators the unedited sample needs per candidate."""
MODEL = "acme/contract-summariser-70b-fp8 (sample)"
ROWS = Path(__file__).resolve().parents[2] / "samples/evidence/mi325x-vllm/runs/qps_2.0"


def _sample_lengths() -> list[tuple[int, int]]:
    """(prompt, output) lengths of the sample's own request rows: the traffic's shape."""
    lines = (ROWS / "requests.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    return [(r["input_tokens"], r["output_tokens"]) for r in rows]


def traffic(
    n: int,
    rate: float,
    *,
    seed: int = 0,
    ttft: tuple[float, float] = (0.1, 0.5),
    gap: float = 0.03,
    lengths: list[tuple[int, int]] | None = None,
    spacing: str = "poisson",
) -> Requests:
    """``n`` requests arriving at ``rate`` per second with the traffic's token lengths, each
    answered within ``ttft`` seconds and ``gap`` seconds per further token."""
    rng = random.Random(seed)
    pool = lengths or _sample_lengths()
    data: dict[str, list[Any]] = {k: [] for k in Requests.__dataclass_fields__}
    clock = 0.0
    for i in range(n):
        clock += rng.expovariate(rate) if spacing == "poisson" else 1.0 / rate
        prompt, out = pool[i % len(pool)]
        first = rng.uniform(*ttft)
        gaps = [gap * rng.uniform(0.8, 1.2) for _ in range(out - 1)]
        data["start_times"].append(clock)
        data["input_lens"].append(prompt)
        data["output_lens"].append(out)
        data["ttfts"].append(first)
        data["itls"].append(gaps)
        data["latencies"].append(first + sum(gaps))
        data["errors"].append("")
    return Requests(**data)


def _vllm(r: Requests, **fields: Any) -> dict[str, Any]:
    result = vllm_result(r, detailed=fields.pop("detailed", False), percentiles=(50, 90, 99))
    result.update(model_id=MODEL, request_rate=fields.pop("request_rate", 4.0))
    result.update(fields)
    return result


def _decide(samples: Path) -> DecisionDocument:
    return check(samples / "pack.yaml", CompileOptions())


def _add_run(samples: Path, relative: str, extra: str = "") -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = "        - path: evidence/mi325x-vllm/runs/qps_3.2\n"
    assert anchor in text
    spec.write_text(text.replace(anchor, f"{anchor}        - path: {relative}\n{extra}", 1))


def _fit(doc: DecisionDocument, subject: str) -> Any:
    return next(f for f in doc.fit if f.subject == subject)


def _accelerators(doc: DecisionDocument) -> dict[str, int | None]:
    return {c.candidate: c.accelerators for c in doc.capacity}


def _check(doc: DecisionDocument, check_id: str, candidate: str) -> Any:
    return next(c for c in doc.checks if c.id == check_id and c.candidate == candidate)


def _capacity(doc: DecisionDocument, candidate: str = "mi325x-vllm") -> Any:
    return next(c for c in doc.capacity if c.candidate == candidate)


# -- 1. figures recomputed from the same file -------------------------------------------------


def test_a_request_throughput_twice_its_own_counts_fails_prov_data(samples: Path) -> None:
    result = _vllm(traffic(500, 4.0, seed=1))
    stated = result["request_throughput"]
    result["request_throughput"] = stated * 2
    write_json(samples / "fast.json", result)
    _add_run(samples, "fast.json")
    doc = _decide(samples)
    assert _accelerators(doc) == BASELINE
    prov = _check(doc, "PROV-DATA", "mi325x-vllm")
    assert prov.status == "FAIL"
    assert "fast.json states request throughput" in prov.reason
    assert f"{stated * 2:.4g} req/s but its own counts give {stated:.4g} req/s" in prov.reason
    assert "completed / duration = 500 /" in prov.reason
    figure = next(g for g in _fit(doc, "fast.json").figures if g.figure == "request throughput")
    assert figure.agrees is False
    assert figure.recomputed == pytest.approx(stated)
    point = next(lp for lp in _capacity(doc).load_points if lp.run == "fast.json")
    assert point.achieved_rate_rps == pytest.approx(stated)  # the recomputed figure
    assert not point.meets_slo


def test_an_output_throughput_five_times_its_tokens_fails_and_never_prices(
    samples: Path,
) -> None:
    result = _vllm(traffic(500, 4.0, seed=2))
    result["output_throughput"] *= 5
    write_json(samples / "tokens.json", result)
    _add_run(samples, "tokens.json")
    doc = _decide(samples)
    assert _accelerators(doc) == BASELINE
    prov = _check(doc, "PROV-DATA", "mi325x-vllm")
    assert prov.status == "FAIL"
    assert "tokens.json states output token throughput" in prov.reason
    assert "total output tokens / duration" in prov.reason
    point = next(lp for lp in _capacity(doc).load_points if lp.run == "tokens.json")
    assert point.output_tokens_per_s == pytest.approx(
        result["total_output_tokens"] / result["duration"]
    )


def test_requests_neither_completed_nor_failed_count_as_failed(samples: Path) -> None:
    result = _vllm(traffic(500, 3.5, seed=3))
    result.update(num_prompts=500, failed=0)
    result.pop("latencies")  # the summary alone: its counts are all there is
    # 60 requests vanished: 440 completed, none counted failed.
    result["completed"] = 440
    result["request_throughput"] = 440 / result["duration"]
    write_json(samples / "vanished.json", result)
    _add_run(samples, "vanished.json")
    doc = _decide(samples)
    point = next(lp for lp in _capacity(doc).load_points if lp.run == "vanished.json")
    assert point.error_rate == pytest.approx(60 / 500)
    assert not point.meets_slo
    assert any(m.startswith("error rate 12.00%") for m in point.misses), point.misses
    figure = next(g for g in _fit(doc, "vanished.json").figures if g.figure == "failed requests")
    assert (figure.stated, figure.recomputed, figure.agrees) == (0.0, 60.0, False)
    assert _accelerators(doc) == BASELINE


# -- 2. the method of the team's own runs -----------------------------------------------------


def _not_fitting(samples: Path, name: str, result: dict[str, Any], needle: str) -> Any:
    write_json(samples / name, result)
    _add_run(samples, name)
    doc = _decide(samples)
    fit = _fit(doc, name)
    assert not fit.fits
    assert any(needle in r for r in fit.reasons), fit.reasons
    assert _accelerators(doc) == BASELINE
    return fit


def test_a_shared_prefix_dataset_does_not_size(samples: Path) -> None:
    result = sglang_result(traffic(400, 6.0, seed=4), details=True)
    result.update(dataset_name="generated-shared-prefix", request_rate=6.0)
    fit = _not_fitting(samples, "prefix.json", result, "shared prefix")
    assert any("not comparable with the interactive traffic" in r for r in fit.reasons)


def test_random_fixed_length_prompts_with_ignore_eos_do_not_size(samples: Path) -> None:
    result = _vllm(
        traffic(400, 6.0, seed=5),
        dataset_name="random",
        random_range_ratio=0.0,
        ignore_eos=True,
        request_rate=6.0,
    )
    fit = _not_fitting(samples, "random.json", result, "random prompts (random, fixed length)")
    assert any("output length forced (--ignore-eos)" in r for r in fit.reasons), fit.reasons


def test_speculative_decoding_does_not_size_without_the_envelope_pinning_it(
    samples: Path,
) -> None:
    result = sglang_result(traffic(400, 6.0, seed=6), details=True)
    result.update(dataset_name="sharegpt", accept_length=2.8, request_rate=6.0)
    _not_fitting(samples, "spec.json", result, "an acceptance length of 2.8")


def test_engine_settings_other_than_the_envelopes_do_not_size(samples: Path) -> None:
    # vllm bench serve --metadata enable_prefix_caching=true kv_cache_dtype=auto
    result = _vllm(
        traffic(400, 6.0, seed=7),
        request_rate=6.0,
        enable_prefix_caching="true",
        kv_cache_dtype="auto",
    )
    fit = _not_fitting(samples, "cache.json", result, "enable_prefix_caching true")
    assert any("kv_cache_dtype auto; the envelope pins fp8" in r for r in fit.reasons)


def test_sglang_server_settings_are_read_against_the_envelope(samples: Path) -> None:
    """SGLang's server_info: the radix (prefix) cache on and a 4k context, where the envelope
    pins prefix caching off and 8k."""
    result = sglang_result(traffic(400, 6.0, seed=17), details=True)
    result.update(
        dataset_name="sharegpt",
        request_rate=6.0,
        server_info={
            "served_model_name": MODEL,
            "version": "0.4.9",
            "disable_radix_cache": False,
            "context_length": 4096,
            "kv_cache_dtype": "auto",
        },
    )
    fit = _not_fitting(samples, "sglang.json", result, "enable_prefix_caching True")
    assert any("max_model_len 4096; the envelope pins 8192" in r for r in fit.reasons)
    assert any("kv_cache_dtype auto; the envelope pins fp8" in r for r in fit.reasons)


def test_a_measure_folder_whose_run_json_records_ignore_eos_does_not_size(
    samples: Path,
) -> None:
    record = samples / "evidence/mi325x-vllm/runs/qps_2.2/run.json"
    doc = json.loads(record.read_text(encoding="utf-8"))
    doc["request"]["sampling"] = {"ignore_eos": True}
    record.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    decided = _decide(samples)
    fit = _fit(decided, "evidence/mi325x-vllm/runs/qps_2.2")
    assert not fit.fits
    assert any("output length forced (--ignore-eos)" in r for r in fit.reasons), fit.reasons
    # The operating point falls back to the next run that fits: never the forced one.
    assert _capacity(decided).operating_point_run == "evidence/mi325x-vllm/runs/qps_2.0"


def test_prompts_near_the_mean_do_not_size_a_long_tailed_traffic(samples: Path) -> None:
    rng = random.Random(8)
    outputs = [out for _, out in _sample_lengths()]
    lengths = [(rng.randint(1700, 1900), outputs[i % len(outputs)]) for i in range(400)]
    result = _vllm(traffic(400, 6.0, seed=8, lengths=lengths), detailed=True, request_rate=6.0)
    _not_fitting(samples, "narrow.json", result, "prompt length p99 1,")


def test_an_18_second_burst_does_not_size_steady_state(samples: Path) -> None:
    result = _vllm(traffic(120, 6.7, seed=9), request_rate=6.7)
    assert result["duration"] < 30
    _not_fitting(samples, "burst.json", result, "under fit.min_duration_s (60 s)")


def test_too_few_requests_do_not_size(samples: Path) -> None:
    result = _vllm(traffic(60, 0.5, seed=10), request_rate=0.5)
    _not_fitting(samples, "few.json", result, "sent 60 requests, under fit.min_requests (100)")


def test_near_uniform_arrivals_do_not_size_poisson_traffic(samples: Path) -> None:
    result = _vllm(traffic(400, 6.0, seed=11, spacing="uniform"), request_rate=6.0, burstiness=50.0)
    _not_fitting(samples, "uniform.json", result, "near-uniform (burstiness 50) arrivals")


def test_the_fit_settings_are_the_spec_s(samples: Path) -> None:
    """fit.min_duration_s lowered and traffic.arrival any: the burst and the uniform run fit."""
    burst = _vllm(traffic(300, 12.0, seed=12, spacing="uniform"), request_rate=12.0)
    burst["burstiness"] = 50.0
    write_json(samples / "short.json", burst)
    _add_run(samples, "short.json")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    text = text.replace("  utilisation: 0.6\n", "  utilisation: 0.6\n  arrival: any\n", 1)
    text = text.replace("headroom: 0.25\n", "headroom: 0.25\nfit: {min_duration_s: 10}\n", 1)
    spec.write_text(text, encoding="utf-8")
    doc = _decide(samples)
    assert _fit(doc, "short.json").fits, _fit(doc, "short.json").reasons


def test_detailed_rows_give_a_steady_state_window(samples: Path) -> None:
    result = _vllm(traffic(400, 1.5, seed=13), detailed=True, request_rate=1.5)
    write_json(samples / "rows.json", result)
    _add_run(samples, "rows.json")
    doc = _decide(samples)
    fit = _fit(doc, "rows.json")
    assert fit.fits, fit.reasons
    names = {g.figure: g for g in fit.figures}
    steady = names["steady-state request throughput"]
    assert "from the first response" in steady.how
    assert steady.recomputed == pytest.approx(1.5, rel=0.2)
    assert names["request throughput"].agrees is True


# -- 3. X* respects every run of the candidate -------------------------------------------------


def test_a_closed_loop_run_never_stands_above_an_open_loop_run_that_broke(
    samples: Path,
) -> None:
    closed = _vllm(
        traffic(400, 2.6, seed=14, spacing="uniform"),
        request_rate="inf",
        max_concurrency=8,
    )
    broke = _vllm(traffic(400, 2.4, seed=15, ttft=(2.5, 3.5)), request_rate=2.4)
    write_json(samples / "closed.json", closed)
    write_json(samples / "broke.json", broke)
    _add_run(samples, "closed.json")
    _add_run(samples, "broke.json")
    doc = _decide(samples)
    assert _fit(doc, "closed.json").fits
    assert _fit(doc, "broke.json").fits
    capacity = _capacity(doc)
    point = next(lp for lp in capacity.load_points if lp.run == "closed.json")
    assert not point.meets_slo
    assert any("where broke.json broke the SLO" in m for m in point.misses), point.misses
    assert capacity.operating_point_run == "evidence/mi325x-vllm/runs/qps_2.2"
    assert _accelerators(doc) == BASELINE


def test_a_run_without_end_to_end_latency_does_not_meet_an_end_to_end_limit(
    samples: Path,
) -> None:
    result = _vllm(traffic(500, 4.0, seed=16))
    for key in [k for k in result if "e2el" in k] + ["latencies"]:
        result.pop(key)
    write_json(samples / "no_e2e.json", result)
    _add_run(samples, "no_e2e.json")
    doc = _decide(samples)
    point = next(lp for lp in _capacity(doc).load_points if lp.run == "no_e2e.json")
    assert point.e2e_p99_ms is None
    assert "end-to-end p99 not measured" in point.misses
    assert _accelerators(doc) == BASELINE


def test_a_real_aiperf_run_of_synthetic_fixed_length_prompts_is_named(
    samples: Path, shared_data: Path
) -> None:
    """AIPerf 0.13's own output (input_config.datasets: synthetic, isl stddev 0)."""
    source = shared_data / "formats/aiperf/generated/profile_export_aiperf.json"
    (samples / "aiperf.json").write_bytes(source.read_bytes())
    _add_run(samples, "aiperf.json")
    doc = _decide(samples)
    fit = _fit(doc, "aiperf.json")
    assert not fit.fits
    assert any("random prompts (synthetic, fixed length)" in r for r in fit.reasons), fit.reasons
    assert any("sent 40 requests, under fit.min_requests" in r for r in fit.reasons)
    assert _accelerators(doc) == BASELINE


def test_the_tolerance_allows_rounding_but_not_a_whole_number_rounded_up() -> None:
    def run(stated: float) -> ServingRun:
        return ServingRun(
            run_id="x#0",
            index=0,
            format_id="vllm-bench-serve",
            tool="vllm",
            requests_sent=100,
            requests_completed=100,
            requests_failed=0,
            duration_s=54.9,
            request_throughput_per_s=stated,
        )

    # LoadGen's summary prints 2 decimals: 1.82 stands for 100 / 54.9 = 1.8215.
    assert recompute(run(1.82)).figures[0].agrees is True
    assert recompute(run(1.9)).figures[0].agrees is True  # within 5%
    assert recompute(run(2.0)).figures[0].agrees is False  # 9.8% over, rounded to a whole 2


def test_a_real_guidellm_run_of_synthetic_prompts_is_named(
    samples: Path, shared_data: Path
) -> None:
    """guidellm 0.8's own output (config.spec.data: synthetic_text, 128 prompt tokens)."""
    source = shared_data / "formats/guidellm/generated/benchmarks.json"
    (samples / "guidellm.json").write_bytes(source.read_bytes())
    _add_run(samples, "guidellm.json")
    doc = _decide(samples)
    fits = [f for f in doc.fit if f.subject.startswith("guidellm.json")]
    assert fits
    for fit in fits:
        assert not fit.fits
        assert any("random prompts (synthetic, fixed length)" in r for r in fit.reasons)
    assert _accelerators(doc) == BASELINE
