"""One LoadGen run in its own process: ``python -m evidencepack.measure.worker config.json``.

LoadGen cannot be stopped half-way, so each load point runs in a child process that the parent
can end: on SIGTERM or SIGINT (or when the server is lost) the worker cancels what is in flight,
writes the requests it measured and a run record marked incomplete, discards LoadGen's partial
logs and exits without waiting for LoadGen's schedule to run out.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import mlperf_loadgen as lg

from ..errors import CouldNotRun
from .client import Client, RequestSettings, parse_endpoint
from .options import PointConfig
from .prompts import load_prompts
from .record import (
    RECORD_FILE,
    RECORD_SCHEMA,
    REQUESTS_FILE,
    client_host,
    failure_counts,
    library_versions,
    probe_server,
    request_row,
    utc_now,
    write_json_atomic,
    write_record,
    write_rows,
)
from .server_metrics import SERVER_METRICS_FILE, Sample, document, scrape
from .sut import StreamingSut
from .tokenizer_file import TOKENIZER_FILE, read_kept

LOADGEN_FILES = (
    "mlperf_log_summary.txt",
    "mlperf_log_detail.txt",
    "mlperf_log_accuracy.json",
    "mlperf_log_trace.json",
)
_DRAIN_S = 3.0


def loadgen_settings(config: PointConfig) -> lg.TestSettings:
    """LoadGen's TestSettings for one point: its defaults, then what the config overrides."""
    settings = lg.TestSettings()
    settings.mode = lg.TestMode.PerformanceOnly
    settings.use_token_latencies = True
    if config.scenario == "server":
        settings.scenario = lg.TestScenario.Server
        settings.server_target_qps = float(config.target_qps or 1.0)
        if config.ttft_ms is not None:
            settings.ttft_latency = round(config.ttft_ms * 1e6)
        if config.tpot_ms is not None:
            settings.tpot_latency = round(config.tpot_ms * 1e6)
    else:
        settings.scenario = lg.TestScenario.Offline
        if config.expected_qps is not None:
            settings.offline_expected_qps = float(config.expected_qps)
    if config.min_duration_ms is not None:
        settings.min_duration_ms = config.min_duration_ms
    if config.min_query_count is not None:
        settings.min_query_count = config.min_query_count
    if config.max_duration_ms is not None:
        settings.max_duration_ms = config.max_duration_ms
    if config.seed is not None:
        settings.qsl_rng_seed = config.seed
        settings.sample_index_rng_seed = config.seed + 1
        settings.schedule_rng_seed = config.seed + 2
    return settings


