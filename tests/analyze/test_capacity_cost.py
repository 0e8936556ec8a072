"""Capacity and cost against hand-computed values and DOMAIN.md's worked example."""

from __future__ import annotations

import dataclasses
import math

import pytest

from evidencepack.analyze.capacity import RunPoint, conservative, size_candidate
from evidencepack.analyze.cost import cost_of, per_million_output_tokens
from evidencepack.spec.load import load_spec

from ..conftest import SAMPLE_SPEC


def _point(
    run: str,
    rate: float,
    ttft: float,
    tpot: float,
    *,
    tokens: float | None = None,
    failed: int = 0,
    load: str = "open_loop",
    concurrency: int | None = None,
    e2e_mean: float | None = None,
    e2e: float | None = 20000.0,
) -> RunPoint:
    return RunPoint(
        run=run,
        load=load,
        offered_rate_rps=rate if load == "open_loop" else None,
        concurrency=concurrency,
        completed=1000,
        failed=failed,
        request_rate_rps=rate,
        output_tokens_per_s=tokens if tokens is not None else rate * 260,
        ttft_p99_ms=ttft,
        tpot_p99_ms=tpot,
        e2e_p99_ms=e2e,
        e2e_mean_ms=e2e_mean,
    )


@pytest.fixture(scope="module")
def spec():  # type: ignore[no-untyped-def]
    return load_spec(SAMPLE_SPEC).spec


def test_domain_worked_example_half_a_dollar() -> None:
    # 8 accelerators at $2.00/h serving 8840.42 tok/s: about $0.50 per 1M tokens at 100%.
    value = per_million_output_tokens(2.00, 8, 8840.42, 1.0)
    assert value == pytest.approx(16 / (8840.42 * 3600) * 1e6)
    assert round(value, 2) == 0.50
    assert per_million_output_tokens(2.00, 8, 0.0) is None


