"""Read MLPerf Endpoints curves: v1.0 bundles and v0.7 results, each under its own definitions.

v1.0 bundle (``endpoints-submission-cli`` 1.x): ``<submission>/results/<system>/system_power.json``
and ``<model>/r<N>/{point.yaml, result_summary.json, accuracy_results.json, system_desc.json,
cli_metadata.json}``; figures in nanoseconds, percentile keys decimal strings (``"90"`` in the
checker's corpus, ``"90.0"`` from the client: both read). ``tps_per_user`` = 1000 / tpot_p90_ms,
TTFT p90.

v0.7 results (``endpoints-submission-cli`` 0.1): ``<submission>/pareto/<system>/<model>/
points/point_<N>.yaml``, ``results/point_<N>/{run_metadata.json, results_summary.json,
accuracy/results.json}`` and ``<submission>/systems/<system>.json``; ``run_metadata.json`` in
ms, ``tps_per_user`` = system_tps / concurrency and ``ttft`` = TTFT p99.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from ._files import read_json, read_text
from .context import ImportContext
from .endpoints_models import EndpointsPoint, Layout

_V10_POINT = re.compile(r"^r(\d+)$")
_V07_POINT = re.compile(r"^point_(\d+)\.yaml$")
NS_PER_MS = 1_000_000.0
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class CurveFiles:
    """One curve's folder: its layout, submission, system and model, and its point files."""

    layout: Layout
    submission_dir: Path
    system_dir: Path
    folder: Path
    points: tuple[Path, ...]

    @property
    def location(self) -> str:
        """The curve folder relative to the submission's parent."""
        return str(self.folder.relative_to(self.submission_dir.parent))


def find_endpoints(path: Path) -> Iterator[CurveFiles]:
    """Every Endpoints curve under ``path``, sorted: v1.0 ``results/<system>/<model>/r<N>/
    point.yaml`` and v0.7 ``pareto/<system>/<model>/points/point_<N>.yaml``."""
    for current, dirs, files in os.walk(path.resolve()):
        dirs.sort()
        here = Path(current)
        if here.name == "points" and len(here.parts) >= 4 and here.parents[2].name == "pareto":
            points = tuple(
                sorted((here / f for f in files if _V07_POINT.match(f)), key=_concurrency_of)
            )
            if points:
                dirs[:] = []
                model = here.parent
                yield CurveFiles("v0.7", model.parents[2], model.parent, model, points)
            continue
        if len(here.parts) >= 3 and here.parents[1].name == "results":
            points = tuple(
                sorted(
                    (
                        here / d
                        for d in dirs
                        if _V10_POINT.match(d) and (here / d / "point.yaml").is_file()
                    ),
                    key=_concurrency_of,
                )
            )
            if points:
                dirs[:] = []
                yield CurveFiles("v1.0", here.parents[2], here.parent, here, points)


def _concurrency_of(path: Path) -> int:
    found = re.search(r"(\d+)", path.name)
    return int(found.group(1)) if found else 0


