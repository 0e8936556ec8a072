"""``measure --server-metrics``: the engine's own Prometheus counts, stored and cross-checked.

A loopback endpoint serves metrics in vLLM's exposition format, counting what the test server
really served; the scraped deltas are stored in ``server-metrics.json`` and agree with the
client's rows, and a doctored delta fails the cross-check: a warning in ``inspect`` and a
PROV-DATA failure in ``check`` naming both files.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from evidencepack._cli import main
from evidencepack.measure.server_metrics import parse_exposition
from evidencepack.readers.formats.measure_server_metrics import (
    ClientView,
    cross_check,
    read_server_metrics,
)

from ..conftest import REPO_ROOT
from .openai_server import MODEL, OpenAIServer
from .vllm_metrics import VllmMetrics

TOKENS = 4


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(ttft_s=0.004, tpot_s=0.001) as running:
        yield running


@pytest.fixture(scope="module")
def measured(server: OpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("server-metrics")
    prompts = work / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": "clause " * 1800}) + "\n" for _ in range(8)))
    out = work / "qps_50"
    with VllmMetrics(server, tokens=TOKENS) as metrics:
        args = ["measure", "--endpoint", server.url, "--prompts", str(prompts), "-o", str(out)]
        args += ["--spec", str(REPO_ROOT / "samples" / "pack.yaml"), "--candidate", "h200-vllm"]
        args += ["--target-qps", "50", "--min-duration-ms", "300", "--min-query-count", "40"]
        args += ["--max-tokens", str(TOKENS), "--server-metrics", metrics.url]
        assert main(args) == 0
        assert metrics.scrapes == 3  # checked once by measure, then before and after the run
    return out


def test_an_unreadable_metrics_endpoint_stops_measure_before_the_run(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"prompt": "hello"}) + "\n")
    args = ["measure", "--endpoint", server.url, "--model", MODEL, "--prompts", str(prompts)]
    args += ["--scenario", "offline", "-o", str(tmp_path / "run")]
    # The test server answers /metrics with 404.
    assert main([*args, "--server-metrics", server.url + "/metrics"]) == 3
    assert "--server-metrics http://127.0.0.1:" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    assert main([*args, "--server-metrics", "ftp://127.0.0.1/metrics"]) == 2


def _rows(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]


def _series(doc: dict, name: str, **labels: str) -> dict:  # type: ignore[type-arg]
    return next(
        s for s in doc["series"] if s["name"] == name and labels.items() <= s["labels"].items()
    )


def test_the_exposition_format_is_parsed() -> None:
    text = (
        "# HELP x_total a counter\n# TYPE x_total counter\n"
        'x_total{path="/v1/a\\"b\\\\c",code="200"} 3 1700000000000\n'
        "# TYPE lat_seconds histogram\n"
        'lat_seconds_bucket{le="+Inf"} 2\nlat_seconds_sum 0.5\nup 1\nweird NaN\n'
    )
    samples = parse_exposition(text)
    assert [(s.name, s.type) for s in samples] == [
        ("x_total", "counter"),
        ("lat_seconds_bucket", "histogram"),
        ("lat_seconds_sum", "histogram"),
        ("up", "untyped"),
        ("weird", "untyped"),
    ]
    assert samples[0].labels == (("code", "200"), ("path", '/v1/a"b\\c'))
    assert samples[0].value == 3
    assert math.isnan(samples[-1].value)
    with pytest.raises(ValueError, match="line 2: not a sample"):
        parse_exposition("ok 1\nthis is not { a sample\n")


def test_the_deltas_are_stored_and_agree_with_the_client(
    measured: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(measured)
    served = len(rows)
    assert all(r["status"] == "ok" for r in rows)
    doc = json.loads((measured / "server-metrics.json").read_text())
    schema = json.loads(
        (REPO_ROOT / "schemas" / "measure-server-metrics.v1.schema.json").read_text()
    )
    jsonschema.validate(doc, schema)
    assert doc["engine"] == "vllm"
    assert json.loads((measured / "run.json").read_text())["server_metrics"] == {
        "url": doc["url"],
        "file": "server-metrics.json",
        "error": None,
        "engine": "vllm",
    }
    success = _series(doc, "vllm:request_success_total", finished_reason="length")
    assert (success["before"], success["after"], success["delta"]) == (1000, 1000 + served, served)
    assert _series(doc, "vllm:request_success_total", finished_reason="stop")["delta"] == 0
    assert _series(doc, "vllm:generation_tokens_total")["delta"] == served * TOKENS
    # The server's first tokens came after 4 ms: all in the 1-5 ms bucket and above.
    ttft = "vllm:time_to_first_token_seconds_bucket"
    assert _series(doc, ttft, le="0.001")["delta"] == 0
    assert _series(doc, ttft, le="0.005")["delta"] == served
    assert _series(doc, ttft, le="+Inf")["delta"] == served
    running = _series(doc, "vllm:num_requests_running")
    assert (running["type"], running["delta"]) == ("gauge", None)
    capsys.readouterr()
    assert main(["inspect", "--json", str(measured / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert (
        "the engine's own metrics (vllm, server-metrics.json) agree on the finished requests, "
        "output tokens, TTFT median" in run["warnings"]
    )


def _doctored(measured: Path, target: Path, name: str, factor: float, **labels: str) -> Path:
    shutil.copytree(measured, target)
    path = target / "server-metrics.json"
    doc = json.loads(path.read_text())
    for series in doc["series"]:
        if series["name"] == name and labels.items() <= series["labels"].items():
            series["delta"] = series["delta"] * factor
    path.write_text(json.dumps(doc, indent=2))
    return target


def test_a_doctored_delta_fails_the_cross_check(
    measured: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    halved = _doctored(measured, tmp_path / "halved", "vllm:generation_tokens_total", 0.5)
    capsys.readouterr()
    assert main(["inspect", "--json", str(halved / "requests.jsonl")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    (warning,) = [w for w in run["warnings"] if "disagrees" in w]
    served = run["requests_completed"]
    assert warning == (
        "server-metrics.json disagrees with requests.jsonl on the output tokens: the server "
        f"generated {served * TOKENS // 2} tokens (vllm:generation_tokens_total), the client "
        f"counted {served * TOKENS} (tolerance +-16)"
    )
    # Every first token moved to the 100-250 ms bucket: the server's median is not the client's.
    doc = read_server_metrics(measured / "server-metrics.json")
    client = ClientView(ok=served, failed=0, output_tokens=served * TOKENS, ttft_p50_ms=5.0)
    assert [c.figure for c in cross_check(doc, client) if c.agrees] == [
        "finished requests",
        "output tokens",
        "TTFT median",
    ]
    slow = tmp_path / "slow"
    shutil.copytree(measured, slow)
    raw = json.loads((slow / "server-metrics.json").read_text())
    for series in raw["series"]:
        le = series["labels"].get("le")
        if series["name"] == "vllm:time_to_first_token_seconds_bucket" and le != "+Inf":
            series["delta"] = 0.0 if float(le) < 0.25 else series["delta"]
    (slow / "server-metrics.json").write_text(json.dumps(raw))
    checked = cross_check(read_server_metrics(slow / "server-metrics.json"), client)
    (ttft,) = [c for c in checked if not c.agrees]
    assert ttft.figure == "TTFT median"
    assert "bucket 100-250 ms" in ttft.detail


@pytest.mark.parametrize("doctored", [True, False])
def test_check_fails_prov_data_on_a_doctored_delta(
    measured: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], doctored: bool
) -> None:
    samples = tmp_path / "samples"
    shutil.copytree(REPO_ROOT / "samples", samples, ignore=shutil.ignore_patterns("generate"))
    folder = samples / "evidence" / "h200-vllm" / "measured" / "qps_50"
    factor = 3 if doctored else 1
    _doctored(measured, folder, "vllm:request_success_total", factor, finished_reason="length")
    spec = samples / "pack.yaml"
    text = spec.read_text()
    old_runs = "".join(
        f"        - path: evidence/h200-vllm/runs/qps_{q}\n"
        for q in ("2.0", "3.0", "3.5", "4.0", "5.5")
    )
    assert old_runs in text
    text = text.replace(old_runs, "        - path: evidence/h200-vllm/measured/qps_50\n")
    text = text.replace("  date: 2026-11-30\n", f"  date: {dt.date.today().isoformat()}\n")
    text = text.replace("headroom: 0.25\n", "headroom: 0.25\nfit: {token_tolerance: 1.0}\n")
    spec.write_text(text)
    capsys.readouterr()
    assert main(["check", "--json", str(spec)]) in (0, 1)
    decision = json.loads(capsys.readouterr().out)
    findings = [f for f in decision["findings"] if "engine's metrics" in f["detail"]]
    if not doctored:
        # The same run with its scraped deltas as they were: the engine agrees with the client.
        assert findings == [], [f["detail"] for f in findings]
        return
    assert findings == [
        {
            "candidate": "h200-vllm",
            "check": "PROV-DATA",
            "detail": (
                "the engine's metrics disagree with the client on the finished requests: the "
                "server counted 120 finished requests (vllm:request_success_total), the client "
                "40 successful of 40 sent (tolerance +-1) (files "
                "evidence/h200-vllm/measured/qps_50/server-metrics.json and "
                "evidence/h200-vllm/measured/qps_50/requests.jsonl)"
            ),
            "evidence": [
                {
                    "file_sha256": findings[0]["evidence"][0]["file_sha256"],
                    "pack_path": "inputs/evidence/h200-vllm/measured/qps_50/server-metrics.json",
                    "row": "evidence/h200-vllm/measured/qps_50",
                }
            ],
            "figure": "finished requests",
            "kind": "summary-disagrees",
            "model": MODEL,
            "severity": "FAIL",
            "subject": "evidence/h200-vllm/measured/qps_50",
        }
    ]
    prov = next(
        c for c in decision["checks"] if c["candidate"] == "h200-vllm" and c["id"] == "PROV-DATA"
    )
    assert prov["status"] == "FAIL"
    assert "the server counted 120 finished requests" in prov["reason"]