def test_sweep_operating_point_and_sizing(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("mi325x-vllm")  # 1 accelerator per replica, 8 per node
    points = [
        _point("r1", 1.0, 600, 40),
        _point("r2", 2.0, 900, 70),
        _point("r3", 2.4, 1900, 99),
        _point("r4", 3.0, 4200, 160),
    ]
    cap = size_candidate(spec, candidate, points)
    assert cap.confidence == "sweep"
    assert cap.operating_point_run == "r3"
    assert cap.operating_point_rps == pytest.approx(2.4)
    required = 14 * 1.25
    assert cap.required_rate_rps == pytest.approx(required)
    assert cap.replicas == math.ceil(required / 2.4) == 8
    assert cap.accelerators == 8
    assert cap.servers == 1
    assert [lp.meets_slo for lp in cap.load_points] == [True, True, True, False]
    assert "TTFT p99 4200.0 ms > 2000 ms" in cap.load_points[-1].misses
    cost = cost_of(spec, candidate, cap)
    tokens = 2.4 * 260
    assert cost.per_million_output_tokens == pytest.approx(2.90 / (tokens * 3600) * 1e6 / 0.6)
    assert cost.per_request == pytest.approx(2.90 / (2.4 * 3600) / 0.6)
    assert cost.per_month == pytest.approx(8 * 2.90 * 730)


def test_multi_accelerator_replicas_and_servers(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("h200-vllm")  # 2 per replica, 8 per node
    cap = size_candidate(spec, candidate, [_point("a", 1.5, 500, 50), _point("b", 3.0, 9000, 90)])
    assert cap.replicas == math.ceil(17.5 / 1.5) == 12
    assert cap.accelerators == 24
    assert cap.servers == 3


def test_slo_never_met_is_ineligible_with_reason(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("b200-trtllm")
    cap = size_candidate(spec, candidate, [_point("x", 1.0, 2500, 50), _point("y", 2.0, 3000, 150)])
    assert cap.operating_point_rps is None
    assert cap.accelerators is None
    assert "not met at any measured load" in cap.reason
    assert "TTFT p99 2500.0 ms > 2000 ms" in cap.reason
    cost = cost_of(spec, candidate, cap)
    assert cost.per_million_output_tokens is None
    assert cost.per_month is None


def test_zero_throughput_and_no_runs(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("b200-trtllm")
    zero = RunPoint(
        run="z",
        load="open_loop",
        offered_rate_rps=5,
        concurrency=None,
        completed=0,
        failed=0,
        request_rate_rps=0.0,
        output_tokens_per_s=0.0,
        ttft_p99_ms=None,
        tpot_p99_ms=None,
        e2e_p99_ms=None,
        e2e_mean_ms=None,
    )
    cap = size_candidate(spec, candidate, [zero])
    assert cap.operating_point_rps is None
    assert cap.reason == "zero throughput measured: capacity cannot be sized"
    none = size_candidate(spec, candidate, [])
    assert none.confidence == "none"
    assert "no serving run" in none.reason


def test_single_point_is_flagged_lower_confidence(spec) -> None:  # type: ignore[no-untyped-def]
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [_point("only", 3.0, 800, 60)])
    assert cap.confidence == "single_point"
    assert cap.operating_point_rps == 3.0
    assert "one load point only" in cap.reason
    assert "lower bound" in cap.reason


def test_error_rate_breaks_the_slo(spec) -> None:  # type: ignore[no-untyped-def]
    cap = size_candidate(
        spec,
        spec.candidate("b200-trtllm"),
        [_point("ok", 1.0, 500, 50), _point("errs", 2.0, 500, 50, failed=50)],
    )
    assert cap.operating_point_run == "ok"
    assert any("error rate" in m for m in cap.load_points[1].misses)


def test_closed_loop_without_a_rate_uses_littles_law(spec) -> None:  # type: ignore[no-untyped-def]
    point = dataclasses.replace(
        _point("c16", 99.0, 500, 50, load="closed_loop", concurrency=16, e2e_mean=8000.0),
        request_rate_rps=None,
    )
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [point])
    assert cap.method == "littles_law"
    assert cap.operating_point_rps == pytest.approx(16 / 8.0)


def test_closed_loop_prefers_the_measured_rate_and_names_both(spec) -> None:  # type: ignore[no-untyped-def]
    """Little's law from a handful of requests: 16 prompts at concurrency 64 over 8 s mean latency
    gave 64 / 8 = 8.0 req/s; the file measured 1.88 req/s, which is what is used now, and a
    disagreement between the two is named."""
    handful = dataclasses.replace(
        _point("c64", 1.88, 500, 50, load="closed_loop", concurrency=64, e2e_mean=8000.0),
        completed=16,
    )
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [handful])
    assert cap.method == "measured"
    assert cap.operating_point_rps == pytest.approx(1.88)
    # without the file's rate, the in-flight count is capped at the requests completed
    bare = dataclasses.replace(handful, request_rate_rps=None)
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [bare])
    assert cap.operating_point_rps == pytest.approx(16 / 8.0)
    # 64 in flight for 8 s is 8.0 req/s by Little's law, against 1.88 measured: both named
    many = dataclasses.replace(handful, completed=640)
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [many])
    assert cap.operating_point_rps == pytest.approx(1.88)
    (note,) = cap.load_points[0].notes
    assert "Little's law gives 8.000 req/s (64 in flight / 8.000 s" in note
    assert "measured 1.880 req/s" in note
    assert note in cap.reason


def test_repeats_at_one_load_count_conservatively(spec) -> None:  # type: ignore[no-untyped-def]
    """Of two runs at the same load, one meeting the SLO and one not, the load fails: the
    passing repeat is not the operating point, and both are shown."""
    good = _point("qps3-a", 3.0, 800, 60)
    bad = _point("qps3-b", 3.0, 2500, 60)
    low = _point("qps2", 2.0, 700, 55)
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [good, bad, low])
    assert cap.operating_point_run == "qps2"
    shown = {lp.run: lp for lp in cap.load_points}
    assert set(shown) == {"qps3-a", "qps3-b", "qps2"}
    assert not shown["qps3-a"].meets_slo
    assert "a repeat at this load (qps3-b) missed the SLO" in shown["qps3-a"].misses[0]
    # two passing repeats: the slower one stands for the load
    fast, slow = _point("r-fast", 3.0, 800, 60), _point("r-slow", 2.9, 800, 60)
    slow = dataclasses.replace(slow, offered_rate_rps=3.0)
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [fast, slow])
    assert cap.operating_point_run == "r-slow"
    assert cap.operating_point_rps == pytest.approx(2.9)


