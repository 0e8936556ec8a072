"""guidellm benchmarks.json: the real 0.8 files, and the v0.3/v0.4/v0.5-0.6 layouts built from
guidellm's own models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input

from .. import guidellm_builders as gb
from ..builders import distributions, requests, write_json

GENERATED = "formats/guidellm/generated/benchmarks.json"
FIXTURE = "formats/guidellm/repo_fixtures/llm-d-benchmark_guidellm_report_v2.json"


def _successful(bench: dict[str, Any], key: str) -> dict[str, Any]:
    value: dict[str, Any] = bench["metrics"][key]["successful"]
    return value


def test_real_sweep_gives_one_run_per_load_point(shared_data: Path) -> None:
    path = shared_data / GENERATED
    doc = json.loads(path.read_text())
    parsed = read_input(path)
    assert parsed.format_id == "guidellm-benchmarks"
    assert parsed.file.tool_version == doc["metadata"]["guidellm_version"]
    assert len(parsed.runs) == len(doc["benchmarks"]) == 3
    for run, bench in zip(parsed.runs, doc["benchmarks"], strict=True):
        ok = bench["requests"]["successful"]
        assert run.layout == "v0.7+"
        assert run.requests_completed == bench["metrics"]["request_totals"]["successful"]
        assert run.load.kind == "closed_loop"
        assert run.load.concurrency == bench["config"]["strategy"]["streams"]
        assert run.identity.model_name == bench["config"]["backend"]["model"]
        ttft = [r["time_to_first_token_ms"] for r in ok]
        e2e = [r["request_latency"] * 1000 for r in ok]
        tpot = [
            (r["request_latency"] * 1000 - r["time_to_first_token_ms"]) / (r["output_tokens"] - 1)
            for r in ok
        ]
        assert run.ttft is not None
        assert run.ttft.mean_ms == pytest.approx(np.mean(ttft))
        assert run.ttft.p99_ms == pytest.approx(np.percentile(ttft, 99))
        assert run.e2e is not None
        assert run.e2e.p50_ms == pytest.approx(np.percentile(e2e, 50))
        # TPOT is converted from the per-request rows to exclude the first token.
        assert run.tpot is not None
        assert run.tpot.canonical
        assert run.tpot.mean_ms == pytest.approx(np.mean(tpot))
        assert run.tpot.mean_ms < _successful(bench, "time_per_output_token_ms")["mean"]
        # guidellm's ITL is kept as the tool wrote it, marked: per token, not chunk gaps.
        itl = _successful(bench, "inter_token_latency_ms")
        assert run.itl is not None
        assert not run.itl.canonical
        assert (run.itl.weighting, run.itl.mean_ms) == ("token", itl["mean"])
        assert run.request_throughput_per_s == _successful(bench, "requests_per_second")["mean"]
        assert len(run.checks) == 10
        assert all(c.ok for c in run.checks)


def test_real_report_without_request_rows_keeps_tool_figures(shared_data: Path) -> None:
    path = shared_data / FIXTURE
    doc = json.loads(path.read_text())
    parsed = read_input(path)
    assert [run.load.request_rate_per_s for run in parsed.runs] == [2.0, 4.0]
    for run, bench in zip(parsed.runs, doc["benchmarks"], strict=True):
        assert run.per_request_rows == 0
        assert not run.checks
        tpot = _successful(bench, "time_per_output_token_ms")
        assert run.tpot is not None
        assert run.tpot.definition == "tpot_incl_first"
        assert run.tpot.mean_ms == tpot["mean"]
        assert not run.tpot.canonical
        assert run.ttft is not None
        assert run.ttft.source == "tool_aggregate"
        assert run.ttft.p99_ms == _successful(bench, "time_to_first_token_ms")["percentiles"]["p99"]
        assert any("none of the 2 requests" in w for w in run.warnings)
    assert parsed.requests is None


@pytest.mark.parametrize(
    ("build", "layout", "kind"),
    [
        (gb.v03, "v0.3", "open_loop"),
        (gb.v04, "v0.4", "closed_loop"),
        (gb.v05, "v0.5-0.6", "open_loop"),
    ],
)
def test_older_layouts(tmp_path: Path, build: Any, layout: str, kind: str) -> None:
    r = requests(n=30, seed=21)
    (run,) = read_input(write_json(tmp_path / "benchmarks.json", build(r))).runs
    assert run.layout == layout
    assert run.load.kind == kind
    assert run.identity.model_name == "acme/contract-summariser-70b"
    assert run.requests_completed == 30
    dist = distributions(r)
    assert run.ttft is not None
    assert run.ttft.p90_ms == pytest.approx(np.percentile(dist["ttft"], 90))
    assert run.tpot is not None
    assert run.tpot.mean_ms == pytest.approx(np.mean(dist["tpot"]))
    assert run.e2e is not None
    assert run.e2e.p99_ms == pytest.approx(np.percentile(dist["e2el"], 99))
    assert run.checks
    assert all(c.ok for c in run.checks)


def test_v05_without_metadata_has_no_version(tmp_path: Path) -> None:
    parsed = read_input(write_json(tmp_path / "b.json", gb.v05(requests(n=10), metadata=False)))
    assert parsed.runs[0].layout == "v0.5-0.6"
    assert parsed.file.tool_version is None
    assert "the file does not record guidellm's version" in parsed.warnings


def test_sampled_requests_are_not_used(tmp_path: Path) -> None:
    r = requests(n=20, seed=22)
    doc = gb.v04(r, keep=5)
    parsed = read_input(write_json(tmp_path / "b.json", doc))
    (run,) = parsed.runs
    assert run.per_request_rows == 0
    assert parsed.requests is None
    assert run.tpot is not None
    assert run.tpot.definition == "tpot_incl_first"
    assert any("keeps 5 of 20 successful requests" in w for w in run.warnings)


def test_negative_request_latency_is_located(tmp_path: Path) -> None:
    doc = gb.v04(requests(n=6, seed=23))
    doc["benchmarks"][0]["requests"]["successful"][2]["request_latency"] = -1.0
    with pytest.raises(
        InputError, match=r"\$\.benchmarks\[0\]\.requests \(request #2\)\.request_latency: negative"
    ):
        read_input(write_json(tmp_path / "b.json", doc))


def test_zero_successful_requests_is_refused(tmp_path: Path) -> None:
    doc = gb.v05(requests(n=6, seed=24))
    doc["benchmarks"][0]["metrics"]["request_totals"]["successful"] = 0
    with pytest.raises(InputError, match="zero completed requests"):
        read_input(write_json(tmp_path / "b.json", doc))
