"""Read MLPerf results back from the store: whole results for analysis, rows for listing."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TypeVar

import pydantic

from .._models import StrictModel
from ..errors import InputError, StoreError
from ..store import Store
from .models import MlperfResult

M = TypeVar("M", bound=pydantic.BaseModel)
# the tables whose ``record`` column holds a whole result (code constants: never user text)
_RECORD_TABLES = {"mlperf_results": "MLPerf result", "mlperf_training_results": "training result"}


def load_records(
    store: Store, table: str, model: type[M], keys: Sequence[str] | None = None
) -> list[M]:
    """The ``record`` of each row of ``table`` by key (all when ``keys`` is None), ordered by
    key; unknown keys are absent."""
    what = _RECORD_TABLES[table]
    if keys is None:
        rows = store.rows(f"SELECT key, record FROM {table} ORDER BY key")
    else:
        rows = store.rows(
            f"SELECT key, record FROM {table} WHERE list_contains(?, key) ORDER BY key",
            [list(keys)],
        )
    out = []
    for row in rows:
        try:
            out.append(model.model_validate_json(row["record"]))
        except pydantic.ValidationError as exc:
            raise StoreError(
                f"the stored {what} {row['key']} does not match this evidencepack's model "
                f"(written by another version?): {exc.error_count()} problem(s)"
            ) from exc
    return out


def unknown_key(store: Store, table: str, key: str) -> InputError:
    """The error for a key ``table`` does not hold, naming the nearest keys it does."""
    what = _RECORD_TABLES[table]
    keys = [row["key"] for row in store.rows(f"SELECT key FROM {table} ORDER BY key")]
    near = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(k) for k in near)}?" if near else ""
    if not keys:
        hint = f" (the store holds no {what}: run 'evidencepack mlperf import')"
    return InputError(f"no {what} {key!r} in the store{hint}")


def load_results(store: Store, keys: Sequence[str] | None = None) -> list[MlperfResult]:
    """Results by key (all when ``keys`` is None), ordered by key; unknown keys are absent."""
    return load_records(store, "mlperf_results", MlperfResult, keys)


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


class TrainingListRow(StrictModel):
    """One MLPerf Training result in ``evidencepack mlperf list``."""

    key: str
    round: str | None
    benchmark: str
    model: str | None
    dataset: str | None
    quality_metric: str | None
    quality_target: float | None
    time_to_train_min: float | None
    olympic_min: float | None
    scaling_factor: float | None
    runs_total: int
    runs_used: int
    accelerator: str | None
    accelerators_total: int | None
    checks_ok: bool


class MlperfListing(StrictModel):
    """The JSON ``evidencepack mlperf list --json`` prints: inference results, and Training
    results apart (never mixed into serving figures)."""

    db: str
    results: tuple[ListRow, ...]
    training: tuple[TrainingListRow, ...] = ()


def list_training(store: Store, *, benchmark: str | None = None) -> list[TrainingListRow]:
    """Training rows ordered by key; ``benchmark`` matches the benchmark name (any case)."""
    columns = ", ".join(TrainingListRow.model_fields)
    rows = store.rows(
        f"""
        SELECT {columns} FROM mlperf_training_results
        WHERE CAST(? AS VARCHAR) IS NULL OR lower(benchmark) = lower(?)
        ORDER BY key
        """,
        [benchmark, benchmark],
    )
    return [TrainingListRow.model_validate(row) for row in rows]


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
