"""``measure --api-key-env`` against the simulated hosted API (``samples/generate/simapi.py``):
the key is sent as ``Authorization: Bearer`` and never written anywhere; the API's 429 answers
are failed requests, counted (with the Retry-After values seen) in run.json."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.measure.options import MeasureOptions, from_spec
from evidencepack.spec.load import load_spec

from ..conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "samples" / "generate"))

from simapi import ApiProfile, SimApi  # noqa: E402

KEY = "sk-sample-7f3a9c1e5b2d4f6a8c0e"
MODEL = "example-ai/summarise-large (sample)"


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    path = tmp_path / "prompts.jsonl"
    rows = [{"prompt": f"summarise contract {i} [in=900]", "max_tokens": 6} for i in range(40)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def api() -> Iterator[SimApi]:
    # 120 requests per minute with a 5 s burst: 10 requests pass at once, 2 per second after.
    profile = ApiProfile(ttft_base_s=0.005, ttft_per_1k_input_s=0.0, tpot_s=0.001, sigma=0.0)
    with SimApi(
        profile,
        model=MODEL,
        provider="example-ai",
        requests_per_minute=120,
        burst_s=5,
        api_key=KEY,
        max_requests=200,
        max_seconds=60,
    ) as running:
        yield running


def _measure(api: SimApi, prompts: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "measure",
            "--endpoint",
            api.url,
            "--model",
            MODEL,
            "--prompts",
            str(prompts),
            "-o",
            str(out),
            "--target-qps",
            "10",
            "--ttft-ms",
            "1000",
            "--tpot-ms",
            "200",
            "--min-query-count",
            "40",
            "--min-duration-ms",
            "200",
            "--timeout-s",
            "5",
            *extra,
        ]
    )


def _everything(out: Path) -> str:
    return "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*") if p.is_file()
    )


def test_the_key_is_sent_from_the_environment_and_written_nowhere(
    api: SimApi,
    prompts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SAMPLE_API_KEY", KEY)
    out = tmp_path / "run"
    assert _measure(api, prompts, out, "--api-key-env", "SAMPLE_API_KEY") == 0
    seen = capsys.readouterr()
    # The server accepted the key (a wrong or missing one is answered 401): some succeeded.
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["requests"]["ok"] > 0
    assert record["request"]["api_key_env"] == "SAMPLE_API_KEY"
    assert record["request"]["api_key_sent"] is True
    assert KEY not in _everything(out)
    assert KEY not in seen.out + seen.err
    # Past the limit the API answered 429: failed requests, counted, Retry-After kept.
    counts = record["requests"]
    assert counts["rate_limited"] == api.limited > 0
    assert counts["failures"]["HTTP 429"] == api.limited
    assert counts["failed"] >= api.limited
    assert counts["retry_after_seen"]
    assert all(v.isdigit() for v in counts["retry_after_seen"])
    rows = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
    limited = [r for r in rows if r["http_status"] == 429]
    assert len(limited) == api.limited
    assert all(r["status"] == "failed" and r["retry_after"] for r in limited)
    # LoadGen's TPOT figures stay sound with requests that failed before a token.
    summary = (out / "mlperf_log_summary.txt").read_text(encoding="utf-8")
    minimum = next(line for line in summary.splitlines() if line.startswith("Min Time per Output"))
    assert int(minimum.rsplit(":", 1)[1]) >= 0
    # The reader says how many were rate limited.
    capsys.readouterr()
    assert main(["inspect", "--json", str(out / "mlperf_log_detail.txt")]) == 0
    (run,) = json.loads(capsys.readouterr().out)[0]["runs"]
    assert any(
        f"{api.limited} request(s) were rate limited (HTTP 429" in w for w in run["warnings"]
    )


def test_without_the_key_every_request_fails_and_no_key_is_written(
    api: SimApi,
    prompts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SAMPLE_API_KEY", raising=False)
    out = tmp_path / "run"
    assert _measure(api, prompts, out, "--api-key-env", "SAMPLE_API_KEY") == 0
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["request"]["api_key_sent"] is False
    assert record["requests"]["ok"] == 0
    assert record["requests"]["failures"] == {"HTTP 401": 40}


def test_the_key_is_never_an_argument(capsys: pytest.CaptureFixture[str]) -> None:
    """measure names the variable that holds the key, and has no option taking the key."""
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    text = capsys.readouterr().out
    assert "--api-key-env VAR" in text
    assert not [w for w in text.split() if w.startswith("--api-key") and w != "--api-key-env"]


def test_measure_from_an_api_candidate_names_the_api_model(tmp_path: Path) -> None:
    loaded = load_spec(REPO_ROOT / "samples" / "pack-api.yaml")
    base = MeasureOptions(
        endpoint="http://127.0.0.1:1", model=None, prompts=tmp_path, outdir=tmp_path
    )
    filled = from_spec(base, loaded, "hosted-api")
    assert filled.model == MODEL
    assert filled.tokenizer is None  # the envelope's tokenizer is not the API model's
    assert from_spec(base, loaded, "mi325x-vllm").model == loaded.spec.envelope.model.name
