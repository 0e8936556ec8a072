"""A result's energy figures for the analysis: an inherited MLPerf power result per token.

``energy_figures(result)`` is the one call: for a result with a power figure in watts (measured
from its ``spl.txt``, or the official table's power row) and a token throughput, it returns the
average system watts, the wattage scope (the whole system at the wall), and the energy per
million output tokens, ``watts / tokens_per_s * 1e6 / 3.6e6`` kWh. Results without power, without
tokens/s, or with power only as millijoules per query (SingleStream, MultiStream) give None.
"""

from __future__ import annotations

from typing import Literal

from ..core._models import StrictModel
from .models import MlperfResult

JOULES_PER_KWH = 3.6e6


class EnergyFigures(StrictModel):
    """The energy an MLPerf result inherits to a cost: inherited, whole-system figures."""

    key: str
    scenario: str
    source: Literal["measured", "table"]
    scope: str
    average_watts: float
    tokens_per_s: float
    joules_per_token: float
    kwh_per_million_tokens: float
    window_s: float | None = None
    readings: int | None = None


def energy_figures(result: MlperfResult) -> EnergyFigures | None:
    """The result's energy per million tokens and the watts it comes from, or None."""
    power = result.power
    if power is None or power.average_watts is None or not result.tokens_per_s:
        return None
    joules = power.average_watts / result.tokens_per_s
    return EnergyFigures(
        key=result.key,
        scenario=result.scenario,
        source=power.source,
        scope=power.scope,
        average_watts=power.average_watts,
        tokens_per_s=result.tokens_per_s,
        joules_per_token=joules,
        kwh_per_million_tokens=joules * 1e6 / JOULES_PER_KWH,
        window_s=power.window_s,
        readings=power.readings,
    )
