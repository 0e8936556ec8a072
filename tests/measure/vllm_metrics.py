"""A loopback ``/metrics`` endpoint in vLLM's Prometheus exposition, fed by the test server.

vLLM (0.6 to 0.11) exposes, among others: ``vllm:request_success_total`` (a counter labelled by
``finished_reason`` and ``model_name``), ``vllm:prompt_tokens_total``,
``vllm:generation_tokens_total``, the histograms ``vllm:time_to_first_token_seconds`` and
``vllm:e2e_request_latency_seconds`` with its documented buckets, and the gauges
``vllm:num_requests_running`` and ``vllm:num_requests_waiting``. Here every completion the
``OpenAIServer`` served counts as one finished request of ``max_tokens`` tokens whose first
token came after the server's ``ttft_s``, as vLLM would count it.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .openai_server import MODEL, OpenAIServer

TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0)
E2E_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0)
_LABELS = f'model_name="{MODEL}"'


def _histogram(name: str, help_text: str, buckets: tuple[float, ...], n: int, value: float) -> str:
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
    lines += [
        f'{name}_bucket{{le="{bound}",{_LABELS}}} {float(n if value <= bound else 0)}'
        for bound in buckets
    ]
    lines.append(f'{name}_bucket{{le="+Inf",{_LABELS}}} {float(n)}')
    lines.append(f"{name}_count{{{_LABELS}}} {float(n)}")
    lines.append(f"{name}_sum{{{_LABELS}}} {n * value}")
    return "\n".join(lines)


def exposition(served: int, *, tokens: int, ttft_s: float, base: int = 1000) -> str:
    """The metrics text after ``served`` completions of ``tokens`` tokens (``base`` earlier)."""
    n = base + served
    return "\n".join(
        [
            "# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            f"vllm:num_requests_running{{{_LABELS}}} 0.0",
            "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
            "# TYPE vllm:num_requests_waiting gauge",
            f"vllm:num_requests_waiting{{{_LABELS}}} 0.0",
            "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.",
            "# TYPE vllm:prompt_tokens_total counter",
            f"vllm:prompt_tokens_total{{{_LABELS}}} {float(n * 9)}",
            "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
            "# TYPE vllm:generation_tokens_total counter",
            f"vllm:generation_tokens_total{{{_LABELS}}} {float(n * tokens)}",
            "# HELP vllm:request_success_total Count of successfully processed requests.",
            "# TYPE vllm:request_success_total counter",
            f'vllm:request_success_total{{finished_reason="length",{_LABELS}}} {float(n)}',
            f'vllm:request_success_total{{finished_reason="stop",{_LABELS}}} 7.0',
            _histogram(
                "vllm:time_to_first_token_seconds",
                "Histogram of time to first token in seconds.",
                TTFT_BUCKETS,
                n,
                ttft_s,
            ),
            _histogram(
                "vllm:e2e_request_latency_seconds",
                "Histogram of end to end request latency in seconds.",
                E2E_BUCKETS,
                n,
                ttft_s * 2,
            ),
            "",
        ]
    )


class VllmMetrics:
    """``with VllmMetrics(server, tokens=4) as metrics: metrics.url`` (``/metrics``)."""

    def __init__(self, server: OpenAIServer, *, tokens: int) -> None:
        self.server = server
        self.tokens = tokens
        self.scrapes = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_GET(self) -> None:
                outer.scrapes += 1
                body = exposition(
                    outer.server.requests, tokens=outer.tokens, ttft_s=outer.server.ttft_s
                ).encode()
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/metrics"

    def __enter__(self) -> VllmMetrics:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
