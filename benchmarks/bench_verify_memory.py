"""Peak memory of ``verify`` of a pack of many small files, beside hashlib reading the same files.

Generates a pack of ``--files`` tiny files (90,000 by default, 64-192 bytes each, 1,000 per
folder; seeded) into ``benchmarks/.cache/`` once and signs it with a key kept beside it. Then,
paired and alternated, each a fresh process: ``evidencepack verify PACK --key PUB`` against a
Python process that walks the same folder (``os.walk``) and streams every file through
``hashlib.sha256``. Prints the medians of peak RSS (from ``wait4``) and CPU time, and the memory
held per file over the floor. The goal is memory bounded whatever the file count: at most
256 MiB at 1M files. A pack over about 90,000 files has a bundle over 16 MiB (the signed
statement names every file, about 170 bytes each in the bundle), which ``verify`` streams
(``signing/stream_verify.py``: the statement is never held, the pack walked a folder at a time),
so ``--files 1000000`` measures the streamed path; put its 4 GB of files in /tmp with
``EVIDENCEPACK_BENCH_CACHE=/tmp/evidencepack-bench`` (generating and signing take minutes).
Beside them, the floor of any verifier that reads the signed statement whole (as DSSE and the
Sigstore client do): load the bundle, base64-decode the payload, ``json.loads`` it into a
name -> digest dict, then walk and hash (its peak is printed, and its ratio kept as
``statement_floor_ratio``).

    python benchmarks/bench_verify_memory.py [--quick] [--files 90000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import CACHE, REPO, RESULT_PREFIX, paired, timed_process

GOAL_MIB = 256.0
FLOOR = """
import hashlib, os, sys
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        digest = hashlib.sha256()
        with open(os.path.join(root, name), "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        digest.hexdigest()
"""
STATEMENT_FLOOR = """
import base64, hashlib, json, os, sys
with open(os.path.join(sys.argv[1], "pack.sigstore.json"), "rb") as handle:
    payload = base64.b64decode(json.load(handle)["dsseEnvelope"]["payload"])
expected = {s["name"]: s["digest"]["sha256"] for s in json.loads(payload)["subject"]}
del payload
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        path = os.path.join(root, name)
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        expected.pop(os.path.relpath(path, sys.argv[1]), None)
"""


def generate(folder: Path, files: int, seed: int = 29) -> None:
    """``files`` small distinct files under ``folder/inputs/runsNNNN/``."""
    rng = random.Random(seed)
    block = rng.randbytes(256)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for i in range(files):
        sub = tmp / "inputs" / f"runs{i // 1000:04d}"
        if i % 1000 == 0:
            sub.mkdir(parents=True)
        (sub / f"r{i:07d}.json").write_bytes(b"%d\n" % i + block[: rng.randint(64, 192)])
    (tmp / "inputs" / "pack.yaml").write_text("apiVersion: evidencepack/v1\n")
    tmp.rename(folder)


def signed_pack(files: int) -> tuple[Path, Path]:
    """The pack of ``files`` files, signed once; and its public key's PEM file."""
    from bench_verify import predicate
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from evidencepack.pack.predicate import write_predicate
    from evidencepack.signing.keyed import KeySigner
    from evidencepack.signing.sign import sign_pack_detailed

    folder = CACHE / f"verify-memory-{files}"
    public = CACHE / f"verify-memory-{files}.pub.pem"
    if folder.exists() and public.exists():
        return folder, public
    shutil.rmtree(folder, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    generate(folder, files)
    write_predicate(folder, predicate(folder))
    key = ec.generate_private_key(ec.SECP256R1())
    sign_pack_detailed(folder, None, KeySigner(key), force=True)
    pem = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    public.write_bytes(pem)
    print(f"generated and signed {folder.name} in {time.perf_counter() - began:.0f} s")
    return folder, public


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 files, 3 pairs")
    parser.add_argument("--files", type=int, default=90_000, help="files in the pack")
    parser.add_argument("--repeat", type=int, default=3, help="paired runs (median kept)")
    parser.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    files = 5_000 if args.quick else args.files
    if args.prepare:
        signed_pack(files)
        return 0
    # A child's peak RSS counts the parent's pages it was forked with: this process stays small
    # (generating and signing run in a child of their own).
    prepare = [sys.executable, __file__, "--prepare", "--files", str(files)]
    subprocess.run(prepare, check=True)
    folder = CACHE / f"verify-memory-{files}"
    public = CACHE / f"verify-memory-{files}.pub.pem"
    python = sys.executable
    ours_argv = [python, "-m", "evidencepack", "verify", str(folder), "--key", str(public)]
    floor_argv = [python, "-c", FLOOR, str(folder)]
    result = paired(
        lambda: timed_process(ours_argv, cwd=REPO),
        lambda: timed_process(floor_argv, cwd=REPO),
        args.repeat,
        warm_up=not args.quick,
    )
    statement = [
        timed_process([python, "-c", STATEMENT_FLOOR, str(folder)], cwd=REPO).peak_mib
        for _ in range(args.repeat)
    ]
    statement_mib = sorted(statement)[len(statement) // 2]
    ours, floor = result.ours, result.floor
    per_file_kib = (ours.peak_mib - floor.peak_mib) * 1024 / files
    ratio = ours.peak_mib / floor.peak_mib
    print(f"medians of {result.runs} paired runs (order alternated), {files} files:")
    print(f"  verify          peak {ours.peak_mib:8.1f} MiB   cpu {ours.cpu_s:7.2f} s")
    print(f"  hashlib walk    peak {floor.peak_mib:8.1f} MiB   cpu {floor.cpu_s:7.2f} s")
    print(f"  statement floor peak {statement_mib:8.1f} MiB (bundle + payload + json.loads + walk)")
    print(
        f"  (peak - floor) / files: {per_file_kib:.2f} KiB (with fixed costs); ratio {ratio:.2f}x"
    )
    line = {
        "id": "verify-memory",
        "row": f"verify peak memory, {files:,} files",
        "ours": "evidencepack verify --key (a process)",
        "floor": "os.walk + hashlib (a process)",
        "clock": "memory",
        "ours_mib": round(ours.peak_mib, 1),
        "floor_mib": round(floor.peak_mib, 1),
        "ours_cpu_s": round(ours.cpu_s, 4),
        "floor_cpu_s": round(floor.cpu_s, 4),
        "ours_wall_s": round(ours.wall_s, 4),
        "floor_wall_s": round(floor.wall_s, 4),
        "cpu_ratio": round(result.cpu_ratio, 3),
        "ratio": round(ratio, 3),
        "kib_per_file_over_floor": round(per_file_kib, 3),
        "statement_floor_mib": round(statement_mib, 1),
        "statement_floor_ratio": round(ours.peak_mib / statement_mib, 3),
        "goal": GOAL_MIB,
        "goal_text": f"<= {GOAL_MIB:.0f} MiB at any file count",
        "met": ours.peak_mib <= GOAL_MIB,
        "files": files,
        "runs": result.runs,
    }
    print(RESULT_PREFIX + json.dumps(line, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
