"""How close the call is and what would flip it, computed from the decision's own arithmetic:
each flip found here is checked by changing that one input in the spec and deciding again."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.analyze import robustness
from evidencepack.pipeline import CompileOptions, check

from .test_fit import _edit


def test_the_sample_says_how_close_the_call_is_and_what_flips_it(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    robust = doc.robustness
    assert robust is not None
    assert (robust.recommendation, robust.runner_up) == ("mi325x-vllm", "b200-trtllm")
    costs = {v.id: v.cost_per_month for v in doc.candidates}
    assert robust.margin is not None
    assert costs["b200-trtllm"] == costs["mi325x-vllm"] * (1 + robust.margin)
    flips = {f.input: f for f in robust.flips}
    basis = flips["mi325x-vllm's billing basis"]
    assert (basis.change, basis.becomes) == ("billed per server", "b200-trtllm")
    assert flips["h200-vllm's billing basis"].becomes is None
    assert "mi325x-vllm is billed per server" in robust.sentence
    assert "69% more per month" in robust.sentence
    # the mixed billing basis is a warning naming each candidate's basis, with both rankings
    decision = next(c for c in doc.checks if c.id == "DECISION")
    assert decision.status == "WARN"
    assert "mi325x-vllm per accelerator" in decision.reason
    assert "all billed per server: b200-trtllm > mi325x-vllm > h200-vllm" in decision.reason
    # the flip found is real: billing MI325X per server recommends B200 (33,872 vs 32,120 USD)
    _edit(samples, "      billed_per: accelerator\n", "      billed_per: server\n")
    flipped = check(samples / "pack.yaml", CompileOptions())
    assert flipped.recommendation == "b200-trtllm"
    assert (
        round(next(v for v in flipped.candidates if v.id == "mi325x-vllm").cost_per_month or 0)
        == 33872
    )


def test_each_scaled_flip_is_the_smallest_that_changes_the_call(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    assert doc.robustness is not None
    bar = next(f for f in doc.robustness.flips if f.input == "the quality bar")
    assert bar.relative is not None
    assert bar.becomes is not None
    spec = samples / "pack.yaml"
    original = spec.read_text(encoding="utf-8")
    assert "    threshold: 0.80\n" in original
    for factor, expected in (
        (1 + bar.relative, bar.becomes),
        (1 + bar.relative - 0.01, "mi325x-vllm"),
    ):
        changed = f"    threshold: {0.80 * factor:.4f}\n"
        spec.write_text(original.replace("    threshold: 0.80\n", changed), encoding="utf-8")
        assert check(samples / "pack.yaml", CompileOptions()).recommendation == expected


@pytest.mark.parametrize(
    "slo",
    [
        "  ttft_p99_ms: 2000\n  tpot_p99_ms: 100\n  e2e_p99_ms: 30000\n",
        "  ttft_p99_ms: 1100\n  tpot_p99_ms: 60\n",
    ],
)
def test_slo_what_ifs_sized_once_per_outcome_flip_as_each_sized_alone(
    samples: Path, monkeypatch: pytest.MonkeyPatch, slo: str
) -> None:
    """The search sizes an SLO what-if once per outcome (which runs break which limit); with
    every SLO tried sized on its own, as before, each flip is the same."""
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    old = "  ttft_p99_ms: 2000\n  tpot_p99_ms: 100\n  e2e_p99_ms: 30000\n"
    assert old in text
    spec.write_text(text.replace(old, slo), encoding="utf-8")
    by_outcome = check(spec, CompileOptions()).robustness
    monkeypatch.setattr(robustness, "slo_outcome", lambda points, slo: (slo,))
    each_alone = check(spec, CompileOptions()).robustness
    assert by_outcome == each_alone
    assert by_outcome is not None
    limits = [f for f in by_outcome.flips if f.input.endswith("limit")]
    assert any(f.becomes is not None for f in limits), limits
