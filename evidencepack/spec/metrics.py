"""The range a quality metric's item scores can take: stated in the spec, else known by its name.

A value outside the range is a finding about the file, never rescaled: ``pass_rate`` written as
87 is not read as 0.87. A metric whose name says nothing known and whose range the spec does not
state has no range; nothing is guessed for it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, Strict, model_validator

from .types import SpecModel

Bound = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-1e12, le=1e12)]

RATES = frozenset(
    {
        "pass_rate",
        "pass",
        "passed",
        "accuracy",
        "acc",
        "acc_norm",
        "exact_match",
        "em",
        "f1",
        "precision",
        "recall",
        "rouge1",
        "rouge2",
        "rougel",
        "rougelsum",
        "correct",
    }
)
"""Metrics whose item scores are fractions from 0 to 1 (besides any ``*_rate`` or ``pass@k``)."""

_RATE = re.compile(r"(^|_)rate$|^pass@\d+$")
_COUNT = re.compile(r"(^|_)(count|errors)$")


class ScoreRange(SpecModel):
    """The range a metric's item scores can take (either end may be open)."""

    min: Bound | None = None
    """The lowest score an item can have (none: no lower end)."""
    max: Bound | None = None
    """The highest score an item can have (none: no upper end)."""

    @model_validator(mode="after")
    def _ordered(self) -> ScoreRange:
        if self.min is not None and self.max is not None and self.min >= self.max:
            raise ValueError(f"min {self.min:g} must be below max {self.max:g}")
        return self


@dataclass(frozen=True)
class MetricRange:
    """A metric's range and where it comes from (the spec, or the metric's name)."""

    low: float
    high: float
    source: str

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies within the range."""
        return self.low <= value <= self.high

    def text(self) -> str:
        """The range in words, e.g. ``0 to 1``, ``0 or more``."""
        if math.isinf(self.high):
            return f"{self.low:g} or more" if not math.isinf(self.low) else "any number"
        if math.isinf(self.low):
            return f"{self.high:g} or less"
        return f"{self.low:g} to {self.high:g}"


def metric_range(metric: str, stated: ScoreRange | None) -> MetricRange | None:
    """The range of ``metric``'s item scores: the spec's ``scoring.range``, else a rate (0 to 1)
    or a count (0 or more) by its name, else None (unknown: never guessed)."""
    if stated is not None:
        return MetricRange(
            -math.inf if stated.min is None else stated.min,
            math.inf if stated.max is None else stated.max,
            "the spec's scoring.range",
        )
    name = metric.strip().lower()
    if name in RATES or _RATE.search(name):
        return MetricRange(0.0, 1.0, f"{metric} is a fraction")
    if _COUNT.search(name):
        return MetricRange(0.0, math.inf, f"{metric} is a count")
    return None
