"""A valid pack spec with N candidates, derived from the sample's own evidence (scale figures).

    python benchmarks/many_candidates.py 100 DIR     # writes DIR/pack.yaml and DIR/evidence/

Candidate ``i`` is a copy of sample candidate ``i % 3`` (hardware, stack, cost bases, declared
conditions, MLPerf reference) with its own id and price: the base rate is stepped by 1% per copy,
so every candidate ranks at its own place and the decision is not a tie. Each copy cites its own
copy of the sample candidate's run folders and score set under ``DIR/evidence/ID/`` (the files
are the sample's bytes: a run's figures are real measurements of the sample's tool, and each
candidate's evidence is packed and hashed like a distinct set of files); the dataset and the
MLPerf results folder are shared, as in the sample. Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "pack.yaml"


def _copy_evidence(source: Path, target: Path, ref_path: str, serial: int) -> str:
    """Copy the sample file or folder ``ref_path`` (relative to the sample) under ``target``."""
    origin = source / ref_path
    parts = Path(ref_path).parts  # evidence/<candidate>/<rest>
    relative = Path(*parts[2:])
    destination = target / relative
    files = sorted(origin.rglob("*")) if origin.is_dir() else [origin]
    for file in files:
        if file.is_file():
            copied = destination / file.relative_to(origin) if origin.is_dir() else destination
            copied.parent.mkdir(parents=True, exist_ok=True)
            copied.write_bytes(_distinct(file.read_bytes(), serial))
    return str(destination.relative_to(target.parent.parent))


def _distinct(data: bytes, serial: int) -> bytes:
    """The same content with ``serial`` spaces closing its first line: bytes of their own.

    evidencepack refuses the same bytes cited for two candidates (one file cannot describe two
    configurations); trailing blanks on a line change no parsed value of JSON, JSON lines,
    MLPerf's ``:::MLLOG`` detail log or its summary's banner line."""
    head, newline, rest = data.partition(b"\n")
    return head + b" " * serial + newline + rest


def make_spec(candidates: int, out: Path) -> Path:
    """Write ``out/pack.yaml`` with ``candidates`` candidates and their evidence; its path."""
    if candidates < 1:
        raise ValueError("at least one candidate")
    spec: dict[str, Any] = yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))
    sample_root = SAMPLE.parent
    out.mkdir(parents=True, exist_ok=True)
    for shared in ("evidence/dataset", "evidence/mlperf"):
        if not (out / shared).exists():
            shutil.copytree(sample_root / shared, out / shared)
    bases = spec["candidates"]
    made = []
    for i in range(candidates):
        base = bases[i % len(bases)]
        cand = copy.deepcopy(base)
        cid = f"{base['id']}-{i + 1:03d}"
        cand["id"] = cid
        cand["description"] = f"{base['description']} (copy {i + 1} of the sample's {base['id']})"
        step = 1 + 0.01 * (i // len(bases))
        cand["price"]["per_accelerator_hour"] = round(
            base["price"]["per_accelerator_hour"] * step, 4
        )
        target = out / "evidence" / cid
        evidence = cand["evidence"]
        for kind in ("runs", "scores"):
            for ref in evidence.get(kind, []):
                ref["path"] = _copy_evidence(sample_root, target, ref["path"], i + 1)
                if "sha256" in ref:  # the copy's own digest, as its author would pin it
                    ref["sha256"] = hashlib.sha256((out / ref["path"]).read_bytes()).hexdigest()
        made.append(cand)
    spec["candidates"] = made
    # the sample's chosen candidate (mi325x-vllm) is the second base; its first copy stays chosen
    chosen = spec.get("chosen")
    spec["chosen"] = next(
        (c["id"] for c in made if c["id"].startswith(f"{chosen}-")), made[0]["id"]
    )
    path = out / "pack.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", type=int)
    parser.add_argument("out", type=Path, help="an empty or new folder (outside the repository)")
    args = parser.parse_args()
    print(make_spec(args.candidates, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
