"""A signed watch of the signed sample, made once per session: ``evidencepack watch`` against a
loopback endpoint (127.0.0.1) that serves the sample's latency model with 30% fewer requests per
second than the decision's operating point needs (tests/watch/test_watch.py's slow server), so
the decision is broken; signed with the sample's own key. Read only: copy it to change it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_FAILED
from evidencepack.signing.sign import sign_pack_detailed

from .packs import SignedSample, _assert_unchanged, _tree_digests

BROKEN_AS_OF = "2027-03-01"
"""The broken watch's --as-of: past the chosen candidate's quote validity (2027-02-18)."""


@pytest.fixture(scope="session")
def broken_watch(
    signed_sample: SignedSample, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The watch folder of the signed sample against a 30% slower endpoint: broken, signed."""
    from .watch.test_watch import GENERATE, SLOTS_30_PERCENT_SHORT, _server

    sys.path.insert(0, str(GENERATE))
    try:
        generate = importlib.import_module("make_evidence"), importlib.import_module("simserver")
    finally:
        sys.path.remove(str(GENERATE))
    folder = tmp_path_factory.mktemp("broken-watch")
    prompts = folder / "prompts.jsonl"
    generate[0].write_prompts(prompts, generate[0].read_dataset())
    out = folder / "watch"
    with _server(generate, slots=SLOTS_30_PERCENT_SHORT) as server:
        code = main(
            [
                "watch", str(signed_sample.archive), "--key", str(signed_sample.pub),
                "--endpoint", server.url, "--prompts", str(prompts), "-o", str(out),
                "--duration", "25", "--as-of", BROKEN_AS_OF,
            ]
        )  # fmt: skip
    assert code == EXIT_FAILED
    sign_pack_detailed(out, None, signed_sample.signer())
    before = _tree_digests(out)
    yield out
    _assert_unchanged(out, before)