def test_p99_from_few_requests_uses_the_maximum(spec) -> None:  # type: ignore[no-untyped-def]
    point = dataclasses.replace(
        _point("tiny", 3.0, 800, 60), latency_count=24, ttft_max_ms=2400.0, tpot_max_ms=70.0
    )
    held = conservative(point, spec.fit.min_requests_for_p99)
    assert (held.ttft_p99_ms, held.tpot_p99_ms) == (2400.0, 70.0)
    assert any("rests on 24 requests" in n for n in held.notes)
    cap = size_candidate(spec, spec.candidate("b200-trtllm"), [held])
    assert cap.operating_point_rps is None  # the maximum TTFT breaks the 2000 ms SLO
    enough = dataclasses.replace(point, latency_count=500)
    assert conservative(enough, 100) is enough
    no_max = dataclasses.replace(point, ttft_max_ms=None)
    assert conservative(no_max, 100).ttft_p99_ms is None


def test_cost_spread_over_repeats(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("mi325x-vllm")
    points = [_point("a", 2.0, 900, 70, tokens=500.0), _point("b", 2.0, 950, 72, tokens=540.0)]
    cap = size_candidate(spec, candidate, points)
    cost = cost_of(spec, candidate, cap, repeats=cap.load_points)
    assert cost.spread_per_million_output_tokens is not None
    assert cost.spread_per_million_output_tokens.runs == 2
    assert cost.spread_per_million_output_tokens.minimum == pytest.approx(
        2.90 / (540 * 3600) * 1e6 / 0.6
    )
    assert cost.spread_per_million_output_tokens.maximum == pytest.approx(
        2.90 / (500 * 3600) * 1e6 / 0.6
    )


def test_whole_servers_are_paid_for_unless_billed_per_accelerator(spec) -> None:  # type: ignore[no-untyped-def]
    """9 accelerators on servers of 8: billed per server that is 16 slots, 7 idle and priced."""
    points = [_point("a", 2.0, 900, 70)]  # ceil(17.5 / 2.0) = 9 replicas
    by_accelerator = spec.candidate("mi325x-vllm")
    assert by_accelerator.price.billed_per == "accelerator"
    by_server = by_accelerator.model_copy(
        update={"price": by_accelerator.price.model_copy(update={"billed_per": "server"})}
    )
    cap = size_candidate(spec, by_server, points)
    assert (cap.accelerators, cap.servers) == (9, 2)
    whole = cost_of(spec, by_server, cap)
    assert (whole.accelerators_billed, whole.idle_accelerators) == (16, 7)
    assert whole.per_month == pytest.approx(16 * 2.90 * 730)
    assert whole.per_month_idle == pytest.approx(7 * 2.90 * 730)
    assert whole.per_year == pytest.approx(16 * 2.90 * 730 * 12)
    assert "billed per server: 2 server(s) x 8 = 16 accelerators, 7 idle" in whole.arithmetic
    single = cost_of(spec, by_accelerator, cap)
    assert (single.accelerators_billed, single.idle_accelerators) == (9, 0)
    assert single.per_month == pytest.approx(9 * 2.90 * 730)
    assert single.per_year == pytest.approx(single.per_month * 12)
    # Cost per 1M tokens is per replica at the operating point: the billing rule leaves it alone.
    assert whole.per_million_output_tokens == single.per_million_output_tokens


def test_price_source_and_date_are_optional_and_billing_defaults_to_whole_servers() -> None:
    from evidencepack.spec.models import Price

    price = Price.model_validate({"per_accelerator_hour": 2.5})
    assert (price.billed_per, price.source, price.as_of) == ("server", None, None)
    with pytest.raises(ValueError, match="billed_per"):
        Price.model_validate({"per_accelerator_hour": 2.5, "billed_per": "rack"})
