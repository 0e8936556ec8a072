"""A sentinel request rate (``--request-rate 1e9``, Ray Serve LLM's "unlimited") is ``inf`` by
another spelling: a closed loop at the concurrency cap (offline without one), never an open loop
offered a billion requests a second. Every spelling reads the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.readers._runs import unbounded_rate
from evidencepack.readers.models import Load
from evidencepack.readers.registry import read_input

from ..builders import requests, vllm_result, write_json

SPELLINGS = ["inf", "Infinity", "INF", "+inf", 1e9, "1e9", 1_000_000, 1e12]


@pytest.mark.parametrize("rate", SPELLINGS)
def test_vllm_sentinel_rate_with_a_cap_is_a_closed_loop(tmp_path: Path, rate: object) -> None:
    result = vllm_result(requests(n=10, seed=2), request_rate=rate, max_concurrency=32)  # type: ignore[arg-type]
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.load == Load(kind="closed_loop", concurrency=32)
    assert run.identity.concurrency == 32


@pytest.mark.parametrize("rate", ["inf", 1e9])
def test_vllm_sentinel_rate_without_a_cap_is_offline(tmp_path: Path, rate: object) -> None:
    result = vllm_result(requests(n=10, seed=2), request_rate=rate)  # type: ignore[arg-type]
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.load == Load(kind="offline")


def test_a_real_rate_stays_an_open_loop(tmp_path: Path) -> None:
    result = vllm_result(requests(n=10, seed=2), request_rate=8.0, max_concurrency=32)
    (run,) = read_input(write_json(tmp_path / "r.json", result)).runs
    assert run.load.kind == "open_loop"
    assert run.load.request_rate_per_s == 8.0


def test_aiperf_sentinel_rate_with_concurrency_is_a_closed_loop(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = json.loads(
        (shared_data / "formats/aiperf/generated/profile_export_aiperf.json").read_text()
    )
    phase = doc["input_config"]["phases"][0]
    phase.update(type="request_rate", request_rate=1e9, concurrency=32)
    (run,) = read_input(write_json(tmp_path / "profile_export_aiperf.json", doc)).runs
    assert run.load == Load(kind="closed_loop", concurrency=32)


def test_what_counts_as_unbounded() -> None:
    assert all(unbounded_rate(r) for r in SPELLINGS)
    assert not any(unbounded_rate(r) for r in (8.0, "8", 999_999, None, True, "trace", "fast"))


def test_guidellm_csv_sentinel_rate_is_not_an_open_loop() -> None:
    from evidencepack.readers.formats.guidellm_csv import strategy_load

    assert strategy_load("constant@1e9") == Load(kind="offline")
    assert strategy_load("poisson@inf") == Load(kind="offline")
    assert strategy_load("constant@2.0").request_rate_per_s == 2.0


def test_reference_sentinel_rates_are_no_rate(shared_data: Path, tmp_path: Path) -> None:
    """An llm-d benchmark report's ``rate_qps`` of 1e9 (or ``inf``) is no rate limit."""
    src = shared_data / "formats/llm-d-report/public/br_v0_2_example.yaml"
    text = src.read_text()
    assert "rate_qps:" in text
    for spelling in ("1.0e9", "inf"):
        changed = "\n".join(
            (line.split("rate_qps:")[0] + f"rate_qps: {spelling}") if "rate_qps:" in line else line
            for line in text.splitlines()
        )
        path = tmp_path / f"report_{spelling}.yaml"
        path.write_text(changed + "\n")
        points = read_input(path).references
        assert points
        assert all(p.load.request_rate_per_s is None for p in points)
        assert all(p.load.kind != "open_loop" for p in points)
