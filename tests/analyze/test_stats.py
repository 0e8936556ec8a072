"""Confidence intervals against published reference values."""

from __future__ import annotations

import pytest

from evidencepack.analyze.stats import bootstrap_mean_interval, wilson_interval, z_for


def test_z_for_95() -> None:
    assert z_for(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_wilson_matches_reference_values() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662.
    low, high = wilson_interval(81, 263, 0.95)
    assert low == pytest.approx(0.2553, abs=1e-4)
    assert high == pytest.approx(0.3662, abs=1e-4)
    # Edge cases keep inside [0, 1] and are not degenerate.
    low, high = wilson_interval(0, 10, 0.95)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(10, 10, 0.95)
    assert high == pytest.approx(1.0, abs=1e-12)
    assert low == pytest.approx(0.7225, abs=1e-4)


def test_wilson_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="no items"):
        wilson_interval(0, 0, 0.95)
    with pytest.raises(ValueError, match="outside"):
        wilson_interval(11, 10, 0.95)


def test_bootstrap_is_deterministic_and_covers_the_mean() -> None:
    values = [0.1 * (i % 10) for i in range(200)]
    first = bootstrap_mean_interval(values, 0.95)
    assert first == bootstrap_mean_interval(values, 0.95)
    mean = sum(values) / len(values)
    assert first[0] < mean < first[1]
    # The standard error of this mean is about 0.0203; a 95% interval spans about 4 of them.
    assert first[1] - first[0] == pytest.approx(4 * 0.0203, rel=0.15)
    assert bootstrap_mean_interval(values, 0.95, seed=1) != first
