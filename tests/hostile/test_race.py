"""Open once, by handle (issue 23, item 3): a race never packs an outside file.

A thread flips a file of a cited run folder between a regular file and a link to an outside
secret, or the cited folder itself between the real one and a link to an outside folder, while
the run is collected again and again (``tests/hostile/race.py``, in a subprocess under a memory
and time limit). The old code read the secret after a handful of tries.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evidencepack.intake.collect import Collector
from evidencepack.intake.snapshot import Snapshots
from evidencepack.spec.load import load_spec

from .harness import run
from .race import CITED


@pytest.mark.parametrize("mode", ["file", "folder"])
def test_a_flipping_link_never_packs_outside_bytes(samples: Path, mode: str) -> None:
    ran = run([str(samples / "pack.yaml"), mode], module="tests.hostile.race")
    assert ran.code == 0, ran.err
    counts = json.loads(ran.out)
    assert counts["secrets"] == 0, counts
    assert counts["tries"] >= 20, counts  # the race really ran ...
    assert counts["refused"] > 0, counts  # ... and the flips were seen and refused


def test_a_hard_link_in_a_cited_folder_is_named(samples: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"changed": "through another name"}')
    os.link(outside, samples / CITED / "extra.json")
    loaded = load_spec(samples / "pack.yaml")
    ref = next(r for _loc, _role, r in loaded.evidence_refs() if r.path == CITED)
    found = Collector(loaded, Snapshots(tmp_path / "snapshots")).add_ref(ref, "runs", "h200-vllm")
    assert [p.reason.split(":")[0] for p in found.hard_links] == [f"{CITED}/extra.json"]
    assert "hard link (2 names)" in found.hard_links[0].reason
    assert found.hard_links[0].file is not None
    assert not found.problems
