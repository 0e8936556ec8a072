"""Read MLPerf results back from the store: whole results for analysis, rows for listing."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TypeVar

import pydantic
from pydantic import Field

from ..core._models import StrictModel
from ..errors import InputError, StoreError
from ..store import Store
from .models import MlperfResult

M = TypeVar("M", bound=pydantic.BaseModel)
# the tables whose ``record`` column holds a whole result (code constants: never user text)
_RECORD_TABLES = {
    "mlperf_results": "MLPerf result",
    "mlperf_training_results": "training result",
    "mlperf_endpoints_curves": "MLPerf Endpoints curve",
}


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

    key: str = Field(description="the result's key in the store")
    round: str | None = Field(description="the MLPerf round; None when unknown")
    benchmark: str | None = Field(
        description="the canonical benchmark name; None when not recognised"
    )
    scenario: str = Field(description="the LoadGen scenario")
    validity: str = Field(description="LoadGen's verdict: VALID or INVALID")
    checks_ok: bool = Field(description="true when no re-applied checker rule failed")
    headline_value: float | None = Field(
        description="the figure the official table reports; None when not logged"
    )
    headline_unit: str | None = Field(description="headline_value's unit; None when not logged")
    ttft_p99_ms: float | None = Field(
        description="p99 time to first token, milliseconds; None when not logged"
    )
    tpot_p99_ms: float | None = Field(
        description="p99 time per output token, milliseconds; None when not logged"
    )
    accelerator: str | None = Field(
        description="the accelerator as the system description names it; None when not stated"
    )
    accelerators_total: int | None = Field(
        description="nodes x accelerators per node; None when either is not stated"
    )
    precision: str | None = Field(description="the normalised precision; None when not stated")
    runtime: str | None = Field(
        description="the first runtime named in the software stack; None when none is recognised"
    )
    runtime_version: str | None = Field(description="that runtime's version; None when not stated")
    model_family: str | None = Field(
        default=None, description="the benchmark's model family; None when not recognised"
    )
    log_source: str | None = Field(
        default=None, description="which log the figures were read from (detail, summary, endpoint)"
    )
    power_source: str | None = Field(
        default=None,
        description="measured or table (MLPerf Power); None for a result without power",
    )
    power_watts: float | None = Field(
        default=None, description="average system watts over the power window; None without power"
    )
    power_metric: float | None = Field(
        default=None,
        description=(
            "the official power figure (W, or mJ per query for "
            "SingleStream/MultiStream); None without power"
        ),
    )
    power_unit: str | None = Field(
        default=None, description="power_metric's unit; None without power"
    )
    joules_per_token: float | None = Field(
        default=None, description="average watts / tokens per second; None without both"
    )
    design_power_watts: float | None = Field(
        default=None, description="the system's rated (design) power, watts; None when not stated"
    )


class TrainingListRow(StrictModel):
    """One MLPerf Training result in ``evidencepack mlperf list``."""

    key: str = Field(
        description=(
            "the training result's key: "
            "training/<round>/<division>/<submitter>/<system>/<benchmark>"
        )
    )
    round: str | None = Field(description="the MLPerf Training round; None when unknown")
    benchmark: str = Field(description="the training benchmark (e.g. llama2_70b_lora)")
    model: str | None = Field(description="the benchmark's reference model and task")
    dataset: str | None = Field(description="the benchmark's dataset")
    quality_metric: str | None = Field(
        description="the quality metric the runs must reach (e.g. eval loss)"
    )
    quality_target: float | None = Field(
        description="the quality target a run must reach to converge"
    )
    time_to_train_min: float | None = Field(
        description=(
            "the score: the olympic mean of the converged runs x the scaling "
            "factor, minutes; None when too many runs did not converge"
        )
    )
    olympic_min: float | None = Field(
        description=(
            "the olympic mean of the converged runs, minutes, before scaling; None "
            "when too many runs did not converge"
        )
    )
    scaling_factor: float | None = Field(
        description="the review committee's scaling factor (1.0 without scaling.json)"
    )
    runs_total: int = Field(description="run files the result holds")
    runs_used: int = Field(description="runs the olympic mean averages")
    accelerator: str | None = Field(
        description="the accelerator as the system description names it; None when not stated"
    )
    accelerators_total: int | None = Field(
        description="nodes x accelerators per node; None when either is not stated"
    )
    checks_ok: bool = Field(description="true when no re-applied rule failed")


class EndpointsListRow(StrictModel):
    """One MLPerf Endpoints curve in ``evidencepack mlperf list``."""

    key: str = Field(description="endpoints/<layout>/<division>/<submission>/<system>/<model>")
    layout: str = Field(description="v1.0 or v0.7 (each with its own definitions)")
    model_name: str | None = Field(description="the model the curve declares")
    accelerator: str | None = Field(description="the accelerator model name")
    accelerators_total: int | None = Field(description="nodes x accelerators per node")
    points: int = Field(description="the curve's points")
    power_watts: float | None = Field(description="provisioned power, W (None: none derived)")
    power_tier: str | None = Field(description="declared, computed or mlc_estimated")
    checks_failed: int = Field(description="re-applied rules that failed")


def list_endpoints(store: Store, *, benchmark: str | None = None) -> list[EndpointsListRow]:
    """Endpoints curves ordered by key; ``benchmark`` matches the model name or folder."""
    columns = ", ".join(EndpointsListRow.model_fields)
    rows = store.rows(
        f"""
        SELECT {columns} FROM mlperf_endpoints_curves
        WHERE CAST(? AS VARCHAR) IS NULL OR lower(model_name) = lower(?)
              OR lower(model) = lower(?)
        ORDER BY key
        """,
        [benchmark, benchmark, benchmark],
    )
    return [EndpointsListRow.model_validate(row) for row in rows]


class MlperfListing(StrictModel):
    """The JSON ``evidencepack mlperf list --json`` prints: inference results, and Training
    results apart (never mixed into serving figures)."""

    db: str = Field(description="the store the results were listed from, as given")
    results: tuple[ListRow, ...] = Field(
        description="the MLPerf inference results matching the filters, by key"
    )
    training: tuple[TrainingListRow, ...] = Field(
        default=(),
        description=(
            "the MLPerf Training results matching the filters, by key (apart: never "
            "serving figures)"
        ),
    )
    endpoints: tuple[EndpointsListRow, ...] = Field(
        default=(),
        description="the MLPerf Endpoints curves matching the filters, by key",
    )


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
