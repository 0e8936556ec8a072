"""Read MLPerf results back from the store: whole results for analysis, rows for listing."""

from __future__ import annotations

from collections.abc import Sequence

import pydantic

from .._models import StrictModel
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


class ListRow(StrictModel):
    """One line of ``evidencepack mlperf list``."""

    key: str
    round: str | None
    benchmark: str | None
    scenario: str
    validity: str
    checks_ok: bool
    headline_value: float | None
    headline_unit: str | None
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    accelerator: str | None
    accelerators_total: int | None
    precision: str | None
    runtime: str | None
    runtime_version: str | None
    model_family: str | None = None
    log_source: str | None = None
    power_source: str | None = None
    power_watts: float | None = None
    power_metric: float | None = None
    power_unit: str | None = None
    joules_per_token: float | None = None
    design_power_watts: float | None = None


class MlperfListing(StrictModel):
    """The JSON ``evidencepack mlperf list --json`` prints."""

    db: str
    results: tuple[ListRow, ...]


def list_results(
    store: Store,
    *,
    benchmark: str | None = None,
    scenario: str | None = None,
    accelerator: str | None = None,
) -> list[ListRow]:
    """Summary rows ordered by key. Filters are case-insensitive: ``benchmark`` matches the
    canonical name, the folder name or the model family; ``accelerator`` is a substring."""
    columns = ", ".join(ListRow.model_fields)
    rows = store.rows(
        f"""
        SELECT {columns}
        FROM mlperf_results
        WHERE (CAST(? AS VARCHAR) IS NULL OR lower(benchmark) = lower(?)
               OR lower(benchmark_dir) = lower(?) OR lower(model_family) = lower(?))
          AND (CAST(? AS VARCHAR) IS NULL OR lower(scenario) = lower(?))
          AND (CAST(? AS VARCHAR) IS NULL OR contains(lower(accelerator), lower(?)))
        ORDER BY key
        """,
        [benchmark, benchmark, benchmark, benchmark, scenario, scenario, accelerator, accelerator],
    )
    return [ListRow.model_validate(row) for row in rows]
