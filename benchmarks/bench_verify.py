"""``verify`` (and ``sign``) of a big pack beside Python's hashlib over the same bytes, same run.

Generates a pack shaped like the issue's (20,000 small files of 1-64 KiB plus 90 large ones,
2.24 GB in all; seeded) into ``benchmarks/.cache/`` once and signs it with a fresh key. Then,
paired and alternated: ``verify_pack`` (signature, statement, walk, every file re-hashed on all
cores) against the floor, one thread reading every file of the same list in 1 MiB chunks into
``hashlib.sha256``. The ratio is by CPU time (the work: goal <= 1.1x); the wall-time ratio shows
what hashing on both cores buys (goal < 1x where two cores are free).

    python benchmarks/bench_verify.py [--quick] [--repeat 5] [--gigabytes 2.24]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sys
from pathlib import Path

from _common import CACHE, Timing, paired, report, timed

from evidencepack.core.provenance import sha256_file
from evidencepack.pack.layout import scan_pack
from evidencepack.pack.predicate import (
    DecisionSummary,
    PackPredicate,
    SpecRef,
    ToolInfo,
    write_predicate,
)
from evidencepack.pack.toolchain import rendering_toolchain
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.sign import sign_pack_detailed
from evidencepack.signing.verify import KeyPolicy, verify_pack

SMALL_FILES = 20_000
LARGE_FILES = 90


def generate(folder: Path, small: int, large: int, total_bytes: int, seed: int = 14) -> None:
    """The pack's files (seeded sizes; content a shared random block, each file distinct)."""
    rng = random.Random(seed)
    block = rng.randbytes(1 << 20)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    small_sizes = [rng.randint(1 << 10, 64 << 10) for _ in range(small)]
    large_size = max(1, (total_bytes - sum(small_sizes)) // max(1, large))
    for i, size in enumerate(small_sizes):
        _write(tmp / "inputs" / f"runs{i // 500:02d}" / f"r{i:05d}.json", i, size, block)
    for i in range(large):
        _write(tmp / "inputs" / "mlperf" / f"log{i:03d}.txt", small + i, large_size, block)
    (tmp / "inputs" / "pack.yaml").write_text("apiVersion: evidencepack/v1\n")
    tmp.rename(folder)


def _write(path: Path, index: int, size: int, block: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(b"%d\n" % index)  # distinct content per file
        left = size
        while left > 0:
            out.write(block[: min(left, len(block))])
            left -= len(block)


def predicate(folder: Path) -> PackPredicate:
    import datetime as dt

    from evidencepack import __version__

    return PackPredicate(
        tool=ToolInfo(version=__version__),
        spec=SpecRef(pack_path="inputs/pack.yaml", sha256=sha256_file(folder / "inputs/pack.yaml")),
        decision=DecisionSummary(
            decision_id="bench",
            question="How fast is verify?",
            as_of=dt.date(2026, 11, 30),
            recommendation=None,
            chosen=None,
            verdict="PASS",
        ),
        toolchain=rendering_toolchain(),
        created_at="2026-11-30",
    )


def hashlib_floor(paths: list[Path]) -> None:
    for path in paths:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 500-file, 20 MB pack, 5 pairs")
    parser.add_argument("--repeat", type=int, default=5, help="paired runs (median kept)")
    parser.add_argument("--gigabytes", type=float, default=2.24, help="the pack's total size")
    args = parser.parse_args()
    small, large, size = SMALL_FILES, LARGE_FILES, int(args.gigabytes * 1e9)
    if args.quick:
        small, large, size, args.repeat = 495, 5, 20_000_000, 5
    folder = CACHE / f"verify-pack-{small + large}-{size}"
    if not folder.exists():
        CACHE.mkdir(exist_ok=True)
        generate(folder, small, large, size)
        write_predicate(folder, predicate(folder))
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    # force: the cached pack keeps the signature of an earlier run (or of the line below)
    signed = sign_pack_detailed(folder, None, KeySigner(key), force=True)
    policy = KeyPolicy(key.public_key())
    paths = [Path(p) for p in scan_pack(folder).files.values()]
    size_gb = sum(p.stat().st_size for p in paths) / 1e9
    print(f"pack: {folder.name}: {signed.files} files, {size_gb:.2f} GB")

    def ours() -> Timing:
        result: list[bool] = []
        timing = timed(lambda: result.append(verify_pack(folder, policy).ok))
        if not result[0]:
            raise SystemExit("verify failed on the benchmark pack")
        return timing

    def signing() -> Timing:
        return timed(lambda: sign_pack_detailed(folder, None, KeySigner(key), force=True))

    def floor() -> Timing:
        return timed(lambda: hashlib_floor(paths))

    sign_result = paired(signing, floor, max(1, args.repeat // 2))
    print(
        f"sign: cpu {sign_result.ours.cpu_s:.3f} s ({sign_result.cpu_ratio:.2f}x hashlib), "
        f"wall {sign_result.ours.wall_s:.3f} s ({sign_result.wall_ratio:.2f}x)"
    )
    result = paired(ours, floor, args.repeat)
    report(
        "verify",
        result,
        ours=f"verify ({signed.files} files, {size_gb:.2f} GB)",
        floor="hashlib.sha256 over the same files, 1 thread",
        row_id="verify",
        goal=1.1,
        extra={
            "sign_cpu_ratio": round(sign_result.cpu_ratio, 3),
            "sign_wall_ratio": round(sign_result.wall_ratio, 3),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
