"""``evidencepack measure`` against a real inference engine: llama.cpp's server on a tiny model.

The engine (``tests/measure/llama_engine.py``) is llama.cpp's own HTTP server, prebuilt in the
``xllamacpp`` wheel, serving a 2-layer random Llama written into the test's temporary folder.
Each run is bounded in queries and seconds. Under CI (``CI`` set) a missing engine fails the
tests; elsewhere they are skipped with the install command (``conftest.py``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main

from .conftest import require_engine
from .llama_engine import MODEL_NAME, REPO, LlamaServer
from .no_usage_proxy import no_usage_proxy

MAX_TOKENS = 16


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
        # Bounded, but with room: on a loaded machine (another test worker on the second
        # core) a queue of 24 requests on the engine's 4 slots took over 10 s now and then.
        "--timeout-s",
        "30",
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
    args += ["--server-metrics", engine.url + "/metrics"]
    started = time.monotonic()
    assert main([*args, "--ttft-ms", "2000", "--tpot-ms", "500"]) == 0
    assert time.monotonic() - started < 20
    rows = _assert_every_request_exact(out, 40)
    # The engine's usage, and its own counter of generated tokens, agree with every row.
    assert {r["tokens_source"] for r in rows} == {"usage"}
    generated = _metric(engine, "llamacpp:tokens_predicted_total") - before
    assert generated == sum(r["output_tokens"] for r in rows)
    # measure stored the same from the engine's /metrics, and the reader cross-checks it.
    metrics = json.loads((out / "server-metrics.json").read_text())
    assert metrics["engine"] == "llamacpp"
    (predicted,) = [s for s in metrics["series"] if s["name"] == "llamacpp:tokens_predicted_total"]
    assert predicted["delta"] == generated
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
    assert main(["inspect", "--json", str(out / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert (
        "the engine's own metrics (llamacpp, server-metrics.json) agree on the output tokens"
        in run["warnings"]
    )


def test_offline_run_against_llama_cpp_queues_past_its_slots(
    engine: LlamaServer, prompts: Path, tmp_path: Path
) -> None:
    # 32 requests in flight against 4 slots: the engine queues the rest, nothing fails.
    before = _metric(engine, "llamacpp:tokens_predicted_total")
    out = tmp_path / "offline"
    args = _args(engine.url, prompts, out, "--scenario", "offline", "--min-query-count", "200")
    started = time.monotonic()
    assert main([*args, "--expected-qps", "100", "--max-in-flight", "32"]) == 0
    assert time.monotonic() - started < 20
    rows = _assert_every_request_exact(out, 200)
    record = _record(out)
    assert record["limits"]["max_in_flight_seen"] == 32
    # llama.cpp's server closes some keep-alive connections it announced as open
    # ("Keep-Alive: timeout=5, max=100") right after a streamed answer; a request sent on one
    # gets nothing back and is sent again on a new connection, its row saying why.
    retried = [r["retried"] for r in rows if r["retried"]]
    assert record["requests"]["retried"] == len(retried)
    for reason in retried:
        assert reason.startswith(
            "connection lost: ConnectionResetError: the server closed (EOF) the connection "
            "before a whole response; keep-alive connection reused after "
        ), reason
    # The engine never ran the lost sends: it generated exactly what the rows hold.
    generated = _metric(engine, "llamacpp:tokens_predicted_total") - before
    assert generated == sum(r["output_tokens"] for r in rows)
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


@pytest.fixture
def no_usage_engine(engine: LlamaServer) -> Iterator[str]:
    with no_usage_proxy(engine.url) as url:
        yield url


def test_without_usage_the_engines_tokenizer_counts_every_output(
    engine: LlamaServer,
    no_usage_engine: str,
    prompts: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The stream carries no usage and two tokens per event: counting chunks would say 8.
    before = _metric(engine, "llamacpp:tokens_predicted_total")
    out = tmp_path / "tokenizer"
    args = _args(no_usage_engine, prompts, out, "--scenario", "offline", "--no-usage")
    assert (
        main([*args, "--min-query-count", "24", "--expected-qps", "50", "--max-in-flight", "8"])
        == 0
    )
    rows = _assert_every_request_exact(out, 24)
    assert {r["tokens_source"] for r in rows} == {"tokenizer"}
    assert all(len(r["itl_gaps_ms"]) == MAX_TOKENS // 2 - 1 for r in rows)
    assert all(r["tokenize_ms"] > 0 for r in rows)
    # Every count is the engine's: what it generated, by its own counter.
    generated = _metric(engine, "llamacpp:tokens_predicted_total") - before
    assert generated == sum(r["output_tokens"] for r in rows)
    record = _record(out)
    assert record["tokenizer"] == {
        "path": "/tokenize",
        "special_tokens_added": 0,
        "problem": None,
        "counted_by": "endpoint",
        "file": None,
    }
    assert record["requests"]["output_tokens_sources"] == {"tokenizer": len(rows)}
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert not any("counted, not tokens" in w for w in run["warnings"])


def _readme_commands() -> list[str]:
    readme = (REPO / "docs" / "reference" / "measure.md").read_text(encoding="utf-8")
    start = readme.index("## Against a real engine: llama.cpp's server")
    block = re.search(r"```sh\n(.*?)```", readme[start:], re.S)
    assert block is not None
    joined = block[1].replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line and not line.startswith("#")]


# slow: runs the README's measurement commands against a real llama.cpp server
@pytest.mark.slow
def test_the_readme_remeasurement_runs_as_written(tmp_path: Path) -> None:
    require_engine()
    commands = _readme_commands()
    assert [c.split()[0] for c in commands] == [
        "python",
        "python",
        "python",
        "evidencepack",
        "evidencepack",
        "cp",
        "cp",
        "evidencepack",
    ]
    # The commands run from the repository's root; here from a copy of what they read.
    shutil.copytree(
        REPO / "samples", tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    server: subprocess.Popen[bytes] | None = None
    started = time.monotonic()
    try:
        for command in commands:
            argv = shlex.split(command.replace("8080", port))
            if argv[-1] == "&":
                server = subprocess.Popen(  # noqa: S603
                    argv[:-1], cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
                assert server.stdout is not None
                assert server.stdout.readline().startswith(b"listening http://127.0.0.1:")
                drain = threading.Thread(target=server.stdout.read, daemon=True)
                drain.start()  # whatever it prints later never fills the pipe
                continue
            if argv[:2] == ["evidencepack", "check"]:
                _cite(tmp_path / "my-pack" / "pack.yaml")
            done = subprocess.run(  # noqa: S603
                argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
            )
            if argv[:2] == ["evidencepack", "check"]:
                assert done.returncode == 1, done.stderr
                assert "FAIL PROV-MODEL [h200-vllm] (hard)" in done.stdout
                assert "evidence/h200-vllm/measured/qps_5 is for model 'tiny-random-llama'" in (
                    done.stdout
                )
            else:
                assert done.returncode == 0, (command, done.stdout, done.stderr)
            if argv[:2] == ["evidencepack", "inspect"]:
                assert "agree on the output tokens" in done.stdout
    finally:
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(10)
    assert time.monotonic() - started < 120  # about 25 s on a quiet machine
    for rate in (5, 10):
        rows = _rows(tmp_path / "measured" / f"qps_{rate}")
        assert {(r["status"], r["output_tokens"], r["tokens_source"]) for r in rows} == {
            ("ok", 16, "usage")
        }


def _cite(spec: Path) -> None:
    text = spec.read_text()
    runs = "        - path: evidence/h200-vllm/runs/qps_5.5\n"
    assert runs in text
    cited = "".join(f"        - path: evidence/h200-vllm/measured/qps_{q}\n" for q in (5, 10))
    spec.write_text(text.replace(runs, runs + cited))
