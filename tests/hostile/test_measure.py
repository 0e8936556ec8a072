"""``measure`` always ends (issue 23, item 4): a hostile endpoint, prompt file or run folder.

Each case runs the real ``evidencepack measure`` in a subprocess under a memory limit and a
timeout against the loopback test server (``tests/measure/openai_server.py``, whose hostile
directives pick the attack per prompt). The old client let a request task die on such input:
LoadGen then waited forever for its sample.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack.measure.run import read_result

from ..conftest import REPO_ROOT, SAMPLE_SPEC
from ..measure.openai_server import OpenAIServer
from ..measure.test_measure import _args as measure_args
from .harness import assert_refused, run

KEY = "sk-test-0123456789abcdefSECRET"


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(ttft_s=0.002, tpot_s=0.001) as running:
        yield running


def _prompts(path: Path, directive: str) -> Path:
    lines = [json.dumps({"prompt": f"contract {i} {directive}"}) + "\n" for i in range(8)]
    path.write_text("".join(lines))
    return path


def _measure(server: OpenAIServer, prompts: Path, out: Path, *extra: str) -> list[str]:
    """The measure tests' short run, as one Offline point of 16 queries."""
    offline = ("--scenario", "offline", "--expected-qps", "50", "--min-query-count", "16")
    args = measure_args(server, prompts, out, *offline, *extra)
    args[args.index("--min-duration-ms") + 1] = "200"
    return args


def _rows(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("directive", "error"),
    [
        ("@unicode-status", "malformed HTTP response: status line"),
        ("@long-header", "malformed response"),
        ("@huge-chunk", "malformed chunked body: a chunk of 1073741824 bytes"),
        ("@huge-token", "malformed event stream"),
        (
            "@usage-huge",
            "impossible usage count: completion_tokens 1000000000000000000000000000000",
        ),
        ("@usage-inflated", "usage contradicts the stream: 100,000 completion tokens for 3"),
        ("@deep", "malformed response: RecursionError"),
    ],
)
def test_a_hostile_response_is_a_failed_request_and_the_run_ends(
    server: OpenAIServer, tmp_path: Path, directive: str, error: str
) -> None:
    out = tmp_path / "run"
    ran = run(_measure(server, _prompts(tmp_path / "p.jsonl", directive), out))
    assert ran.code == 0, ran.err
    assert "Traceback" not in ran.err
    rows = _rows(out)
    assert len(rows) >= 16
    assert all(r["status"] == "failed" for r in rows)
    assert all(str(r["error"]).startswith(error) for r in rows), rows[0]["error"]
    assert json.loads((out / "run.json").read_text())["complete"] is True


def test_the_api_key_is_never_recorded(server: OpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = _measure(server, _prompts(tmp_path / "p.jsonl", "@echo-auth"), out)
    ran = run([*args, "--api-key-env", "TEST_API_KEY"], env={"TEST_API_KEY": KEY})
    assert ran.code == 0, ran.err
    rows = _rows(out)
    assert all(str(r["error"]).startswith("HTTP 401") for r in rows)
    assert "[redacted]" in str(rows[0]["error"])
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY[:8] not in path.read_text(errors="replace"), path
    assert KEY[:8] not in ran.out + ran.err


def test_a_fifo_as_prompts_is_refused_at_once(server: OpenAIServer, tmp_path: Path) -> None:
    fifo = tmp_path / "prompts.jsonl"
    os.mkfifo(fifo)
    ran = run(_measure(server, fifo, tmp_path / "run"))
    assert_refused(ran, 1, str(fifo), "FIFO")
    assert ran.seconds < 30


def test_a_partial_folder_of_the_users_is_not_deleted(server: OpenAIServer, tmp_path: Path) -> None:
    mine = tmp_path / ".run.partial"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    ran = run(_measure(server, _prompts(tmp_path / "p.jsonl", "ok"), tmp_path / "run"))
    assert_refused(ran, 2, str(mine), "deletes only what it created")
    assert (mine / "thesis.tex").read_text() == "mine"
    assert not (tmp_path / "run").exists()


def _worker_pids(marker: str) -> list[int]:
    """Processes whose command line names ``marker`` (the test's own run folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "evidencepack.measure.worker" in cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_the_worker_dies_with_measure(server: OpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    # At most 8 requests in flight: the hanging server must not collect thousands of sockets
    # in this process while LoadGen's long Offline query waits.
    args = _measure(server, _prompts(tmp_path / "p.jsonl", "@hang"), out, "--max-in-flight", "8")
    args[args.index("--min-duration-ms") + 1] = "600000"
    args[args.index("--timeout-s") + 1] = "600"
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidencepack", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO_ROOT,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _worker_pids(str(tmp_path))
        assert workers, "the worker never started"
        time.sleep(1.0)
        proc.kill()  # SIGKILL: measure gets no chance to stop its worker itself
        proc.wait(10)
        deadline = time.monotonic() + 30
        while _worker_pids(str(tmp_path)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _worker_pids(str(tmp_path)), "the worker outlived measure"
    finally:
        for pid in _worker_pids(str(tmp_path)):  # the ones this test started, by pid
            os.kill(pid, signal.SIGKILL)


def test_an_impossible_figure_is_an_error_not_printed(tmp_path: Path, shared_data: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    detail = (shared_data / "loadgen/llama2-70b_Server_perf/mlperf_log_detail.txt").read_text()
    lines = []
    for line in detail.splitlines(keepends=True):
        if '"key": "result_time_per_output_token_99.00_percentile_ns"' in line:
            event = json.loads(line.split(":::MLLOG", 1)[1])
            event["value"] = -2500000
            line = ":::MLLOG " + json.dumps(event) + "\n"
        lines.append(line)
    (folder / "mlperf_log_detail.txt").write_text("".join(lines))
    sample = SAMPLE_SPEC.parent / "evidence/h200-vllm/runs/qps_4.0/run.json"
    (folder / "run.json").write_bytes(sample.read_bytes())  # a whole record: it is validated
    result = read_result("point", folder)
    assert result.tpot_p99_ms is None
    assert "TPOT p99: LoadGen's log has -2.5" in result.line()
    assert "TPOT p99 -" not in result.line()
