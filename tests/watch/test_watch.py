"""``evidencepack watch`` of the signed sample against loopback endpoints that serve the sample's
own latency model (samples/generate/simserver.py, the server its runs were measured on): one
as fast as the pack's candidate (holds), one that serves 30% fewer requests per second than the
decision's operating point X* needs (broken at X*), and one that disappears mid-run (could not
run)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_OK
from evidencepack.signing.keys import generate_keypair

from ..conftest import REPO_ROOT
from ..packs import SignedSample

# slow: each test measures loopback endpoints for seconds and renders a watch report
pytestmark = pytest.mark.slow

GENERATE = REPO_ROOT / "samples" / "generate"
CANDIDATE = "mi325x-vllm"  # the sample's chosen candidate
MODEL = "acme/contract-summariser-70b-fp8 (sample)"


@pytest.fixture(scope="module")
def generate() -> Iterator[tuple[ModuleType, ModuleType]]:
    """samples/generate's make_evidence and simserver, imported (not run)."""
    sys.path.insert(0, str(GENERATE))
    try:
        yield importlib.import_module("make_evidence"), importlib.import_module("simserver")
    finally:
        sys.path.remove(str(GENERATE))


@pytest.fixture(scope="module")
def prompts(
    generate: tuple[ModuleType, ModuleType], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    make_evidence, _ = generate
    path = tmp_path_factory.mktemp("watch") / "prompts.jsonl"
    make_evidence.write_prompts(path, make_evidence.read_dataset())
    return path


# At X* (1.98 requests/s, about 11.5 s a request) the chosen candidate keeps about 23 requests in
# flight; a replica that runs only 16 at once serves 30% fewer requests per second than that.
SLOTS_30_PERCENT_SHORT = 16


def _server(generate: tuple[ModuleType, ModuleType], *, slots: int | None = None) -> object:
    """One replica of the chosen candidate's simulated system, with ``slots`` sequences at once
    (default: the candidate's own, 40)."""
    make_evidence, simserver = generate
    capacity = make_evidence.SWEEPS[CANDIDATE].capacity
    if slots is not None:
        capacity = dataclasses.replace(capacity, slots=slots)
    inputs = {str(r["id"]): int(str(r["input_tokens"])) for r in make_evidence.read_dataset()}
    return simserver.SimServer(
        capacity, inputs, model=MODEL, runtime="vllm", version="0.9.2", seed=11
    )


def _watch(signed: SignedSample, url: str, prompts: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "watch",
            str(signed.archive),
            "--key",
            str(signed.pub),
            "--endpoint",
            url,
            "--prompts",
            str(prompts),
            "-o",
            str(out),
            *extra,
        ]
    )


def _pack_point(signed: SignedSample) -> dict[str, float]:
    decision = json.loads((signed.pack / "decision.json").read_text())
    capacity = next(c for c in decision["capacity"] if c["candidate"] == CANDIDATE)
    return next(p for p in capacity["load_points"] if p["run"] == capacity["operating_point_run"])


