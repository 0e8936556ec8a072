"""Confidence intervals: Wilson score for pass rates, seeded percentile bootstrap for means."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import NormalDist

BOOTSTRAP_SEED = 20240917
"""Fixed so the same scores always give the same interval (and the same report bytes)."""
BOOTSTRAP_RESAMPLES = 2000


def z_for(confidence_level: float) -> float:
    """The two-sided standard-normal quantile, e.g. 1.95996 for 0.95."""
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence level must be in (0, 1), got {confidence_level}")
    return NormalDist().inv_cdf(0.5 + confidence_level / 2)


def wilson_interval(successes: int, n: int, confidence_level: float) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927); well-behaved at 0, 1 and small n."""
    if n <= 0:
        raise ValueError("no items to compute an interval over")
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    z = z_for(confidence_level)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean_interval(
    values: Sequence[float],
    confidence_level: float,
    *,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, with a fixed seed (deterministic)."""
    n = len(values)
    if n == 0:
        raise ValueError("no items to compute an interval over")
    rng = random.Random(seed)
    data = list(values)
    means = sorted(math.fsum(rng.choices(data, k=n)) / n for _ in range(resamples))
    alpha = (1 - confidence_level) / 2
    low_index = max(0, math.floor(alpha * resamples))
    high_index = min(resamples - 1, math.ceil((1 - alpha) * resamples) - 1)
    return means[low_index], means[high_index]
