"""The other endpoint-tool output shapes of MLPerf Inference v6.1, read into the same figures.

Besides ``performance/result_summary.json`` (``endpoint_result``), v6.1 results hold:

- ``performance/results_summary.json`` (plural, version 0.1.0): the same keys without ``tps``,
  ``qps`` or ``run_config``; ``endpoint_result.read_endpoint_run`` reads it, deriving tokens/s
  from ``output_sequence_lengths.total / duration``;
- ``performance/run_1/metrics_final_snapshot.json``: the metrics aggregator's counters and series
  (``tracked_samples_*``, ``legacy_loadgen_window_duration_ns``; ``ttft_ns``, ``tpot_ns``,
  ``sample_latency_ns``, ``osl`` with percentiles); QPS and TPS are over the LoadGen window, as
  the client's ``report.txt`` prints them;
- the legacy ``performance/run_1/results.json`` (``{config, results{total, successful, failed,
  elapsed_time, qps}, accuracy_scores{<dataset>: {score}}, responses{<uuid>: <output>}}``), about
  20 MB because every response is inline: read as a stream of JSON events (``ijson``), each
  response counted and dropped, so memory stays bounded whatever the file's size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ijson  # type: ignore[import-untyped]

from ..errors import InputError
from ._files import read_json

NS_PER_MS = 1_000_000.0
LEGACY_RESULTS = "results.json"
SNAPSHOT = "metrics_final_snapshot.json"
_SMALL_KEYS = ("config", "results", "accuracy_scores")


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def read_legacy_results(path: Path, where: str) -> dict[str, Any]:
    """The legacy ``results.json`` in bounded memory: ``config``, ``results`` and
    ``accuracy_scores`` built as objects, ``responses`` only counted (with the number of empty
    ones). Returns those three plus ``responses`` and ``empty_responses`` counts."""
    found: dict[str, Any] = {}
    responses = empty = 0
    builder: Any = None
    building: str | None = None
    try:
        with path.open("rb") as handle:
            for prefix, event, value in ijson.parse(handle, use_float=True):
                if building is not None:
                    builder.event(event, value)
                    if prefix == building and event in ("end_map", "end_array"):
                        found[building] = builder.value
                        building = None
                    continue
                if prefix in _SMALL_KEYS and event in ("start_map", "start_array"):
                    builder = ijson.ObjectBuilder()
                    builder.event(event, value)
                    building = prefix
                elif prefix in _SMALL_KEYS:
                    found[prefix] = value
                elif prefix == "responses" and event == "map_key":
                    responses += 1
                elif event == "string" and value == "" and prefix.startswith("responses."):
                    empty += 1
    except ijson.JSONError as exc:
        raise InputError(f"{where}: not valid JSON ({exc}); the file is cut short?") from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=where) from exc
    found["responses"] = responses
    found["empty_responses"] = empty
    return found


def legacy_figures(path: Path, where: str) -> dict[str, Any]:
    """``EndpointRun`` fields of a legacy ``results.json`` (plus ``accuracy``)."""
    data = read_legacy_results(path, where)
    results = data.get("results")
    if not isinstance(results, dict):
        raise InputError(f"{where}: no results object (not the endpoint client's results.json)")
    total, ok, failed = (results.get(k) for k in ("total", "successful", "failed"))
    elapsed = _number(results.get("elapsed_time"))
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (total, ok, failed)):
        raise InputError(f"{where}: results needs whole-number total, successful and failed")
    if elapsed is None or elapsed <= 0:
        raise InputError(f"{where}: results.elapsed_time is {elapsed}: not a run's length")
    config: dict[str, Any] = data["config"] if isinstance(data.get("config"), dict) else {}
    accuracy: dict[str, float] = {}
    scores = data.get("accuracy_scores")
    for name, entry in sorted(scores.items()) if isinstance(scores, dict) else []:
        score = _number(entry.get("score")) if isinstance(entry, dict) else None
        if score is not None:
            accuracy[str(name)] = score
    complete = data["responses"] == ok
    return {
        "version": "legacy results.json",
        "git_sha": None,
        "issued": total,
        "completed": ok,
        "failed": failed,
        "duration_ms": elapsed * 1000.0,
        "state": "complete" if complete else "responses missing",
        "complete": complete,
        "qps": _number(results.get("qps")),
        "tps": None,  # the legacy file counts no tokens
        "latency_ms": {},
        "ttft_ms": {},
        "tpot_ms": {},
        "load_pattern": "poisson" if config.get("target_qps") is not None else None,
        "target_concurrency": None,
        "sample_index_seed": None,
        "schedule_seed": None,
        "accuracy": accuracy,
        "responses": data["responses"],
    }


def _series_ms(metric: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    count, total = _number(metric.get("count")), _number(metric.get("total"))
    if count and total is not None:
        out["mean"] = total / count / NS_PER_MS
    for key in ("min", "max"):
        if (value := _number(metric.get(key))) is not None and count:
            out[key] = value / NS_PER_MS
    percentiles = metric.get("percentiles")
    for key, value in percentiles.items() if isinstance(percentiles, dict) else []:
        number = _number(value)
        try:
            label = "p" + format(float(key), "g")
        except ValueError:
            continue
        if number is not None:
            out[label] = number / NS_PER_MS
    return out


def snapshot_figures(path: Path, where: str) -> dict[str, Any]:
    """``EndpointRun`` fields of a ``metrics_final_snapshot.json``."""
    data = read_json(path, name=where)
    metrics = data.get("metrics") if isinstance(data, dict) else None
    if not isinstance(metrics, list):
        raise InputError(f"{where}: no metrics list (not a metrics_final_snapshot.json)")
    counters: dict[str, Any] = {
        str(m.get("name")): m.get("value")
        for m in metrics
        if isinstance(m, dict) and m.get("type") == "counter"
    }
    series = {
        m.get("name"): m for m in metrics if isinstance(m, dict) and m.get("type") == "series"
    }
    need = ("tracked_samples_issued", "tracked_samples_completed", "tracked_samples_failed")
    missing = [k for k in need if not isinstance(counters.get(k), int)]
    if missing:
        raise InputError(f"{where}: no {', '.join(missing)} counter")
    window = _number(counters.get("legacy_loadgen_window_duration_ns")) or _number(
        counters.get("tracked_duration_ns")
    )
    if not window or window <= 0:
        raise InputError(f"{where}: no tracked or LoadGen-window duration")
    seconds = window / 1e9
    completed = int(counters["tracked_samples_completed"])
    osl = _number(series.get("osl", {}).get("total"))
    state = data.get("state")
    return {
        "version": "metrics snapshot",
        "git_sha": None,
        "issued": int(counters["tracked_samples_issued"]),
        "completed": completed,
        "failed": int(counters["tracked_samples_failed"]),
        "duration_ms": window / NS_PER_MS,
        "state": state if isinstance(state, str) else None,
        "complete": state == "complete",
        "qps": completed / seconds,
        "tps": osl / seconds if osl else None,
        "latency_ms": _series_ms(series.get("sample_latency_ns", {})),
        "ttft_ms": _series_ms(series.get("ttft_ns", {})),
        "tpot_ms": _series_ms(series.get("tpot_ns", {})),
        "load_pattern": None,
        "target_concurrency": None,
        "sample_index_seed": None,
        "schedule_seed": None,
    }