def test_watch_of_the_sample_holds_and_is_signed(
    signed_sample: SignedSample,
    generate: tuple[ModuleType, ModuleType],
    prompts: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = generate_keypair(tmp_path / "w.pem", tmp_path / "w.pub", None)
    out = tmp_path / "watch"
    with _server(generate) as server:
        code = _watch(
            signed_sample, server.url, prompts, out,
            "--duration", "25", "--as-of", "2026-12-04", "--sign-key", str(keys.private_key),
        )  # fmt: skip
    said = capsys.readouterr().out
    assert code == EXIT_OK, said
    assert said.startswith("contract-summariser-2026q4: HOLDS\n"), said
    report = json.loads((out / "watch.json").read_text())
    assert report["status"] == "holds"
    assert report["pack"]["candidate"] == CANDIDATE
    point = _pack_point(signed_sample)
    figures = {f["metric"]: f for f in report["figures"]}
    # The pack's own figures at X* stand beside the new ones, each under its limit.
    for metric in ("ttft_p99_ms", "tpot_p99_ms", "e2e_p99_ms"):
        assert figures[metric]["pack"] == point[metric]
        assert 0 < figures[metric]["measured"] <= figures[metric]["limit"]
        assert figures[metric]["status"] == "met"
    assert report["run"]["offered_rate_rps"] == report["pack"]["operating_point_rps"]
    assert report["run"]["requests_failed"] == 0
    assert report["findings"] == []
    # Every request of the new run is kept, and the watch is bound to the watched pack.
    assert (
        len((out / "run" / "requests.jsonl").read_text().splitlines())
        == (report["run"]["requests_ok"])
    )
    bundle = (out / "watched" / "pack.sigstore.json").read_bytes()
    assert bundle == (signed_sample.pack / "pack.sigstore.json").read_bytes()
    assert (out / "watch.pdf").read_bytes().startswith(b"%PDF-")
    assert "holds" in (out / "watch.md").read_text()
    # The signed statement verifies like a pack, and it says what the watch found.
    assert main(["verify", str(out), "--key", str(keys.public_key), "--json"]) == EXIT_OK
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] is True
    assert "holds as of 2026-12-04" in verified["decision"]["summary"]
    assert report["pack"]["evidence_digest"] in verified["decision"]["question"]
    # The same pack against the same endpoint, watched with another key: refused first.
    assert _watch(signed_sample, "http://127.0.0.1:9", prompts, tmp_path / "no", "--key",
                  str(keys.public_key)) == EXIT_FAILED  # fmt: skip
    assert not (tmp_path / "no").exists()


def test_a_slower_endpoint_breaks_the_decision_and_dates_lapse(
    signed_sample: SignedSample,
    generate: tuple[ModuleType, ModuleType],
    prompts: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "watch"
    with _server(generate, slots=SLOTS_30_PERCENT_SHORT) as server:
        code = _watch(
            signed_sample, server.url, prompts, out, "--duration", "25", "--as-of", "2027-03-01"
        )
    said = capsys.readouterr().out
    assert code == EXIT_FAILED, said
    assert said.startswith("contract-summariser-2026q4: BROKEN\n"), said
    report = json.loads((out / "watch.json").read_text())
    assert report["status"] == "broken"
    missed = [f for f in report["figures"] if f["status"] == "missed"]
    assert missed, report["figures"]
    ttft = next(f for f in report["figures"] if f["metric"] == "ttft_p99_ms")
    assert ttft["pack"] == _pack_point(signed_sample)["ttft_p99_ms"]
    assert ttft["measured"] > ttft["limit"] == 2000.0
    assert "missed at the operating point" in said
    # --as-of past the purchase quote's validity names it: the chosen candidate's is degraded.
    expired = [f for f in report["findings"] if f["kind"] == "price"]
    assert {(f["candidate"], f["effect"]) for f in expired} == {
        (CANDIDATE, "degraded"),
        ("b200-trtllm", "note"),
    }
    assert "valid until 2027-02-18; it has expired by 2027-03-01" in said


def test_an_endpoint_that_disappears_could_not_run(
    signed_sample: SignedSample,
    generate: tuple[ModuleType, ModuleType],
    prompts: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "watch"
    server = _server(generate)
    server.__enter__()
    stop = threading.Timer(3.0, server.__exit__, args=(None, None, None))
    stop.start()
    try:
        code = _watch(
            signed_sample, server.url, prompts, out, "--duration", "20", "--timeout-s", "8"
        )
    finally:
        stop.join()
    assert code == EXIT_COULD_NOT_RUN
    err = capsys.readouterr().err
    assert "cannot say whether the decision holds" in err, err
    assert not out.exists()
    # Nothing listening at all: could not run either, never "holds".
    assert _watch(signed_sample, "http://127.0.0.1:9", prompts, out) == EXIT_COULD_NOT_RUN
    assert not out.exists()
