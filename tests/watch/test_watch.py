"""``evidencepack watch`` of the signed sample against loopback endpoints that serve the sample's
own latency model (samples/generate/simserver.py, the server its runs were measured on): one
as fast as the pack's candidate (holds), one that serves 30% fewer requests per second than the
decision's operating point X* needs (broken at X*), and one that disappears mid-run (could not
run).

Each watch spends most of a minute waiting on the clock, so the ones the session's tests read
(their ``watches`` marker) are started together at the session's first test, each in its own
child process against its own server thread on 127.0.0.1, made once per test run
(tests/watches.py), and this module runs last (tests/ordering.py); each test asserts on its
own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_OK

from ..packs import SignedSample
from ..watches import CANDIDATE, WatchRuns

# slow: the watches measure loopback endpoints for 20-25 s and render a watch report
pytestmark = pytest.mark.slow


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


@pytest.mark.watches("holds")
def test_watch_of_the_sample_holds_and_is_signed(
    signed_sample: SignedSample,
    watch_runs: WatchRuns,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    watched = watch_runs.finished("holds")  # --duration 25 --as-of 2026-12-04, --sign-key
    assert watched.keys is not None
    _, public_key = watched.keys
    out, said = watched.folder, watched.out
    assert watched.code == EXIT_OK, said + watched.err
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
    assert main(["verify", str(out), "--key", str(public_key), "--json"]) == EXIT_OK
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] is True
    assert "holds as of 2026-12-04" in verified["decision"]["summary"]
    assert report["pack"]["evidence_digest"] in verified["decision"]["question"]
    # The same pack against the same endpoint, watched with another key: refused first.
    assert _watch(signed_sample, "http://127.0.0.1:9", watch_runs.prompts, tmp_path / "no",
                  "--key", str(public_key)) == EXIT_FAILED  # fmt: skip
    assert not (tmp_path / "no").exists()


@pytest.mark.watches("broken")
def test_a_slower_endpoint_breaks_the_decision_and_dates_lapse(
    signed_sample: SignedSample, watch_runs: WatchRuns
) -> None:
    watched = watch_runs.finished("broken")  # 16 slots, --duration 25 --as-of 2027-03-01
    said = watched.out
    assert watched.code == EXIT_FAILED, said + watched.err
    assert said.startswith("contract-summariser-2026q4: BROKEN\n"), said
    report = json.loads((watched.folder / "watch.json").read_text())
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


@pytest.mark.watches("gone", "unreachable")
def test_an_endpoint_that_disappears_could_not_run(watch_runs: WatchRuns) -> None:
    # The endpoint stops 3 s into the run (--duration 20 --timeout-s 8).
    gone = watch_runs.finished("gone")
    assert gone.code == EXIT_COULD_NOT_RUN, gone.err
    assert "cannot say whether the decision holds" in gone.err, gone.err
    assert not gone.folder.exists()
    # Nothing listening at all: could not run either, never "holds".
    unreachable = watch_runs.finished("unreachable")
    assert unreachable.code == EXIT_COULD_NOT_RUN, unreachable.err
    assert not unreachable.folder.exists()
