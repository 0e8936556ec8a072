"""A signed watch of the signed sample, made once per run (tests/run_once.py): ``evidencepack
watch`` against a loopback endpoint (127.0.0.1) that serves the sample's latency model with 30%
fewer requests per second than the decision's operating point needs (tests/watch/test_watch.py's
slow server), so the decision is broken; signed with the sample's own key. Read only: copy it to
change it.

The watch measures in real time (a 25 s run, then the requests in flight drain: about 45 s in
which this process mostly waits), so ``broken_watch_started`` starts it in a background thread
as soon as the signed sample exists, and ``broken_watch`` waits for it. When a test of the
session needs it, it starts at the session's first test (``_broken_watch_early``), and the tests
before the first that needs it run while the endpoint is measured. The watch is the same either
way: the same pack, endpoint, prompts, duration and date. It runs through the API, not the CLI
(tests/watch/test_watch.py tests the CLI), so the thread prints nothing into another test's
captured output; tests/pdf_cache.py renders its PDF as for an unmarked test, one render at a
time.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from evidencepack.api.options import VerifyPolicy, WatchOptions
from evidencepack.api.watching import watch
from evidencepack.signing.sign import sign_pack_detailed

from .packs import SignedSample, _assert_unchanged, _tree_digests
from .run_once import made_once, run_folder

BROKEN_AS_OF = "2027-03-01"
"""The broken watch's --as-of: past the chosen candidate's quote validity (2027-02-18)."""


def _broken(signed_sample: SignedSample, folder: Path) -> Path:
    """Watch the signed sample against the 30% slower endpoint into ``folder/watch``; sign it."""
    import datetime as dt

    from .watch.test_watch import GENERATE, SLOTS_30_PERCENT_SHORT, _server

    sys.path.insert(0, str(GENERATE))
    try:
        generate = importlib.import_module("make_evidence"), importlib.import_module("simserver")
    finally:
        sys.path.remove(str(GENERATE))
    prompts = folder / "prompts.jsonl"
    generate[0].write_prompts(prompts, generate[0].read_dataset())
    out = folder / "watch"
    with _server(generate, slots=SLOTS_30_PERCENT_SHORT) as server:
        options = WatchOptions(
            endpoint=server.url,
            prompts=prompts,
            out=out,
            policy=VerifyPolicy(key=signed_sample.pub),
            as_of=dt.date.fromisoformat(BROKEN_AS_OF),
            duration_s=25,
        )
        result = watch(signed_sample.archive, options)
    assert result.report.status == "broken", result.report
    sign_pack_detailed(out, None, signed_sample.signer())
    return out


def _made_once(signed_sample: SignedSample, folder: Path) -> Path:
    """The broken watch in ``folder``: made here, or by another worker (tests/run_once.py)."""
    with made_once("broken-watch", folder) as make:
        if make:
            folder.mkdir(parents=True, exist_ok=True)
            return _broken(signed_sample, folder)
    return folder / "watch"


@pytest.fixture(scope="session")
def broken_watch_started(
    signed_sample: SignedSample, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Future[Path]]:
    """The broken watch being made in a background thread (``broken_watch`` waits for it)."""
    folder = run_folder("broken-watch", tmp_path_factory)
    pool = ThreadPoolExecutor(1, thread_name_prefix="broken-watch")
    try:
        yield pool.submit(_made_once, signed_sample, folder)
    finally:
        pool.shutdown(wait=True)  # never a measurement left running after the session


@pytest.fixture(scope="session", autouse=True)
def _broken_watch_early(request: pytest.FixtureRequest) -> None:
    """Start the broken watch at the session's first test if any test of the session needs it."""
    if any("broken_watch" in getattr(item, "fixturenames", ()) for item in request.session.items):
        request.getfixturevalue("broken_watch_started")


@pytest.fixture(scope="session")
def broken_watch(broken_watch_started: Future[Path]) -> Iterator[Path]:
    """The watch folder of the signed sample against a 30% slower endpoint: broken, signed."""
    out = broken_watch_started.result()
    before = _tree_digests(out)
    yield out
    _assert_unchanged(out, before)