def load_yaml(path: Path, name: str) -> Any:
    """A small YAML file with the safe loader; InputError naming ``file:line:column``."""
    text = read_text(path, name=name)
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 (the safe loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        raise InputError(f"{where}: not valid YAML: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{name}: not valid YAML: {exc}") from exc


def percentiles_ms(block: Any, scale: float = NS_PER_MS) -> dict[str, float]:
    """A ``{"percentiles": {"90": ns, "99.9": ns}}`` block in ms, keys normalised: ``"90.0"``
    and ``"90"`` are the same percentile."""
    raw = block.get("percentiles") if isinstance(block, dict) else None
    out: dict[str, float] = {}
    for key, value in (raw or {}).items():
        try:
            name = f"{float(key):g}"
        except (TypeError, ValueError):
            continue
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = float(value) / scale
    return out


def _number(data: Any, key: str) -> float | None:
    value = data.get(key) if isinstance(data, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(data: Any, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def accuracy_scores(data: Any) -> dict[str, float]:
    """Scores of an ``accuracy_results.json`` (the checker's corpus: ``{dataset: {score: {metric:
    "45.12"}}}``; the client: ``{accuracy_scores: [{dataset_name, score}]}``) or a v0.7
    ``accuracy/results.json`` (``{metric, score}``), by ``dataset/metric`` or dataset."""
    out: dict[str, float] = {}
    if not isinstance(data, dict):
        return out
    listed = data.get("accuracy_scores")
    if isinstance(listed, list):  # the client's own shape: a list of {dataset_name, score}
        for index, entry in enumerate(listed):
            if isinstance(entry, dict) and (got := _to_float(entry.get("score"))) is not None:
                out[str(entry.get("dataset_name") or f"accuracy_scores[{index}]")] = got
        return out
    if isinstance(listed, dict):  # the legacy shape: {dataset: {score}}
        data = listed
    if "score" in data and "metric" in data:
        value = _to_float(data.get("score"))
        if value is not None:
            out[str(data["metric"])] = value
        return out
    for dataset, entry in sorted(data.items()):
        score = entry.get("score") if isinstance(entry, dict) else None
        if isinstance(score, dict):
            for metric, value in sorted(score.items()):
                got = _to_float(value)
                if got is not None:
                    out[f"{dataset}/{metric}"] = got
        elif (got := _to_float(score)) is not None:
            out[str(dataset)] = got
    return out


def _to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _steady(block: Any) -> tuple[str | None, str | None, float | None, tuple[int, int] | None]:
    if not isinstance(block, dict):
        return None, None, None, None
    window = block.get("window") if isinstance(block.get("window"), dict) else {}
    start, end = _int(window, "super_pass_start"), _int(window, "super_pass_end")
    status, verdict = block.get("status"), block.get("verdict")
    return (
        str(status) if status is not None else None,
        str(verdict) if verdict is not None else None,
        _number(window, "duration_s"),
        (start, end) if start is not None and end is not None else None,
    )


def read_v10_point(folder: Path, names: ImportContext) -> tuple[EndpointsPoint, dict[str, Any]]:
    """One ``r<N>/`` point of a v1.0 bundle and its ``system_desc.json`` (empty if absent)."""
    where = names.name(folder / "point.yaml")
    point = load_yaml(names.private(folder / "point.yaml"), where)
    if not isinstance(point, dict):
        raise InputError(f"{where}: not a YAML mapping")
    concurrency = point.get("concurrency")
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency <= 0:
        raise InputError(
            f"{where}: concurrency must be a positive whole number, not {concurrency!r}"
        )
    summary_path = folder / "result_summary.json"
    if not summary_path.is_file():
        raise InputError(
            "missing (result-summary-present: every point needs its result_summary.json)",
            file=names.name(summary_path),
        )
    summary = read_json(names.private(summary_path), name=names.name(summary_path))
    if not isinstance(summary, dict):
        raise InputError("not a JSON object", file=names.name(summary_path))
    desc_path = folder / "system_desc.json"
    desc = (
        read_json(names.private(desc_path), name=names.name(desc_path))
        if desc_path.is_file()
        else {}
    )
    acc_path = folder / "accuracy_results.json"
    accuracy = (
        accuracy_scores(read_json(names.private(acc_path), name=names.name(acc_path)))
        if acc_path.is_file()
        else {}
    )
    ttft = percentiles_ms(summary.get("ttft"))
    tpot = percentiles_ms(summary.get("tpot"))
    duration_ns = _number(summary, "duration_ns")
    osl = summary.get("output_sequence_lengths")
    status, verdict, window_s, passes = _steady(point.get("steady_state"))
    settings = _mapping(point.get("runtime_settings"))
    stream = settings.get("stream_all_chunks")
    region, offline = point.get("region"), point.get("offline")
    return (
        EndpointsPoint(
            folder=folder.name,
            concurrency=concurrency,
            region=None,
            declared_region=str(region) if region is not None else None,
            offline=str(offline) if offline is not None else None,
            system_tps=_number(summary, "system_tps"),
            tps_per_user=_number(summary, "tps_per_user"),
            tps_per_user_v07=None,
            ttft_p90_ms=ttft.get("90"),
            ttft_p99_ms=ttft.get("99"),
            ttft_ms=ttft,
            tpot_p90_ms=tpot.get("90"),
            tpot_ms=tpot,
            issued=_int(summary, "n_samples_issued"),
            completed=_int(summary, "n_samples_completed"),
            failed=_int(summary, "n_samples_failed"),
            duration_s=duration_ns / 1e9 if duration_ns is not None else None,
            output_tokens=_number(osl, "total"),
            accuracy=accuracy,
            load_pattern=_str(settings.get("load_pattern")),
            stream_all_chunks=stream if isinstance(stream, bool) else None,
            min_duration_ms=_int(settings, "min_duration_ms"),
            steady_status=status,
            steady_verdict=verdict,
            window_s=window_s,
            window_super_passes=passes,
            steady_official=status == "windowable" and verdict == "STEADY STATE",
            tps_per_kw=None,
            dataset=_str(point.get("dataset")),
            seed_set=_str(point.get("seed_set")),
        ),
        {"point": point, "desc": desc if isinstance(desc, dict) else {}},
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return str(value) if value is not None else None


def read_v07_point(path: Path, names: ImportContext) -> tuple[EndpointsPoint, dict[str, Any]]:
    """One ``points/point_<N>.yaml`` of a v0.7 result with its ``results/point_<N>/`` files."""
    where = names.name(path)
    point = load_yaml(names.private(path), where)
    if not isinstance(point, dict):
        raise InputError(f"{where}: not a YAML mapping")
    results = path.parent.parent / "results" / path.stem
    meta_path = results / "run_metadata.json"
    if not meta_path.is_file():
        raise InputError(
            "missing (every v0.7 point needs its run_metadata.json)", file=names.name(meta_path)
        )
    meta = read_json(names.private(meta_path), name=names.name(meta_path))
    if not isinstance(meta, dict):
        raise InputError("not a JSON object", file=names.name(meta_path))
    concurrency = point.get("concurrency", meta.get("concurrency"))
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency <= 0:
        raise InputError(
            f"{where}: concurrency must be a positive whole number, not {concurrency!r}"
        )
    summary_path = results / "results_summary.json"
    summary = (
        read_json(names.private(summary_path), name=names.name(summary_path))
        if summary_path.is_file()
        else {}
    )
    acc_path = results / "accuracy" / "results.json"
    accuracy = (
        accuracy_scores(read_json(names.private(acc_path), name=names.name(acc_path)))
        if acc_path.is_file()
        else {}
    )
    ttft = {
        f"{float(k[len('measured_latency_ttft_p') :].replace('999', '99.9')):g}": float(v)
        for k, v in meta.items()
        if k.startswith("measured_latency_ttft_p") and isinstance(v, int | float)
    }
    tpot = {
        f"{float(k[len('measured_latency_tpot_p') :].replace('999', '99.9')):g}": float(v)
        for k, v in meta.items()
        if k.startswith("measured_latency_tpot_p") and isinstance(v, int | float)
    }
    settings = _mapping(point.get("runtime_settings"))
    stream = settings.get("stream_all_chunks")
    duration_ns = _number(summary, "duration_ns")
    osl = summary.get("output_sequence_lengths") if isinstance(summary, dict) else None
    return (
        EndpointsPoint(
            folder=path.stem,
            concurrency=concurrency,
            region=None,
            declared_region=_str(point.get("region")),
            offline=_str(point.get("offline")),
            system_tps=_number(meta, "system_tps"),
            tps_per_user=None,  # the v1.0 definition; v0.7's is tps_per_user_v07
            tps_per_user_v07=_number(meta, "tps_per_user"),
            ttft_p90_ms=None,  # v0.7's headline TTFT is p99 (``ttft``)
            ttft_p99_ms=_number(meta, "ttft"),
            ttft_ms=ttft,
            tpot_p90_ms=tpot.get("90"),
            tpot_ms=tpot,
            issued=_int(summary, "n_samples_issued"),
            completed=_int(summary, "n_samples_completed"),
            failed=_int(summary, "n_samples_failed"),
            duration_s=duration_ns / 1e9
            if duration_ns is not None
            else _number(meta, "measured_run_duration"),
            output_tokens=_number(osl, "total") or _number(meta, "measured_total_output_tokens"),
            accuracy=accuracy,
            load_pattern=_str(settings.get("load_pattern")),
            stream_all_chunks=stream if isinstance(stream, bool) else None,
            min_duration_ms=_int(settings, "min_duration_ms"),
            steady_status=None,
            steady_verdict=None,
            window_s=None,
            window_super_passes=None,
            steady_official=False,
            tps_per_kw=None,
            dataset=_str(point.get("dataset")),
            seed_set=_str(point.get("seed_set")),
        ),
        {"point": point, "desc": {}, "meta": meta},
    )
