"""``evidencepack measure`` end to end: the real LoadGen driving a streaming server on 127.0.0.1.

Every run is short (LoadGen's minimum duration and query count set small); the folders it
writes go through ``inspect`` and through ``check`` on a copy of the sample spec.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import InvalidRequest
from evidencepack.measure.options import MeasureOptions, points
from evidencepack.measure.run import measure

from ..conftest import REPO_ROOT
from .openai_server import MODEL, OpenAIServer

FAILURES = ("@500", "@400", "@hang", "@malformed", "@empty", "@truncate", "@reset")


def _prompts(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in texts), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(ttft_s=0.004, tpot_s=0.001) as running:
        yield running


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("measure")


@pytest.fixture(scope="module")
def prompts(workdir: Path) -> Path:
    return _prompts(workdir / "prompts.jsonl", [f"summarise contract {i} " * 4 for i in range(16)])


def _args(server: OpenAIServer, prompts: Path, out: Path, *extra: str) -> list[str]:
    return [
        "measure",
        "--endpoint",
        server.url,
        "--model",
        MODEL,
        "--prompts",
        str(prompts),
        "-o",
        str(out),
        "--max-tokens",
        "4",
        "--min-duration-ms",
        "300",
        "--timeout-s",
        "5",
        *extra,
    ]


def _record(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / "run.json").read_text())


def _rows(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def valid_run(server: OpenAIServer, prompts: Path, workdir: Path) -> Path:
    # LoadGen's early stopping needs about 460 queries at p99 before it can call a run VALID.
    out = workdir / "valid"
    args = _args(server, prompts, out, "--target-qps", "300", "--min-query-count", "480")
    assert main([*args, "--ttft-ms", "1000", "--tpot-ms", "200", "--seed", "7"]) == 0
    return out


def test_the_written_record_is_its_published_schema(valid_run: Path) -> None:
    import jsonschema

    from evidencepack.mlperf.measure_record import MeasureRunRecord
    from evidencepack.schemas import schemas_dir

    text = (valid_run / "run.json").read_text(encoding="utf-8")
    schema = json.loads((schemas_dir() / "measure-run.v1.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(json.loads(text))
    record = MeasureRunRecord.model_validate_json(text)
    assert record.tokenizer is not None
    assert record.requests.retried == 0


def test_valid_server_run(valid_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = sorted(p.name for p in valid_run.iterdir())
    assert names == [
        "mlperf_log_accuracy.json",
        "mlperf_log_detail.txt",
        "mlperf_log_summary.txt",
        "mlperf_log_trace.json",
        "requests.jsonl",
        "run.json",
    ]
    summary = (valid_run / "mlperf_log_summary.txt").read_text()
    assert "Result is : VALID" in summary
    record = _record(valid_run)
    assert record["complete"] is True
    assert record["server"]["version"] == {"version": "0.9.2"}
    assert record["server"]["models"] == [{"id": MODEL, "owned_by": "vllm"}]
    assert record["response_models"] == [MODEL]
    assert record["loadgen"]["ttft_limit_ms"] == 1000
    assert record["libraries"]["mlcommons-loadgen"]
    rows = _rows(valid_run)
    assert len(rows) == record["requests"]["ok"] >= 480
    assert all(r["status"] == "ok" and r["output_tokens"] == 4 for r in rows)
    assert all(r["tokens_source"] == "usage" and len(r["itl_gaps_ms"]) == 3 for r in rows)
    # The server waits 4 ms before the first token: nobody measures less.
    assert min(r["ttft_ms"] for r in rows) >= 4.0

    assert main(["inspect", "--json", str(valid_run / "mlperf_log_detail.txt")]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    (run,) = report["runs"]
    assert run["identity"]["model_name"] == MODEL
    assert (run["identity"]["runtime_name"], run["identity"]["runtime_version"]) == (
        "vllm",
        "0.9.2",
    )
    assert run["requests_completed"] == len(rows)
    assert run["load"]["request_rate_per_s"] == 300
    assert not any("INVALID" in w for w in run["warnings"])
    assert run["verdict"] == "VALID"

    assert main(["inspect", "--json", str(valid_run / "requests.jsonl")]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    (run,) = report["runs"]
    assert run["format_id"] == "evidencepack-measure-requests"
    assert run["per_request_rows"] == len(rows)
    assert run["ttft"]["p50_ms"] >= 4.0
    assert run["identity"]["model_name"] == MODEL


def test_invalid_server_run_when_the_slo_is_not_met(
    server: OpenAIServer, prompts: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = workdir / "invalid"
    args = _args(server, prompts, out, "--target-qps", "100", "--min-query-count", "40")
    # A 2 ms TTFT limit against a server that needs 4 ms for its first token.
    assert main([*args, "--ttft-ms", "2", "--tpot-ms", "200"]) == 0
    said = capsys.readouterr()
    assert "INVALID" in said.out
    # The result line is printed once: on standard output, not again in the progress.
    (line,) = [x for x in said.out.splitlines() + said.err.splitlines() if x.startswith(str(out))]
    assert line in said.out.splitlines()
    # inspect reads the folder measure wrote, as a spec's runs entry reads it.
    assert main(["inspect", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        f"{out}: a run folder; reading mlperf_log_detail.txt, mlperf_log_summary.txt, "
        "requests.jsonl\n"
    ), text
    assert f"{out / 'requests.jsonl'}: evidencepack-measure-requests" in text
    assert main(["inspect", str(out.parent)]) == 1
    assert "is a folder; give the files inside it" in capsys.readouterr().out
    detail = out / "mlperf_log_detail.txt"
    assert main(["inspect", "--json", str(detail)]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert run["verdict"] == "INVALID"
    assert any("TTFT constrain not met" in r for r in run["verdict_reasons"])
    assert any(w.startswith("LoadGen judged the run INVALID") for w in run["warnings"])


def test_offline_run(
    server: OpenAIServer,
    prompts: Path,
    workdir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TEST_MEASURE_KEY", "sk-test-123")
    out = workdir / "offline"
    args = _args(server, prompts, out, "--scenario", "offline", "--min-query-count", "64")
    args += ["--api-key-env", "TEST_MEASURE_KEY", "--no-usage", "--sampling", "ignore_eos=true"]
    assert main([*args, "--expected-qps", "100", "--max-in-flight", "8"]) == 0
    assert "Bearer sk-test-123" in server.authorizations
    assert "sk-test-123" not in "".join(p.read_text() for p in out.iterdir())
    rows = _rows(out)
    # Without stream_options.include_usage the streamed chunks are counted.
    assert {(r["tokens_source"], r["output_tokens"]) for r in rows} == {("counted", 4)}
    summary = (out / "mlperf_log_summary.txt").read_text()
    assert "Scenario : Offline" in summary
    record = _record(out)
    # This server has no tokenize endpoint: the chunk counts are said to be estimates.
    assert record["requests"]["output_tokens_sources"] == {"counted": len(rows)}
    assert record["tokenizer"]["path"] is None
    assert "/extras/tokenize: HTTP 404" in record["tokenizer"]["problem"]
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert any("are streamed chunks counted, not tokens" in w for w in run["warnings"])
    # The LoadGen log's reader, which check and the report use, says so too.
    assert main(["inspect", "--json", str(out / "mlperf_log_detail.txt")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert any("are streamed chunks counted, not tokens" in w for w in run["warnings"])
    assert record["request"]["sampling"] == {"ignore_eos": True}
    assert record["request"]["api_key_sent"] is True
    assert record["limits"] == {"max_in_flight": 8, "max_in_flight_seen": 8}
    assert record["requests"]["ok"] >= 64


def test_sweep_writes_one_folder_per_rate(
    server: OpenAIServer, prompts: Path, workdir: Path
) -> None:
    out = workdir / "sweep"
    args = _args(server, prompts, out, "--sweep", "20,40", "--min-query-count", "12")
    assert main([*args, "--ttft-ms", "1000", "--tpot-ms", "200", "--api", "chat"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["qps_20", "qps_40"]
    for rate in (20, 40):
        record = _record(out / f"qps_{rate}")
        assert record["loadgen"]["target_qps"] == rate
        assert record["request"]["path"] == "/v1/chat/completions"
        assert (
            "target_qps : " + str(rate) in (out / f"qps_{rate}/mlperf_log_summary.txt").read_text()
        )


def test_every_failure_kind_is_a_failed_request_not_a_crash(
    server: OpenAIServer, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = [f"contract {i} {kind}" for i in range(4) for kind in (*FAILURES, "ok", "@done-close")]
    prompts = _prompts(workdir / "failing.jsonl", texts)
    out = workdir / "failures"
    args = _args(server, prompts, out, "--scenario", "offline", "--min-query-count", "96")
    assert main([*args, "--expected-qps", "100", "--timeout-s", "0.5", "--seed", "3"]) == 0
    rows = _rows(out)
    reasons = {texts[r["sample_index"]].split()[-1]: r["error"] for r in rows}
    assert reasons["ok"] is None
    assert reasons["@500"].startswith("HTTP 500: ")
    assert reasons["@400"].startswith("HTTP 400: ")
    assert reasons["@hang"].startswith("timeout")
    assert reasons["@malformed"].startswith("malformed event stream")
    assert reasons["@empty"].startswith("empty completion")
    # Who ended the stream, after what, on which connection: the evidence is in the reason.
    assert re.fullmatch(
        r"truncated event stream: the server closed \(EOF\) the connection before \[DONE\], "
        r"after 2 output chunk\(s\) and \d+ byte\(s\) of event data; (new connection|keep-alive "
        r"connection reused after \d+ request\(s\), idle \d+\.\d{3} s)",
        reasons["@truncate"],
    ), reasons["@truncate"]
    assert reasons["@reset"].startswith(
        "connection lost: ConnectionResetError: the server closed (EOF) the connection before a "
        "whole response; "
    )
    # A connection that ends after [DONE] lost nothing: the answer was whole.
    assert reasons["@done-close"] is None
    done_close = [r for r in rows if texts[r["sample_index"]].endswith("@done-close")]
    assert {(r["status"], r["output_tokens"]) for r in done_close} == {("ok", 4)}
    record = _record(out)
    assert record["complete"] is True
    assert record["requests"]["failed"] == sum(r["status"] == "failed" for r in rows) > 0
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "mlperf_log_detail.txt")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert run["requests_failed"] == record["requests"]["failed"]
    assert run["requests_completed"] == record["requests"]["ok"]
    assert any("failed: HTTP 400" in w and "timeout x" in w for w in run["warnings"])


def test_a_keep_alive_connection_closed_under_a_request_is_retried(
    server: OpenAIServer, workdir: Path
) -> None:
    # The server answers, keeps the connection, then closes it when the next request comes:
    # that request is sent again on a new connection and succeeds, its row saying why.
    prompts = _prompts(workdir / "close-next.jsonl", ["clause one @close-next", "clause two"])
    out = workdir / "close-next"
    args = _args(server, prompts, out, "--scenario", "offline", "--min-query-count", "16")
    assert main([*args, "--expected-qps", "100", "--max-in-flight", "1"]) == 0
    rows = _rows(out)
    assert all(r["status"] == "ok" for r in rows)
    retried = [r["retried"] for r in rows if r["retried"]]
    assert retried
    for reason in retried:
        assert re.fullmatch(
            r"connection lost: ConnectionResetError: the server closed \(EOF\) the connection "
            r"before a whole response; keep-alive connection reused after \d+ request\(s\), "
            r"idle \d+\.\d{3} s",
            reason,
        ), reason
    assert _record(out)["requests"]["retried"] == len(retried)


def test_a_lost_server_ends_the_run_incomplete(prompts: Path, workdir: Path) -> None:
    out = workdir / "lost"
    with OpenAIServer(ttft_s=0.002, tpot_s=0.001) as lost:

        def lose_it() -> None:
            deadline = time.monotonic() + 15
            while lost.requests < 20 and time.monotonic() < deadline:
                time.sleep(0.01)
            lost.stop()

        threading.Thread(target=lose_it, daemon=True).start()
        options = MeasureOptions(
            endpoint=lost.url,
            model=MODEL,
            prompts=prompts,
            outdir=out,
            target_qps=50,
            ttft_ms=1000,
            tpot_ms=200,
            max_tokens=4,
            min_duration_ms=60_000,
            lost_after_s=0.5,
            timeout_s=2,
        )
        started = time.monotonic()
        (result,) = measure(options)
    assert time.monotonic() - started < 20
    assert not result.complete
    assert result.stop_reason is not None
    assert result.stop_reason.startswith("server lost")
    assert result.ok > 0
    assert "connection refused" in result.failures or "connection lost" in result.failures
    assert not (out / "mlperf_log_detail.txt").exists()
    assert _record(out)["complete"] is False


def test_refused_connection_with_nothing_listening(prompts: Path, workdir: Path) -> None:
    with OpenAIServer() as gone:
        pass  # its port is now closed: nothing listens there
    out = workdir / "refused"
    args = _args(gone, prompts, out, "--target-qps", "50", "--ttft-ms", "100", "--tpot-ms", "100")
    args[args.index("--min-duration-ms") + 1] = "60000"
    code = main([*args, "--lost-after-s", "0.3"])
    assert code == 3
    record = _record(out)
    assert record["server"]["probe_errors"]
    assert record["requests"]["ok"] == 0
    assert "connection refused" in record["requests"]["failures"]


def test_the_worker_exits_cleanly_and_at_once_after_a_complete_run(
    server: OpenAIServer, prompts: Path, workdir: Path
) -> None:
    """The LoadGen worker of a finished point exits 0 once it has written its folder. Its thread
    watching the parent's pipe used to hold stdin's lock, so the interpreter's shutdown waited a
    second for it and then aborted the worker (SIGABRT, "Fatal Python error"): a second lost
    per load point, unseen because measure reads the run record, not the exit code."""
    out = workdir / "worker"
    options = MeasureOptions(
        endpoint=server.url, model=MODEL, prompts=prompts, outdir=out, scenario="offline",
        max_tokens=4, min_duration_ms=100, min_query_count=16, expected_qps=100, timeout_s=5,
    )  # fmt: skip
    ((_, config),) = points(options)
    out.mkdir()
    config_file = workdir / "worker-config.json"
    config_file.write_text(config.to_json(), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidencepack.measure.worker", str(config_file)],
        stdin=subprocess.PIPE,  # held open, as measure holds it: the parent is alive
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        deadline = time.monotonic() + 60
        while not (out / "run.json").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _record(out)["complete"] is True
        code = proc.wait(30)
    finally:
        proc.kill()  # (a no-op once it has exited)
        _, err = proc.communicate(timeout=30)
    assert code == 0, err.decode(errors="replace")
    assert b"Fatal Python error" not in err


def test_ctrl_c_stops_the_run_cleanly(server: OpenAIServer, prompts: Path, workdir: Path) -> None:
    out = workdir / "interrupted"
    args = _args(server, prompts, out, "--target-qps", "50", "--ttft-ms", "100", "--tpot-ms", "100")
    args[args.index("--min-duration-ms") + 1] = "60000"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidencepack", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # SIGINT back to its default in the child: a test run started in the background (`&`)
        # inherits it ignored, and the Ctrl-C below would reach no one
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    partial = out.parent / f".{out.name}.partial" / "mlperf_log_detail.txt"
    deadline = time.monotonic() + 20
    while not partial.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    said, err = proc.communicate(timeout=30)
    assert proc.returncode == 3, err
    record = _record(out)
    assert record["complete"] is False
    assert record["stop_reason"] == "interrupted (SIGTERM)"
    assert record["requests"]["ok"] > 10
    assert not (out / "mlperf_log_summary.txt").exists()
    # The point's result, once, on standard output; the progress on standard error.
    assert said.decode().count("INCOMPLETE") == 1, said
    assert "INCOMPLETE" not in err.decode()


def test_usage_errors(server: OpenAIServer, prompts: Path, workdir: Path) -> None:
    base = MeasureOptions(endpoint=server.url, model=MODEL, prompts=prompts, outdir=workdir / "x")
    with pytest.raises(InvalidRequest, match="needs target_qps"):
        measure(base)
    with pytest.raises(InvalidRequest, match="ttft_ms and tpot_ms"):
        measure(MeasureOptions(**{**base.__dict__, "target_qps": 1.0}))
    with pytest.raises(InvalidRequest, match="http:// or https://"):
        measure(MeasureOptions(**{**base.__dict__, "endpoint": "ftp://x", "scenario": "offline"}))
    bad = _prompts(workdir / "bad.jsonl", ["fine"])
    bad.write_text('{"prompt": "fine"}\n{"messages": 3}\n')
    assert main(_args(server, bad, workdir / "y", "--scenario", "offline")) == 1


def test_check_decides_on_measured_runs(
    server: OpenAIServer, valid_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = tmp_path / "samples"
    shutil.copytree(REPO_ROOT / "samples", samples, ignore=shutil.ignore_patterns("generate"))
    shutil.copytree(valid_run, samples / "evidence" / "h200-vllm" / "valid")
    spec = samples / "pack.yaml"
    # Prompts as long as the traffic's mean input; max_tokens, the SLO and the concurrency limit
    # come from the spec's envelope and traffic.
    prompts = _prompts(tmp_path / "p.jsonl", ["clause " * 1800] * 8)
    out = samples / "evidence" / "h200-vllm" / "measured"
    args = [
        "measure",
        "--endpoint",
        server.url,
        "--prompts",
        str(prompts),
        "-o",
        str(out),
        "--spec",
        str(spec),
        "--candidate",
        "h200-vllm",
        "--sweep",
        "4,8",
        "--min-duration-ms",
        "300",
        "--min-query-count",
        "8",
    ]
    assert main(args) == 0
    capsys.readouterr()
    record = _record(out / "qps_8")
    assert record["request"]["max_tokens"] == 260
    assert record["limits"]["max_in_flight"] == 64
    assert (record["loadgen"]["ttft_limit_ms"], record["loadgen"]["tpot_limit_ms"]) == (2000, 100)
    text = spec.read_text()
    old_runs = "".join(
        f"        - path: evidence/h200-vllm/runs/qps_{q}\n"
        for q in ("2.0", "3.0", "3.5", "4.0", "5.5")
    )
    assert old_runs in text
    new_runs = "".join(f"        - path: evidence/h200-vllm/measured/qps_{q}\n" for q in (4, 8))
    new_runs += "        - path: evidence/h200-vllm/valid\n"
    text = text.replace(old_runs, new_runs)
    # The runs were measured today: the decision is dated today, or they would postdate it. The
    # loopback server's answers are short: the token lengths are let through for this test.
    today = dt.date.today().isoformat()
    text = text.replace("  date: 2026-11-30\n", f"  date: {today}\n")
    # The runs are short and few: the fit minima are lowered for them too.
    text = text.replace(
        "headroom: 0.25\n",
        "headroom: 0.25\nfit: {token_tolerance: 1.0, tail_tolerance: 1.0, min_duration_s: 0.1, "
        "min_requests: 1}\n",
    )
    spec.write_text(text)
    assert main(["check", "--json", str(spec)]) in (0, 1)
    decision = json.loads(capsys.readouterr().out)
    rows = [
        r
        for r in decision["comparability"]
        if r["candidate"] == "h200-vllm" and "measured" in r["subject"]
    ]
    assert len(rows) == 2
    for row in rows:
        # Model and runtime come from the server itself, not from the spec's declared block.
        assert "model_name" not in row["declared"]
        assert "runtime_version" not in row["declared"]
        assert row["like_for_like"], row
    capacity = next(c for c in decision["capacity"] if c["candidate"] == "h200-vllm")
    points = {p["run"]: p for p in capacity["load_points"]}
    assert set(points) == {
        "evidence/h200-vllm/measured/qps_4",
        "evidence/h200-vllm/measured/qps_8",
        "evidence/h200-vllm/valid",
    }
    # The sweep's few queries leave LoadGen's early stopping unsatisfied: INVALID runs do not
    # count, however good their p99s; the VALID run sets the operating point.
    for rate in (4, 8):
        point = points[f"evidence/h200-vllm/measured/qps_{rate}"]
        assert point["ttft_p99_ms"] < 2000
        assert not point["meets_slo"]
        assert point["misses"] == [
            "mlperf-loadgen judged the run INVALID: early stopping not satisfied"
        ]
    assert points["evidence/h200-vllm/valid"]["meets_slo"], points["evidence/h200-vllm/valid"]
    assert capacity["operating_point_run"] == "evidence/h200-vllm/valid"
    checks = {c["id"]: c for c in decision["checks"] if c["candidate"] == "h200-vllm"}
    # The token lengths are observed too (not declared): within this test's +-100% tolerance
    valid = next(f for f in decision["fit"] if f["subject"] == "evidence/h200-vllm/valid")
    assert valid["fits"]
    row = next(r for r in decision["comparability"] if r["subject"] == "evidence/h200-vllm/valid")
    assert "input_tokens_mean" not in row["unknown"]
    assert "input_tokens_mean" not in row["declared"]
    assert checks["SLO-MET"]["status"] == "PASS"
    assert "evidence/h200-vllm/valid" in checks["SLO-MET"]["reason"]
