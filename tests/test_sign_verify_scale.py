"""Signing and verifying cost a number of operations linear in the pack's files.

Counted, not timed: a profile hook charges one operation per Python or C call, in every
thread, plus the length of the list or tuple a scanning method (``count``, ``index``,
``remove``, ``__contains__``) walks. A quadratic path (``names.count(n)`` per subject, a
list searched per file) shows up as a hundredfold count for ten times the files.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from evidencepack.pack.predicate import PackPredicate
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.sign import sign_pack_detailed
from evidencepack.signing.verify import KeyPolicy, verify_pack

Pack = tuple[Path, PackPredicate]
_SCANS = frozenset({"count", "index", "remove", "__contains__"})


class OpCounter:
    """Operations per thread (each thread writes only its own key: no lost updates)."""

    def __init__(self) -> None:
        self.per_thread: dict[int, int] = {}

    @property
    def total(self) -> int:
        return sum(self.per_thread.values())

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "c_call"):
            return
        cost = 1
        if event == "c_call" and getattr(arg, "__name__", None) in _SCANS:
            owner = getattr(arg, "__self__", None)
            if isinstance(owner, list | tuple):
                cost += len(owner)
        tid = threading.get_ident()
        self.per_thread[tid] = self.per_thread.get(tid, 0) + cost


@contextmanager
def counting() -> Iterator[OpCounter]:
    counter = OpCounter()
    threading.setprofile(counter)  # threads started inside, e.g. the hashing pool
    sys.setprofile(counter)
    try:
        yield counter
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]


def _add_tiny_files(folder: Path, start: int, stop: int) -> None:
    for i in range(start, stop):
        path = folder / "bulk" / f"{i // 1000:03d}" / f"{i:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"%d\n" % i)


def _sign_and_verify_ops(folder: Path, key: ec.EllipticCurvePrivateKey) -> tuple[int, int]:
    with counting() as signing:
        # force: the second call re-signs the same pack with more files in it
        signed = sign_pack_detailed(folder, None, KeySigner(key), force=True)
    with counting() as verifying:
        report = verify_pack(folder, KeyPolicy(key.public_key()))
    assert report.ok, report.problems
    assert report.files_checked == signed.files
    return signing.total, verifying.total


def test_the_counter_charges_a_list_scan_per_element() -> None:
    names = [str(i) for i in range(20_000)]
    with counting() as counter:
        names.count("7")
    assert counter.total >= 20_000


def test_sign_and_verify_20000_tiny_files_cost_linear_operations(pack: Pack) -> None:
    folder, _ = pack
    key = ec.generate_private_key(ec.SECP256R1())
    _add_tiny_files(folder, 0, 2_000)
    small_sign, small_verify = _sign_and_verify_ops(folder, key)
    _add_tiny_files(folder, 2_000, 20_000)
    big_sign, big_verify = _sign_and_verify_ops(folder, key)
    # Ten times the files: ten times the work at most (fixed costs make it a little less);
    # the old names.count per subject made signing 60x and verifying 90x.
    assert big_sign <= 11 * small_sign, (small_sign, big_sign)
    assert big_verify <= 11 * small_verify, (small_verify, big_verify)
    # and the per-file work is counted at all (in the hashing threads too)
    assert big_sign >= 5 * small_sign
    assert big_verify >= 5 * small_verify


_PEAK_PROBE = """
import sys
from pathlib import Path
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from evidencepack.signing import verify
from evidencepack.signing.verify import KeyPolicy, verify_pack
if sys.argv[3:] == ["stream"]:
    verify.STREAM_ABOVE_BYTES = 0
policy = KeyPolicy(load_pem_public_key(Path(sys.argv[2]).read_bytes()))
report = verify_pack(Path(sys.argv[1]), policy)
assert report.ok, report.problems
with open("/proc/self/status") as status:  # this process's own peak (not its parent's)
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


def _verify_peak_kib(folder: Path, public_pem: Path, *mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_PROBE, str(folder), str(public_pem), *mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.split()[-1])


# slow: verifies packs of up to 18,000 more tiny files, twice each, in fresh processes
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_verify_memory_per_file_is_the_statement_not_a_model_per_file(
    pack: Pack, tmp_path: Path
) -> None:
    """Verifying 18,000 more tiny files of a built pack costs under 3.9 KiB of peak memory each
    (3.3 KiB measured): the signed statement (bundle, payload, the name -> digest dict), the two
    verdict statements over the same subjects (read, and rebuilt to compare), the walk and the
    digests read. A pydantic ``Subject`` and ``Digest`` per file made it 4.4 KiB (issue 29)."""
    folder, _ = pack
    key = ec.generate_private_key(ec.SECP256R1())
    public_pem = tmp_path / "pub.pem"
    public_pem.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    peaks = []
    for start, stop in ((0, 2_000), (2_000, 20_000)):
        _add_tiny_files(folder, start, stop)
        sign_pack_detailed(folder, None, KeySigner(key), force=True)
        peaks.append(min(_verify_peak_kib(folder, public_pem) for _ in range(2)))
    per_file_kib = (peaks[1] - peaks[0]) / 18_000
    assert 0.2 < per_file_kib < 3.9, peaks


# slow: verifies packs of thousands of tiny files (streamed), in fresh processes
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_streamed_verify_memory_does_not_grow_with_the_files(pack: Pack, tmp_path: Path) -> None:
    """Verified streamed (the path of a bundle over 16 MiB, forced here), 18,000 more tiny
    files cost no peak memory per file beyond noise: the statement is never held, the pack is
    walked a folder at a time (1,000 files each here). The whole-bundle path costs 3.3 KiB per
    file, and refused a pack over about 90,000 files (issue 29)."""
    folder, _ = pack
    key = ec.generate_private_key(ec.SECP256R1())
    public_pem = tmp_path / "pub.pem"
    public_pem.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    peaks = []
    for start, stop in ((0, 2_000), (2_000, 20_000)):
        _add_tiny_files(folder, start, stop)
        sign_pack_detailed(folder, None, KeySigner(key), force=True)
        peaks.append(min(_verify_peak_kib(folder, public_pem, "stream") for _ in range(2)))
    per_file_kib = (peaks[1] - peaks[0]) / 18_000
    assert per_file_kib < 0.4, peaks
