"""The spec's building blocks: the described model base and the constrained value types.

Every spec module (``models``, ``fit``, ``cost``) builds on these, so each field is described once.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, Strict, StringConstraints

from ..core._models import StrictModel

KNOWN_ROUNDS: tuple[str, ...] = ("v4.0", "v4.1", "v5.0", "v5.1", "v6.0", "v6.1")
"""The MLPerf Inference rounds evidencepack reads, oldest first: what a reference's ``round``
may name (``mlperf/rounds.py`` holds the LoadGen seeds of each, ``mlperf/rules.py`` its rules)."""

Slug = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
CheckId = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$")]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
PositiveInt = Annotated[int, Strict(), Field(gt=0, le=1_000_000)]
# Bounds that keep every figure of the cost and capacity model finite and meaningful: a price
# of 1e308 overflows a month's cost to inf, a peak of 1e-320 underflows to "0 accelerators".
PricePerHour = Annotated[float, Strict(), Field(gt=0, le=1e6, allow_inf_nan=False)]
Rate = Annotated[float, Strict(), Field(ge=1e-6, le=1e9, allow_inf_nan=False)]
Tokens = Annotated[float, Strict(), Field(ge=1e-3, le=1e8, allow_inf_nan=False)]
Millis = Annotated[float, Strict(), Field(ge=1e-3, le=1e9, allow_inf_nan=False)]


class SpecModel(StrictModel):
    """A strict model whose attribute docstrings are its fields' descriptions.

    Every field of the spec is described once, under the field, and the description travels into
    ``schemas/pack-spec.v1.schema.json`` (what editors show on hover) and the README's tables.
    """

    model_config = ConfigDict(use_attribute_docstrings=True)
