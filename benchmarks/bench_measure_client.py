"""Is the client what ``measure`` measures? Its own latency and top rate against an instant server.

Starts the tests' OpenAI-compatible streaming server (``tests/measure/openai_server.py``) in its
own process on 127.0.0.1, answering at once (no wait before the first token or between tokens,
``--tokens`` tokens per request), then drives it, in the same run, with:

1. a minimal raw-socket client (blocking sockets, keep-alive, the request bytes built once):
   the floor any Python client can reach against this server;
2. evidencepack's asyncio streaming client (``evidencepack.measure.client``);
3. the whole ``evidencepack measure`` path: LoadGen's Server scenario at a low rate (LoadGen's
   own TTFT, from query issue to ``FirstTokenComplete``) and its Offline scenario (LoadGen's
   samples per second);
4. guidellm and AIPerf, when their executables are found (``--guidellm``, ``--aiperf``).

``--engine`` drives a real engine instead: llama.cpp's own server
(``tests/measure/llama_engine.py``, the ``xllamacpp`` wheel) on the tests' tiny random Llama,
every request asking ``ignore_eos`` so that each one generates ``--tokens`` tokens. The floor
then includes the engine's own work, and what a client adds is still its figure minus the
floor's.

Latency is measured one request at a time (p50 and p99 over ``--requests``); the rate with
``--concurrency`` requests in flight. What a client adds is its latency minus the raw floor.

    python benchmarks/bench_measure_client.py [--requests N] [--concurrency C] [--tokens T]
                                              [--engine]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evidencepack.measure.client import Client, RequestSettings, parse_endpoint  # noqa: E402
from evidencepack.measure.options import MeasureOptions  # noqa: E402
from evidencepack.measure.run import measure  # noqa: E402
from evidencepack.mlperf.loadgen_log import parse_detail  # noqa: E402

MODEL = "bench-model"
SERVER = """
import sys
from tests.measure.openai_server import OpenAIServer
with OpenAIServer(model=sys.argv[1]) as server:
    print(server.port, flush=True)
    sys.stdin.read()
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(name: str, ttft: list[float], e2e: list[float], rate: float | None) -> dict[str, Any]:
    return {
        "client": name,
        "ttft_p50_ms": pct(ttft, 0.5) if ttft else None,
        "ttft_p99_ms": pct(ttft, 0.99) if ttft else None,
        "e2e_p50_ms": pct(e2e, 0.5) if e2e else None,
        "e2e_p99_ms": pct(e2e, 0.99) if e2e else None,
        "max_rate_rps": rate,
    }


# --- 1. the raw-socket floor --------------------------------------------------------------------


SAMPLING: dict[str, Any] = {}
"""Extra request fields (``--engine``: ``ignore_eos``, so every answer has all its tokens)."""


