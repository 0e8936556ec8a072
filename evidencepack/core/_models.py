"""Shared pydantic building blocks: the strict base model and constrained types."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict, StringConstraints

Sha256Hex = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A lowercase hex sha256 digest."""

NonEmptyStr = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]
# Strict: a YAML ``true`` or ``"3"`` is not a number (lax pydantic reads ``true`` as 1.0).
PositiveFloat = Annotated[float, Strict(), Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)]


class StrictModel(BaseModel):
    """Base of every document model: unknown keys are errors and instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False, allow_inf_nan=False)
