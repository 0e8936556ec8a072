"""A race the collector must never lose: a file or folder of a cited run flipped by a thread
between the real thing and a link to an outside secret while the run is collected again and
again. Run as ``python -m tests.hostile.race SPEC MODE`` (the test runs it in a subprocess under
a memory and time limit); prints one JSON line: tries, secrets read, refusals, clean reads.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from evidencepack.intake.collect import Collector
from evidencepack.intake.snapshot import Snapshots
from evidencepack.spec.load import load_spec

CITED = "evidence/h200-vllm/runs/qps_2.0"
SECRET = b"SECRET-BYTES-FROM-OUTSIDE"
TRIES = 300
SECONDS = 60.0


def _flip_file(folder: Path, secret: Path, stash: Path, stop: threading.Event) -> None:
    """``folder/run.json`` swapped, atomically each time, between a regular file and a link."""
    target = folder / "run.json"
    inside = target.read_bytes()
    n = 0
    while not stop.is_set():
        n += 1
        link = stash / f"link-{n}"
        link.symlink_to(secret)
        os.replace(link, target)
        regular = stash / f"regular-{n}"
        regular.write_bytes(inside)
        os.replace(regular, target)


def _flip_folder(folder: Path, outside: Path, stash: Path, stop: threading.Event) -> None:
    """The cited folder itself swapped between the real one and a link to an outside one."""
    real = stash / "real"
    while not stop.is_set():
        os.replace(folder, real)
        link = stash / "link"
        link.symlink_to(outside, target_is_directory=True)
        os.replace(link, folder)
        os.replace(folder, stash / "gone")
        os.unlink(stash / "gone")
        os.replace(real, folder)


def main(spec_path: Path, mode: str) -> dict[str, int]:
    """Collect the cited run ``TRIES`` times (at most ``SECONDS``) while a thread flips it."""
    home = spec_path.parent.parent
    folder = spec_path.parent / CITED
    outside = home / "outside"
    outside.mkdir()
    for child in folder.iterdir():
        (outside / child.name).write_bytes(SECRET)
    stash = spec_path.parent / "stash"  # the same file system, outside the cited folder
    stash.mkdir()
    loaded = load_spec(spec_path)
    ref = next(r for _loc, _role, r in loaded.evidence_refs() if r.path == CITED)
    stop = threading.Event()
    flip = _flip_file if mode == "file" else _flip_folder
    flipper = threading.Thread(
        target=flip, args=(folder, outside / "run.json" if mode == "file" else outside, stash, stop)
    )
    counts = {"tries": 0, "secrets": 0, "refused": 0, "clean": 0}
    flipper.start()
    deadline = time.monotonic() + SECONDS
    try:
        with tempfile.TemporaryDirectory() as tmp:
            while counts["tries"] < TRIES and time.monotonic() < deadline:
                counts["tries"] += 1
                snapshots = Snapshots(Path(tmp) / str(counts["tries"]))
                collector = Collector(loaded, snapshots)
                found = collector.add_ref(ref, "runs", "h200-vllm")
                read = [collector.result.sources[f.pack_path].read_bytes() for f in found.files]
                if any(SECRET in data for data in read):
                    counts["secrets"] += 1
                elif found.problems:
                    counts["refused"] += 1
                else:
                    counts["clean"] += 1
    finally:
        stop.set()
        flipper.join()
    return counts


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2])))
