"""``vllm bench sweep serve``'s ``summary.json``: a JSON list of ``vllm bench serve`` results,
one sweep of several load points, each its own run. Built from the real vLLM 0.10 result in
``formats/vllm/public`` and mutated copies of it at other concurrencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from ..builders import requests, vllm_result, write_json

VLLM = "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json"


def _sweep(shared_data: Path) -> list[dict[str, object]]:
    doc = json.loads((shared_data / VLLM).read_text())
    out = []
    for number, (concurrency, scale) in enumerate(((32, 0.5), (64, 0.8), (128, 1.0))):
        point = dict(doc, max_concurrency=concurrency, run_number=number)
        point["request_throughput"] = doc["request_throughput"] * scale
        point["mean_ttft_ms"] = doc["mean_ttft_ms"] * scale
        out.append(point)
    return out


def test_sweep_summary_is_one_run_per_load_point(shared_data: Path, tmp_path: Path) -> None:
    points = _sweep(shared_data)
    parsed = read_input(write_json(tmp_path / "summary.json", points))
    assert parsed.format_id == "vllm-bench-serve"
    assert len(parsed.runs) == len(points) == 3
    assert len({r.run_id for r in parsed.runs}) == 3
    for run, point in zip(parsed.runs, points, strict=True):
        assert run.label == f"sweep run {point['run_number']}"
        assert run.identity.model_name == point["model_id"]
        assert (run.load.kind, run.load.concurrency) == ("closed_loop", point["max_concurrency"])
        assert run.request_throughput_per_s == point["request_throughput"]
        assert run.requests_completed == point["completed"]
        assert run.ttft is not None
        assert run.ttft.mean_ms == point["mean_ttft_ms"]
        assert run.ttft.p99_ms == point["p99_ttft_ms"]


def test_sweep_of_detailed_results_keeps_each_points_rows(tmp_path: Path) -> None:
    points = [vllm_result(requests(n=12 + 4 * k, seed=70 + k)) for k in range(3)]
    parsed = read_input(write_json(tmp_path / "summary.json", points))
    for run, point in zip(parsed.runs, points, strict=True):
        assert run.per_request_rows == len(point["ttfts"])  # type: ignore[arg-type]
        assert run.ttft is not None
        assert run.ttft.source == "per_request"
        assert run.ttft.max_ms == pytest.approx(max(point["ttfts"]) * 1000)  # type: ignore[type-var,operator]


def test_a_bad_point_names_its_place_in_the_list(shared_data: Path, tmp_path: Path) -> None:
    points = _sweep(shared_data)
    points[1]["completed"] = 0
    with pytest.raises(InputError, match=r"\$\[1\]\.completed: zero completed"):
        read_input(write_json(tmp_path / "summary.json", points))
    points = _sweep(shared_data)
    points[2] = {"something": "else"}
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "mixed.json", points))
