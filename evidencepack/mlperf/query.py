"""Read MLPerf results back from the store: whole results for analysis, rows for listing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from ..errors import StoreError
from ..store import Store
from .models import MlperfResult


def load_results(store: Store, keys: Sequence[str] | None = None) -> list[MlperfResult]:
    """Results by key (all when ``keys`` is None), ordered by key; unknown keys are absent."""
    if keys is None:
        rows = store.rows("SELECT key, record FROM mlperf_results ORDER BY key")
    else:
        rows = store.rows(
            "SELECT key, record FROM mlperf_results WHERE list_contains(?, key) ORDER BY key",
            [list(keys)],
        )
    out = []
    for row in rows:
        try:
            out.append(MlperfResult.model_validate_json(row["record"]))
        except pydantic.ValidationError as exc:
            raise StoreError(
                f"the stored MLPerf result {row['key']} does not match this evidencepack's model "
                f"(written by another version?): {exc.error_count()} problem(s)"
            ) from exc
    return out


LIST_COLUMNS = (
    "key",
    "benchmark",
    "scenario",
    "validity",
    "checks_ok",
    "headline_value",
    "headline_unit",
    "ttft_p99_ms",
    "tpot_p99_ms",
    "accelerator",
    "accelerators_total",
    "precision",
    "runtime",
    "runtime_version",
)


def list_results(
    store: Store,
    *,
    benchmark: str | None = None,
    scenario: str | None = None,
    accelerator: str | None = None,
) -> list[dict[str, Any]]:
    """Summary rows ordered by key; filters are case-insensitive (accelerator: substring)."""
    return store.rows(
        f"""
        SELECT {", ".join(LIST_COLUMNS)}
        FROM mlperf_results
        WHERE (CAST(? AS VARCHAR) IS NULL OR lower(benchmark) = lower(?)
               OR lower(benchmark_dir) = lower(?) OR lower(model_family) = lower(?))
          AND (CAST(? AS VARCHAR) IS NULL OR lower(scenario) = lower(?))
          AND (CAST(? AS VARCHAR) IS NULL OR contains(lower(accelerator), lower(?)))
        ORDER BY key
        """,
        [benchmark, benchmark, benchmark, benchmark, scenario, scenario, accelerator, accelerator],
    )
