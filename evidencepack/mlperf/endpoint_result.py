"""A result measured with MLCommons' endpoint tool: ``performance/result_summary.json``.

From v6.1 some benchmarks (``qwen3.6-27b``, "agentic edge") are measured by the endpoint tool
(mlcommons ``inference-endpoint``) instead of LoadGen: the scenario folder holds
``performance/result_summary.json`` (nanoseconds, percentiles as string keys such as ``"99.0"``,
histograms) and ``accuracy/accuracy_results.json``, no LoadGen logs. Two layouts are read: one
without and one with ``early_stopping_percentiles``/``finish_reason_counts`` per metric.

The submission checker's ``EndpointsParser`` maps this file onto LoadGen's keys; the figures
taken here are the ones the official table shows: for SingleStream the mean latency
(``latency.avg``) in ms (the v6.1 table's ``Result`` for qwen3.6-27b), else tokens per second
(``tps``). A run is VALID when the tool says it completed (``complete``, ``state`` "complete")
and every issued sample completed without failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core._models import StrictModel
from ..errors import InputError
from ._files import read_json
from .endpoint_shapes import LEGACY_RESULTS, SNAPSHOT, legacy_figures, snapshot_figures
from .loadgen_log import NS_PER_MS, LoadgenLog
from .rounds import BUILT_IN_SEEDS_ROUNDS, ROUND_SEEDS

RESULT_SUMMARY = "result_summary.json"
ACCURACY_RESULTS = "accuracy_results.json"
# Where a v6.1 result keeps the endpoint tool's output, in the order looked for
# (``endpoint_shapes`` reads the last two).
ENDPOINT_OUTPUTS = (
    "performance/result_summary.json",
    "performance/results_summary.json",
    "performance/run_1/result_summary.json",
    "performance/run_1/results_summary.json",
    "performance/run_1/metrics_final_snapshot.json",
    "performance/run_1/results.json",
)

_REQUIRED = ("n_samples_issued", "n_samples_completed", "n_samples_failed", "duration_ns")
_STATS = {"min": "min", "max": "max", "avg": "mean", "median": "p50"}


class EndpointRun(StrictModel):
    """What a ``result_summary.json`` says, in ms and counts."""

    path: str
    version: str | None
    git_sha: str | None
    issued: int
    completed: int
    failed: int
    duration_ms: float
    state: str | None
    complete: bool | None
    qps: float | None
    tps: float | None
    latency_ms: dict[str, float]
    ttft_ms: dict[str, float]
    tpot_ms: dict[str, float]
    load_pattern: str | None
    target_concurrency: int | None
    sample_index_seed: int | None
    schedule_seed: int | None
    accuracy: dict[str, float] = {}
    """Scores the output file carries inline (the legacy results.json); empty otherwise."""

    @property
    def problems(self) -> tuple[str, ...]:
        """Why the run is not a complete, failure-free measurement (empty when it is)."""
        found = []
        if self.complete is not True or (self.state is not None and self.state != "complete"):
            found.append(f"the run did not complete (complete {self.complete}, state {self.state})")
        if self.failed:
            found.append(f"{self.failed} sample(s) failed")
        if self.completed != self.issued:
            found.append(f"{self.completed} of {self.issued} issued sample(s) completed")
        return tuple(found)

    def to_log(self, scenario: str) -> LoadgenLog:
        """The run as the figures a LoadGen log would give (``source`` "endpoint")."""
        reasons = self.problems
        if scenario == "SingleStream":
            value, unit = self.latency_ms.get("mean"), "Latency (ms)"
        else:
            value, unit = self.tps, "Tokens/s"
        return LoadgenLog.model_validate(
            {
                "source": "endpoint",
                "summary_path": self.path,
                "loadgen_version": f"endpoints {self.version}" if self.version else None,
                "scenario": scenario,
                "test_mode": "PerformanceOnly",
                "validity": "INVALID" if reasons else "VALID",
                "invalid_reasons": reasons,
                "query_count": self.completed,
                "samples_per_s": self.qps,
                "tokens_per_s": self.tps,
                "headline_value": value,
                "headline_unit": unit if value is not None else None,
                "latency_ms": self.latency_ms,
                "ttft_ms": self.ttft_ms,
                "tpot_ms": self.tpot_ms,
                "num_errors": self.failed,
                "seed_round": self.seed_round,
            }
        )

    @property
    def seed_round(self) -> str | None:
        """The round whose sample-index and schedule seeds this run used (its two seeds; never
        one whose seeds LoadGen ships)."""
        for name, seeds in ROUND_SEEDS.items():
            if name in BUILT_IN_SEEDS_ROUNDS:
                continue
            if (seeds.sample_index_rng_seed, seeds.schedule_rng_seed) == (
                self.sample_index_seed,
                self.schedule_seed,
            ):
                return name
        return None


def read_endpoint_run(path: Path, *, named: str | None = None) -> EndpointRun:
    """Parse a ``result_summary.json``; InputError naming the file and field if it is not one.

    ``named`` is the path to record (the file itself when None). A ``metrics_final_snapshot.json``
    or a legacy ``results.json`` is read by ``endpoint_shapes`` (the latter as a stream)."""
    where = named or str(path)
    kind = next((n for n in (Path(where).name, path.name) if n in (LEGACY_RESULTS, SNAPSHOT)), None)
    if kind is not None:
        reader = legacy_figures if kind == LEGACY_RESULTS else snapshot_figures
        figures = reader(path, where)
        figures.pop("responses", None)
        return EndpointRun(path=where, **figures)
    data = read_json(path, name=where)
    if not isinstance(data, dict):
        raise InputError(f"{where}: a result_summary.json must be a JSON object")
    missing = [k for k in _REQUIRED if not isinstance(data.get(k), int | float)]
    if missing:
        raise InputError(
            f"{where}: no {', '.join(missing)} (not an endpoint-tool result_summary.json, "
            "or cut short)"
        )
    config = data.get("run_config") if isinstance(data.get("run_config"), dict) else {}
    assert isinstance(config, dict)
    pattern = config.get("load_pattern") if isinstance(config.get("load_pattern"), dict) else {}
    assert isinstance(pattern, dict)
    duration = float(data["duration_ns"])
    if duration <= 0:
        raise InputError(f"{where}: duration_ns is {data['duration_ns']}: not a run's length")
    return EndpointRun(
        path=where,
        version=_text(data.get("version")),
        git_sha=_text(data.get("git_sha")),
        issued=int(data["n_samples_issued"]),
        completed=int(data["n_samples_completed"]),
        failed=int(data["n_samples_failed"]),
        duration_ms=duration / NS_PER_MS,
        state=_text(data.get("state")),
        complete=data.get("complete") if isinstance(data.get("complete"), bool) else None,
        qps=_number(data.get("qps")),
        tps=_number(data.get("tps")) or _osl_rate(data, duration),
        latency_ms=_stats(data, "latency", where),
        ttft_ms=_stats(data, "ttft", where),
        tpot_ms=_stats(data, "tpot", where),
        load_pattern=_text(pattern.get("type")),
        target_concurrency=_int(pattern.get("target_concurrency")),
        sample_index_seed=_int(config.get("dataloader_random_seed")),
        schedule_seed=_int(config.get("scheduler_random_seed")),
    )


def _osl_rate(data: dict[str, Any], duration_ns: float) -> float | None:
    """Tokens/s from ``output_sequence_lengths.total`` where the file states no ``tps``
    (``results_summary.json`` 0.1.0)."""
    osl = data.get("output_sequence_lengths")
    total = _number(osl.get("total")) if isinstance(osl, dict) else None
    return total / (duration_ns / 1e9) if total else None


def read_endpoint_accuracy(path: Path, *, named: str | None = None) -> dict[str, float]:
    """``accuracy_results.json``: ``average_accuracy`` as ``accuracy`` (the official table's
    Accuracy) and each accuracy dataset's ``score`` under its ``dataset_name``. Messages call
    the file ``named`` (default: ``path``)."""
    where = named or str(path)
    data = read_json(path, name=where)
    if not isinstance(data, dict):
        raise InputError("an accuracy_results.json must be a JSON object", file=where)
    metrics: dict[str, float] = {}
    average = _number(data.get("average_accuracy"))
    if average is not None:
        metrics["accuracy"] = average
    for index, row in enumerate(data.get("accuracy_scores") or ()):
        if not isinstance(row, dict) or row.get("dataset_type", "accuracy") != "accuracy":
            continue
        score = _number(row.get("score"))
        if score is not None:
            metrics[str(row.get("dataset_name") or f"accuracy_scores[{index}]")] = score
    if not metrics:
        raise InputError("no average_accuracy and no accuracy_scores[].score", file=where)
    return metrics


def _stats(data: dict[str, Any], name: str, where: str) -> dict[str, float]:
    block = data.get(name)
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise InputError(f"{where}: {name} must be an object of statistics")
    out = {
        ours: v / NS_PER_MS
        for theirs, ours in _STATS.items()
        if (v := _number(block.get(theirs))) is not None
    }
    percentiles = block.get("percentiles")
    if isinstance(percentiles, dict):
        for key, value in percentiles.items():
            number = _number(value)
            try:
                label = "p" + format(float(key), "g")
            except ValueError:
                raise InputError(
                    f"{where}: {name}.percentiles has key {key!r}: not a percentile"
                ) from None
            if number is not None:
                if number < 0:
                    raise InputError(f"{where}: {name}.percentiles.{key} is {value}: negative")
                out[label] = number / NS_PER_MS
    return out


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