def run(config: PointConfig) -> int:
    # LoadGen's issuing thread and the client's event loop hand the GIL back and forth on every
    # request; Python's default 5 ms switch interval showed up as milliseconds of TTFT.
    """Measure one load point into its run folder (``run.json`` says whether it completed)."""
    sys.setswitchinterval(0.0005)
    outdir = Path(config.outdir)
    prompts, prompts_sha256 = load_prompts(Path(config.prompts))
    endpoint = parse_endpoint(config.endpoint)
    request = RequestSettings(
        model=config.model,
        api=config.api,
        max_tokens=config.max_tokens,
        sampling=dict(config.sampling),
        include_usage=config.include_usage,
        timeout_s=config.timeout_s,
    )
    api_key = os.environ.get(config.api_key_env) if config.api_key_env else None
    client = Client(endpoint, request, api_key)
    started = utc_now()
    kept = outdir / TOKENIZER_FILE  # written by measure with --tokenizer
    source = config.tokenizer_source
    sut = StreamingSut(
        client,
        prompts,
        max_in_flight=config.max_in_flight,
        lost_after_s=config.lost_after_s,
        tokenizer_file=read_kept(kept, source) if source is not None else None,
    )
    sut.__enter__()
    server = sut.run(probe_server(client), timeout_s=30)
    metrics = _MetricsScrapes(config.server_metrics)

    def on_signal(signum: int, _frame: object) -> None:
        sut.stop(f"interrupted ({signal.Signals(signum).name})")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=_watch_parent, args=(sut,), name="parent", daemon=True).start()

    output = lg.LogOutputSettings()
    output.outdir = str(outdir)
    output.copy_summary_to_stdout = False
    log_settings = lg.LogSettings()
    log_settings.log_output = output
    log_settings.enable_trace = False
    handle = lg.ConstructSUT(sut.issue_query, sut.flush_queries)
    qsl = lg.ConstructQSL(len(prompts), len(prompts), _no_op, _no_op)
    done = threading.Event()
    settings = loadgen_settings(config)

    def drive() -> None:
        try:
            lg.StartTestWithLogSettings(handle, qsl, settings, log_settings)
        finally:
            done.set()

    threading.Thread(target=drive, name="loadgen", daemon=True).start()
    while not done.wait(0.1):
        if sut.stopped.is_set():
            break
    complete = done.is_set() and sut.stop_reason is None
    if not complete:
        deadline = time.monotonic() + _DRAIN_S
        while sut.in_flight_tasks and time.monotonic() < deadline:
            time.sleep(0.02)
    rows = [request_row(r, prompts[r.sample_index]) for r in sut.snapshot_rows()]
    rows.sort(key=lambda r: (r["send_time_s"], r["sample_id"]))
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "complete": complete,
        "stop_reason": sut.stop_reason,
        "endpoint": config.endpoint,
        "server": server,
        "response_models": sorted({m for m in sut.response_models if m}),
        "request": {
            "api": config.api,
            "path": client.path,
            "model": config.model,
            "max_tokens": config.max_tokens,
            "sampling": config.sampling,
            "stream_options.include_usage": config.include_usage,
            "timeout_s": config.timeout_s,
            "api_key_env": config.api_key_env,
            "api_key_sent": api_key is not None,
        },
        "loadgen": {
            "scenario": "Server" if config.scenario == "server" else "Offline",
            "target_qps": config.target_qps,
            "ttft_limit_ms": config.ttft_ms,
            "tpot_limit_ms": config.tpot_ms,
            "min_duration_ms": settings.min_duration_ms,
            "min_query_count": settings.min_query_count,
            "max_duration_ms": config.max_duration_ms,
            "offline_expected_qps": config.expected_qps,
            "seed": config.seed,
        },
        "limits": {
            "max_in_flight": config.max_in_flight,
            "max_in_flight_seen": sut.max_in_flight_seen,
        },
        "prompts": {
            "file": Path(config.prompts).name,
            "sha256": prompts_sha256,
            "count": len(prompts),
        },
        "client": client_host(),
        "libraries": library_versions(),
        "note": config.note,
        "started_utc": started,
        "finished_utc": utc_now(),
        "requests": {
            "sent": sum(1 for r in rows if not str(r["error"] or "").startswith("not sent")),
            "ok": sum(1 for r in rows if r["status"] == "ok"),
            "failed": sum(1 for r in rows if r["status"] != "ok"),
            "failures": failure_counts(rows),
            "retried": sum(1 for r in rows if r["retried"]),
            "rate_limited": sum(1 for r in rows if r["http_status"] == 429),
            "retry_after_seen": sorted({str(r["retry_after"]) for r in rows if r["retry_after"]}),
            "input_tokens_mean": _mean(r["input_tokens"] for r in rows if r["status"] == "ok"),
            "output_tokens_mean": _mean(r["output_tokens"] for r in rows if r["status"] == "ok"),
            "output_tokens_sources": dict(
                sorted(Counter(r["tokens_source"] for r in rows if r["status"] == "ok").items())
            ),
        },
        "tokenizer": sut.tokenizer.record(),
    }
    if record["tokenizer"]["counted_by"] != "file":
        kept.unlink(missing_ok=True)  # the file counted nothing: not evidence of this run
    record["server_metrics"] = metrics.finish(outdir)
    write_rows(outdir / REQUESTS_FILE, rows)
    if not complete:
        record["loadgen_logs"] = "discarded: LoadGen was stopped before its verdict"
        for name in LOADGEN_FILES:
            (outdir / name).unlink(missing_ok=True)
    write_record(outdir / RECORD_FILE, record)
    if not complete:
        sys.stdout.flush()
        os._exit(0)  # LoadGen's threads cannot be joined before its schedule ends
    lg.DestroyQSL(qsl)
    lg.DestroySUT(handle)
    sut.close()
    return 0


class _MetricsScrapes:
    """The engine's metrics read before the run and, by ``finish``, after it."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.before: list[Sample] | None = None
        self.before_utc = utc_now()
        self.error: str | None = None
        if url is not None:
            try:
                self.before = scrape(url)
            except CouldNotRun as exc:
                self.error = f"before the run: {exc.message}"

    def finish(self, outdir: Path) -> dict[str, Any] | None:
        """Scrape again and write ``server-metrics.json``; what run.json says of it."""
        if self.url is None:
            return None
        out: dict[str, Any] = {"url": self.url, "file": None, "error": self.error}
        if self.before is None:
            return out
        try:
            after = scrape(self.url)
        except CouldNotRun as exc:
            out["error"] = f"after the run: {exc.message}"
            return out
        doc = document(self.url, self.before, after, self.before_utc, utc_now())
        write_json_atomic(outdir / SERVER_METRICS_FILE, doc)
        out["file"] = SERVER_METRICS_FILE
        out["engine"] = doc["engine"]
        return out


def _watch_parent(sut: StreamingSut) -> None:
    """Stop the run when ``measure`` is gone: its end of our stdin pipe closes (EOF), even when
    it was killed outright. If the run does not end by itself soon after, leave at once.

    The pipe is read through its file descriptor, not ``sys.stdin.buffer``: a read of the
    buffered reader holds its lock, and at the end of a finished run the interpreter's shutdown
    waited a second for that lock, then aborted the worker ("could not acquire lock for
    <stdin> at interpreter shutdown", SIGABRT): a second lost per load point."""
    with contextlib.suppress(OSError, ValueError):
        while os.read(sys.stdin.fileno(), 1 << 16):
            pass
    sut.stop("measure ended: the process that started this run is gone")
    time.sleep(_DRAIN_S + 10)
    os._exit(3)


def _mean(values: Iterable[int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 3) if known else None


def _no_op(_samples: object) -> None:
    """QSL load/unload: prompts are already in memory."""


def main(argv: list[str]) -> int:
    """The worker process's entry point: ``argv[0]`` is the point's config file."""
    config = PointConfig.from_json(Path(argv[0]).read_text(encoding="utf-8"))
    return run(config)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
