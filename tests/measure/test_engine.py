"""``evidencepack measure`` against a real inference engine: llama.cpp's server on a tiny model.

The engine (``tests/measure/llama_engine.py``) is llama.cpp's own HTTP server, prebuilt in the
``xllamacpp`` wheel, serving a 2-layer random Llama written into the test's temporary folder.
Each run is bounded in queries and seconds. Under CI (``CI`` set) a missing engine fails the
tests; elsewhere they are skipped with the install command.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main

from .llama_engine import MODEL_NAME, LlamaServer, write_model

MAX_TOKENS = 16


def _engine_missing() -> str | None:
    missing = [m for m in ("xllamacpp", "gguf") if importlib.util.find_spec(m) is None]
    return ", ".join(missing) or None


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    if (missing := _engine_missing()) is not None:
        message = f"llama.cpp's server is not installed ({missing}): pip install -e '.[dev]'"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    model = write_model(tmp_path_factory.mktemp("engine") / "tiny.gguf")
    with LlamaServer(model, parallel=4) as running:
        yield running


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engine-prompts") / "prompts.jsonl"
    texts = [f"Summarise contract {i}: the supplier delivers by day {i}." for i in range(24)]
    path.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in texts), encoding="utf-8")
    return path


def _args(url: str, prompts: Path, out: Path, *extra: str) -> list[str]:
    return [
        "measure",
        "--endpoint",
        url,
        "--model",
        MODEL_NAME,
        "--prompts",
        str(prompts),
        "-o",
        str(out),
        "--max-tokens",
        str(MAX_TOKENS),
        # The model is random: without this it ends some answers early with its end token.
        "--sampling",
        "ignore_eos=true",
        "--sampling",
        "seed=1",
        "--timeout-s",
        "10",
        "--min-duration-ms",
        "1000",
        *extra,
    ]


def _rows(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]


def _record(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / "run.json").read_text())


def _metric(engine: LlamaServer, name: str) -> float:
    text = engine.get("/metrics").decode()
    match = re.search(rf"^{re.escape(name)} ([0-9.eE+-]+)$", text, re.M)
    assert match, f"{name} not in llama.cpp's /metrics"
    return float(match[1])


def _assert_every_request_exact(folder: Path, at_least: int) -> list[dict]:  # type: ignore[type-arg]
    rows = _rows(folder)
    assert len(rows) >= at_least
    failed = [r for r in rows if r["status"] != "ok"]
    assert not failed, failed[:3]
    for row in rows:
        assert row["finish_reason"] == "length", row
        assert row["output_tokens"] == MAX_TOKENS, row
        assert row["ttft_ms"] > 0
        assert row["e2e_ms"] >= row["ttft_ms"]
    return rows


def test_server_run_against_llama_cpp(
    engine: LlamaServer, prompts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _metric(engine, "llamacpp:tokens_predicted_total")
    out = tmp_path / "server"
    args = _args(engine.url, prompts, out, "--target-qps", "20", "--min-query-count", "40")
    started = time.monotonic()
    assert main([*args, "--ttft-ms", "2000", "--tpot-ms", "500"]) == 0
    assert time.monotonic() - started < 20
    rows = _assert_every_request_exact(out, 40)
    # The engine's usage, and its own counter of generated tokens, agree with every row.
    assert {r["tokens_source"] for r in rows} == {"usage"}
    generated = _metric(engine, "llamacpp:tokens_predicted_total") - before
    assert generated == sum(r["output_tokens"] for r in rows)
    record = _record(out)
    assert record["response_models"] == [MODEL_NAME]
    assert record["server"]["models"][0]["owned_by"] == "llamacpp"
    assert record["server"]["headers"]["server"] == "llama.cpp"
    assert record["requests"]["failed"] == 0
    assert "Scenario : Server" in (out / "mlperf_log_summary.txt").read_text()
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "mlperf_log_detail.txt")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert run["identity"]["model_name"] == MODEL_NAME
    assert run["requests_failed"] == 0
    assert run["tokens"]["output_mean_tokens"] == MAX_TOKENS


def test_offline_run_against_llama_cpp_queues_past_its_slots(
    engine: LlamaServer, prompts: Path, tmp_path: Path
) -> None:
    # 32 requests in flight against 4 slots: the engine queues the rest, nothing fails.
    out = tmp_path / "offline"
    args = _args(engine.url, prompts, out, "--scenario", "offline", "--min-query-count", "96")
    started = time.monotonic()
    assert main([*args, "--expected-qps", "100", "--max-in-flight", "32"]) == 0
    assert time.monotonic() - started < 20
    _assert_every_request_exact(out, 96)
    assert _record(out)["limits"]["max_in_flight_seen"] == 32
    assert "Scenario : Offline" in (out / "mlperf_log_summary.txt").read_text()


def test_sweep_against_llama_cpp(engine: LlamaServer, prompts: Path, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = _args(engine.url, prompts, out, "--sweep", "10,30", "--min-query-count", "20")
    started = time.monotonic()
    assert main([*args, "--ttft-ms", "2000", "--tpot-ms", "500", "--api", "chat"]) == 0
    assert time.monotonic() - started < 20
    assert sorted(p.name for p in out.iterdir()) == ["qps_10", "qps_30"]
    for rate in (10, 30):
        _assert_every_request_exact(out / f"qps_{rate}", 20)
        assert _record(out / f"qps_{rate}")["request"]["path"] == "/v1/chat/completions"
