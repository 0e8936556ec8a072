"""The per-round rule tables: the constants the checker enforces, and the round seeds."""

from __future__ import annotations

import pytest

from evidencepack.mlperf.benchmarks import resolve_benchmark
from evidencepack.mlperf.rounds import ROUND_SEEDS, Seeds
from evidencepack.mlperf.rules import KNOWN_ROUNDS, ROUND_RULES, round_for_seeds
from evidencepack.spec.types import KNOWN_ROUNDS as SPEC_ROUNDS


def test_spec_uses_the_rules_rounds() -> None:
    assert SPEC_ROUNDS is KNOWN_ROUNDS
    assert tuple(ROUND_RULES) == KNOWN_ROUNDS


@pytest.mark.parametrize(
    ("bench", "scenario", "ttft_ms", "tpot_ms"),
    [
        ("llama2-70b-99", "Server", 2000, 200),
        ("llama2-70b-99.9", "Interactive", 450, 40),
        ("mixtral-8x7b", "Server", 2000, 200),
        ("llama3.1-405b", "Server", 6000, 175),
        ("llama3.1-405b", "Interactive", 4500, 80),
        ("llama3.1-8b", "Server", 2000, 100),
        ("llama3.1-8b", "Interactive", 500, 30),
        ("deepseek-r1", "Server", 2000, 80),
    ],
)
def test_v51_token_limits(bench: str, scenario: str, ttft_ms: float, tpot_ms: float) -> None:
    limits = ROUND_RULES["v5.1"].token_limits[bench][scenario]
    assert (limits.ttft_ms, limits.tpot_ms) == (ttft_ms, tpot_ms)


def test_interactive_limits_by_round() -> None:
    assert "Interactive" not in ROUND_RULES["v5.1"].token_limits["deepseek-r1"]
    assert ROUND_RULES["v6.0"].token_limits["deepseek-r1"]["Interactive"].tpot_ms == 15
    assert ROUND_RULES["v6.0"].token_limits["gpt-oss-120b"]["Server"].ttft_ms == 3000
    assert "Interactive" not in ROUND_RULES["v5.1"].token_limits["mixtral-8x7b"]
    assert "gptj-99" not in ROUND_RULES["v5.1"].benchmarks
    assert ROUND_RULES["v4.1"].latency_limit_ms["gptj-99"] == 20_000


@pytest.mark.parametrize(
    ("bench", "metric", "bound"),
    [
        ("llama2-70b-99", "rouge1", 43.9869),
        ("llama2-70b-99.9", "rouge1", 44.3868),
        ("llama2-70b-99", "rougeL", 28.3300),
        ("gptj-99", "rouge2", 19.9223),
        ("gptj-99.9", "rougeL", 29.9581),
        ("mixtral-8x7b", "gsm8k", 72.9234),
        ("llama3.1-405b", "exact_match", 89.2322),
        ("llama3.1-8b", "rougeLsum", 35.4351),
        ("deepseek-r1", "exact_match", 80.5446),
    ],
)
def test_accuracy_thresholds_match_domain_table(bench: str, metric: str, bound: float) -> None:
    rules = ROUND_RULES["v5.0" if bench.startswith("gptj") else "v5.1"]
    (target,) = [t for t in rules.accuracy[bench] if t.metric == metric and not t.upper]
    assert target.bound == pytest.approx(bound, abs=5e-5)


def test_gen_len_and_token_bands() -> None:
    gptj = [t for t in ROUND_RULES["v5.0"].accuracy["gptj-99"] if t.metric == "gen_len"]
    assert [t.bound for t in gptj] == [pytest.approx(3615190.2)]
    band = [
        t for t in ROUND_RULES["v5.1"].accuracy["llama2-70b-99"] if t.metric == "tokens_per_sample"
    ]
    assert sorted((t.upper, round(t.bound, 3)) for t in band) == [(False, 265.005), (True, 323.895)]


def test_seeds_identify_their_round() -> None:
    assert round_for_seeds(ROUND_SEEDS["v4.1"]) == "v4.1"
    v51 = Seeds(
        qsl_rng_seed=1780908523862526354,
        sample_index_rng_seed=14771362308971278857,
        schedule_rng_seed=18209322760996052031,
    )
    assert round_for_seeds(v51) == "v5.1"
    assert round_for_seeds(v51.model_copy(update={"qsl_rng_seed": 0})) is None
    assert round_for_seeds(None) is None
    assert len({s.qsl_rng_seed for s in ROUND_SEEDS.values()}) == len(KNOWN_ROUNDS)


@pytest.mark.parametrize(
    ("name", "canonical", "interactive"),
    [
        ("llama3_1-8b", "llama3.1-8b", False),
        ("llama3.1-8b", "llama3.1-8b", False),
        ("llama3_1-8b-edge", "llama3.1-8b-edge", False),
        ("llama2-70b-interactive-99", "llama2-70b-99", True),
        ("llama2-70b-interactive-99.9", "llama2-70b-99.9", True),
        ("Mixtral-8x7b", "mixtral-8x7b", False),
    ],
)
def test_benchmark_aliases(name: str, canonical: str, interactive: bool) -> None:
    found = resolve_benchmark(name)
    assert found is not None
    assert (found.benchmark, found.interactive) == (canonical, interactive)


@pytest.mark.parametrize("name", ["llama3_1-70b-fp8_dyn", "resnet", "llama9", ""])
def test_unknown_benchmarks(name: str) -> None:
    assert resolve_benchmark(name) is None