def _raw_request(port: int, tokens: int) -> bytes:
    body = json.dumps(
        {"model": MODEL, "prompt": "hello", "max_tokens": tokens, "stream": True, **SAMPLING}
    ).encode()
    head = (
        f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _raw_one(sock: socket.socket, request: bytes) -> tuple[float, float]:
    start = time.perf_counter()
    sock.sendall(request)
    buf = b""
    first = None
    while not buf.endswith(b"0\r\n\r\n"):
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed")
        buf += data
        if first is None and b'"text"' in buf:
            first = time.perf_counter()
    end = time.perf_counter()
    return ((first or end) - start) * 1000, (end - start) * 1000


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _raw_keepalive(port: int, request: bytes, n: int) -> list[tuple[float, float]]:
    """``n`` requests on one keep-alive connection, a new one when the server closed it (llama.cpp's
    server closes some right after an answer: the lost send is not timed)."""
    out = []
    sock = _connect(port)
    try:
        while len(out) < n:
            try:
                out.append(_raw_one(sock, request))
            except (ConnectionError, BrokenPipeError):
                sock.close()
                sock = _connect(port)
    finally:
        sock.close()
    return out


def raw_latency(port: int, n: int, tokens: int) -> tuple[list[float], list[float]]:
    timed = _raw_keepalive(port, _raw_request(port, tokens), n)
    return [a for a, _ in timed], [b for _, b in timed]


def raw_rate(port: int, n: int, concurrency: int, tokens: int) -> float:
    request = _raw_request(port, tokens)
    per_thread = n // concurrency

    def worker() -> None:
        _raw_keepalive(port, request, per_thread)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return per_thread * concurrency / (time.perf_counter() - start)


# --- 2. evidencepack's client -------------------------------------------------------------------


async def _ours(
    url: str, n: int, concurrency: int, tokens: int
) -> tuple[list[float], list[float], float]:
    settings = RequestSettings(model=MODEL, max_tokens=tokens, sampling=dict(SAMPLING))
    client = Client(parse_endpoint(url), settings)
    ttft, e2e = [], []
    for _ in range(n):
        out = await client.stream("hello", None, lambda: None)
        assert out.ok, out.error
        assert out.first_token_ns is not None
        assert out.done_ns is not None
        ttft.append((out.first_token_ns - out.sent_ns) / 1e6)
        e2e.append((out.done_ns - out.sent_ns) / 1e6)
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with semaphore:
            out = await client.stream("hello", None, lambda: None)
            assert out.ok, out.error

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    rate = n / (time.perf_counter() - start)
    await client.close()
    return ttft, e2e, rate


# --- 3. the whole measure path ------------------------------------------------------------------


def measure_path(url: str, n: int, concurrency: int, tokens: int, work: Path) -> dict[str, Any]:
    prompts = work / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": f"hello {i}"}) + "\n" for i in range(64)))
    common: dict[str, Any] = {
        "endpoint": url,
        "model": MODEL,
        "prompts": prompts,
        "max_tokens": tokens,
        "min_duration_ms": 1000,
        "sampling": dict(SAMPLING),
    }
    (server,) = measure(
        MeasureOptions(
            **common,
            outdir=work / "server",
            target_qps=50,
            ttft_ms=1000,
            tpot_ms=1000,
            min_query_count=n,
        )
    )
    log = parse_detail(server.folder / "mlperf_log_detail.txt")
    rows = [
        json.loads(line) for line in (server.folder / "requests.jsonl").read_text().splitlines()
    ]
    (offline,) = measure(
        MeasureOptions(
            **common,
            outdir=work / "offline",
            scenario="offline",
            max_in_flight=concurrency,
            min_query_count=n * 4,
            expected_qps=1,
        )
    )
    offline_log = parse_detail(offline.folder / "mlperf_log_detail.txt")
    return {
        "client": "evidencepack measure (LoadGen)",
        "ttft_p50_ms": log.ttft_ms.get("p50"),
        "ttft_p99_ms": log.ttft_ms.get("p99"),
        "e2e_p50_ms": log.latency_ms.get("p50"),
        "e2e_p99_ms": log.latency_ms.get("p99"),
        "max_rate_rps": offline_log.samples_per_s,
        "client_ttft_p50_ms": pct([r["ttft_ms"] for r in rows], 0.5),
        "client_ttft_p99_ms": pct([r["ttft_ms"] for r in rows], 0.99),
        "queue_p99_ms": pct([r["queue_ms"] for r in rows], 0.99),
    }


# --- 4. guidellm and AIPerf ---------------------------------------------------------------------


def guidellm(
    exe: str, url: str, n: int, concurrency: int, tokens: int, work: Path
) -> dict[str, Any]:
    data = work / "guidellm-prompts.jsonl"
    data.write_text("".join(json.dumps({"prompt": "hello"}) + "\n" for _ in range(n)))
    results: dict[str, Any] = {"client": "guidellm"}
    for mode, extra in (
        ("latency", ["--rate-type", "synchronous"]),
        ("rate", ["--rate-type", "concurrent", "--rate", str(concurrency)]),
    ):
        out = work / f"guidellm-{mode}.json"
        cmd = [
            exe,
            "benchmark",
            "--target",
            url,
            "--model",
            MODEL,
            "--data",
            str(data),
            "--max-requests",
            str(n),
            "--output-path",
            str(out),
            *extra,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not out.exists():
            results["error"] = (done.stderr or done.stdout)[-600:]
            return results
        bench = json.loads(out.read_text())["benchmarks"][0]
        metrics = bench["metrics"]
        if mode == "latency":
            ttft = metrics["time_to_first_token_ms"]["successful"]
            e2e = metrics["request_latency"]["successful"]
            results |= {
                "ttft_p50_ms": ttft["median"],
                "ttft_p99_ms": ttft["percentiles"]["p99"],
                "e2e_p50_ms": e2e["median"] * 1000,
                "e2e_p99_ms": e2e["percentiles"]["p99"] * 1000,
            }
        else:
            results["max_rate_rps"] = metrics["requests_per_second"]["successful"]["mean"]
    return results


def aiperf(exe: str, url: str, n: int, concurrency: int, tokens: int, work: Path) -> dict[str, Any]:
    results: dict[str, Any] = {"client": "aiperf"}
    for mode, conc in (("latency", 1), ("rate", concurrency)):
        out = work / f"aiperf-{mode}"
        cmd = [
            exe,
            "profile",
            "--model",
            MODEL,
            "--url",
            url,
            "--endpoint-type",
            "completions",
            "--streaming",
            "--request-count",
            str(n),
            "--concurrency",
            str(conc),
            "--output-tokens-mean",
            str(tokens),
            "--tokenizer",
            "gpt2",
            "--artifact-dir",
            str(out),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        found = list(out.rglob("profile_export_aiperf.json"))
        if done.returncode != 0 or not found:
            results["error"] = (done.stderr or done.stdout)[-600:]
            return results
        doc = json.loads(found[0].read_text())
        if mode == "latency":
            results |= {
                "ttft_p50_ms": doc["time_to_first_token"]["p50"],
                "ttft_p99_ms": doc["time_to_first_token"]["p99"],
                "e2e_p50_ms": doc["request_latency"]["p50"],
                "e2e_p99_ms": doc["request_latency"]["p99"],
            }
        else:
            results["max_rate_rps"] = doc["request_throughput"]["avg"]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--guidellm", default=shutil.which("guidellm"))
    parser.add_argument("--aiperf", default=shutil.which("aiperf"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="llama.cpp's server on a tiny model, not the instant one",
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.engine:
            from tests.measure.llama_engine import LlamaServer, write_model

            SAMPLING["ignore_eos"] = True
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            engine = stack.enter_context(
                LlamaServer(write_model(folder / "tiny.gguf"), parallel=args.concurrency)
            )
            url = engine.url
            port = int(url.rsplit(":", 1)[1])
            what = f"llama.cpp's server ({args.concurrency} slots, tiny random Llama)"
        else:
            proc = subprocess.Popen(
                [sys.executable, "-c", SERVER, MODEL],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            stack.callback(proc.wait, 10)
            assert proc.stdin is not None
            stack.callback(proc.stdin.close)
            assert proc.stdout is not None
            port = int(proc.stdout.readline())
            url = f"http://127.0.0.1:{port}"
            what = "instant server"
        rows = _rows(args, url, port)
    return _print(args, rows, what)


def _rows(args: argparse.Namespace, url: str, port: int) -> list[dict[str, Any]]:
    n, c, t = args.requests, args.concurrency, args.tokens
    rows = []
    raw_ttft, raw_e2e = raw_latency(port, n, t)
    rows.append(summary("raw socket (floor)", raw_ttft, raw_e2e, raw_rate(port, n, c, t)))
    ttft, e2e, rate = asyncio.run(_ours(url, n, c, t))
    rows.append(summary("evidencepack client", ttft, e2e, rate))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rows.append(measure_path(url, n, c, t, work))
        for name, exe, run in (
            ("guidellm", args.guidellm, guidellm),
            ("aiperf", args.aiperf, aiperf),
        ):
            if exe:
                try:
                    rows.append(run(exe, url, n, c, t, work))
                except (KeyError, IndexError, TypeError, ValueError) as exc:
                    rows.append({"client": name, "error": f"unexpected output: {exc!r}"})
            else:
                rows.append({"client": name, "error": "not installed"})
    return rows


def _print(args: argparse.Namespace, rows: list[dict[str, Any]], what: str) -> int:
    n, c, t = args.requests, args.concurrency, args.tokens
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{what} on 127.0.0.1, {t} tokens per request; latency: {n} sequential "
        f"requests; rate: {c} in flight"
    )
    print(
        f"{'client':34} {'TTFT p50':>9} {'TTFT p99':>9} {'e2e p50':>9} {'e2e p99':>9} {'req/s':>8}"
    )
    for row in rows:
        if "error" in row and "ttft_p50_ms" not in row:
            print(f"{row['client']:34} {row['error'][:200]!r}")
            continue

        def f(key: str, row: dict[str, Any] = row) -> str:
            value = row.get(key)
            return f"{value:9.3f}" if isinstance(value, int | float) else f"{'-':>9}"

        rate_text = f"{row['max_rate_rps']:8.0f}" if row.get("max_rate_rps") else f"{'-':>8}"
        print(
            f"{row['client']:34} {f('ttft_p50_ms')} {f('ttft_p99_ms')} {f('e2e_p50_ms')} "
            f"{f('e2e_p99_ms')} {rate_text}"
        )
        if "client_ttft_p50_ms" in row:
            print(
                f"{'  (its client, same requests)':34} {f('client_ttft_p50_ms')} "
                f"{f('client_ttft_p99_ms')}   queue p99 {row['queue_p99_ms']:.3f} ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
