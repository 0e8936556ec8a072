"""``verify`` of a key-signed pack whose bundle is too big to read whole, in bounded memory.

The bundle's signature is checked while its payload streams (``stream_bundle``); the payload
is then read again and its subjects (``stream_statement``, in the pack's walk order) are
merge-joined with a walk of the pack in the same order (``pack.layout.walk_pack``), each file
hashed as the walk reaches it, a batch at a time on all cores. Nothing holds a subject per file:
memory is a batch, one folder's names and the mismatches found. The verdict statements are
checked the same way: their payload's sha256 against the one of the payload recomputed from
``decision.json`` and the pack statement's subjects, fed to it during the same merge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import ec

from ..core.limits import read_limited
from ..core.provenance import sha256_files
from ..errors import VerificationError
from ..pack.layout import DECISION_NAME, PREDICATE_NAME, walk_order, walk_pack
from .documents import DOCUMENTS, MAX_DOCUMENT_BYTES
from .json_diff import parse_object
from .signer import SignerInfo
from .stream_bundle import MAX_STREAMED_FILES, StreamedSignature, verify_streamed_key_bundle
from .stream_statement import StreamedStatement
from .verdicts import VERDICTS, VerdictKind, payload_bytes, verdict_predicates
from .verify_report import FileMismatch, VerdictCheck
from .verify_verdicts import not_recomputed, verdict_check, verdict_says

_BATCH = 4096
_END = "\U0010ffff" * 2  # after every walk_order key


@dataclass
class FileCheck:
    """What comparing the pack's files with the signed subjects found, kept small: the
    digests of the few files read again (documents, predicate, spec) and the mismatches."""

    expected: dict[str, str] = field(default_factory=dict)
    actual: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    missing: list[FileMismatch] = field(default_factory=list)
    extra: list[FileMismatch] = field(default_factory=list)
    changed: list[FileMismatch] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files_checked: int = 0
    verdict_sha256: dict[str, str] = field(default_factory=dict)
    verdict_predicates: dict[str, dict[str, object]] = field(default_factory=dict)
    verdict_error: str | None = None
    verdict_decision_sha256: str | None = None


def _hashed(walk: Iterator[tuple[str, str]]) -> Iterator[tuple[str, str, str]]:
    """(pack path, path, sha256) of each file of ``walk``, hashed ``_BATCH`` at a time."""
    batch: dict[str, str] = {}
    for name, path in walk:
        batch[name] = path
        if len(batch) == _BATCH:
            yield from ((n, batch[n], d) for n, d in sha256_files(batch).items())
            batch = {}
    if batch:
        yield from ((n, batch[n], d) for n, d in sha256_files(batch).items())


class _VerdictDigests:
    """The sha256 of each verdict statement's payload as ``verdicts.verdict_payloads`` writes
    it, fed one subject at a time: sorted keys put ``subject`` last, so each is a fixed prefix,
    the subjects, and ``]}``."""

    def __init__(self, root: Path, payload_sha256: str, check: FileCheck) -> None:
        self.hashers: dict[str, hashlib._Hash] = {}
        self.decision: bytes | None = None
        self.predicates: dict[str, dict[str, object]] = {}
        try:
            raw = read_limited(root / DECISION_NAME, MAX_DOCUMENT_BYTES, what="pack document")
            decision = parse_object(raw)
            if decision is None:
                raise ValueError("decision.json: not a JSON object")
            predicates = verdict_predicates(decision, b"", payload_sha256=payload_sha256)
        except Exception as exc:  # noqa: BLE001 - reported as the verdicts' problem
            check.verdict_error = getattr(exc, "message", None) or str(exc)
            return
        self.decision = raw
        self.predicates = predicates
        for kind in VERDICTS:
            empty = payload_bytes(
                {
                    "_type": "https://in-toto.io/Statement/v1",
                    "subject": [],
                    "predicateType": kind.predicate_type,
                    "predicate": predicates[kind.predicate_type],
                }
            )
            assert empty.endswith(b'"subject":[]}')
            self.hashers[kind.file] = hashlib.sha256(empty[:-2])
        self._first = True

    def add(self, name: str, sha256: str) -> None:
        item = payload_bytes({"name": name, "digest": {"sha256": sha256}})
        if not self._first:
            item = b"," + item
        self._first = False
        for hasher in self.hashers.values():
            hasher.update(item)

    def digests(self) -> dict[str, str]:
        out = {}
        for name, hasher in self.hashers.items():
            hasher.update(b"]}")
            out[name] = hasher.hexdigest()
        return out


def compare_streamed(
    root: Path, signature: StreamedSignature, statement: StreamedStatement, wanted: set[str]
) -> FileCheck:
    """Merge-join the statement's subjects with the pack's files; keep the digests of the
    ``wanted`` names. Raises VerificationError for a bad subject or a payload that changed."""
    check = FileCheck()
    verdicts = (
        _VerdictDigests(root, signature.payload_sha256, check)
        if (root / DECISION_NAME).exists()
        else None
    )
    walk_problems: list[str] = []
    files = _hashed(walk_pack(root, walk_problems))
    subjects = statement.subjects()
    file = next(files, None)
    subject = next(subjects, None)
    while file is not None or subject is not None:
        file_key = walk_order(file[0]) if file else _END
        subject_key = walk_order(subject[0]) if subject else _END
        if subject is not None and verdicts is not None and subject_key <= file_key:
            verdicts.add(*subject)
        if subject is not None and subject[0] in wanted:
            check.expected[subject[0]] = subject[1]
        if file is not None and file_key <= subject_key:
            check.files_checked += 1
            if file[0] in wanted:
                check.actual[file[0]] = file[2]
                check.paths[file[0]] = file[1]
        if file is not None and subject is not None and file_key == subject_key:
            if file[2] != subject[1]:
                check.changed.append(
                    FileMismatch(path=file[0], expected_sha256=subject[1], actual_sha256=file[2])
                )
            file, subject = next(files, None), next(subjects, None)
        elif subject_key < file_key:
            assert subject is not None
            check.missing.append(
                FileMismatch(path=subject[0], expected_sha256=subject[1], actual_sha256=None)
            )
            subject = next(subjects, None)
        else:
            assert file is not None
            check.extra.append(
                FileMismatch(path=file[0], expected_sha256=None, actual_sha256=file[2])
            )
            file = next(files, None)
        if check.files_checked > MAX_STREAMED_FILES:
            check.problems.append(f"over {MAX_STREAMED_FILES:,} files, the most verify reads")
            break
    check.problems[:0] = walk_problems
    if verdicts is not None and verdicts.hashers and verdicts.decision is not None:
        check.verdict_decision_sha256 = hashlib.sha256(verdicts.decision).hexdigest()
        check.verdict_sha256 = verdicts.digests()
        check.verdict_predicates = verdicts.predicates
    return check


def wanted_names(
    predicate_spec_path: str, rendered: tuple[str, ...], extra: str | None
) -> set[str]:
    """The pack files whose digests the checks after the file comparison read."""
    names = {*DOCUMENTS, PREDICATE_NAME, predicate_spec_path, *rendered}
    if extra is not None:
        names.add(extra)
    return names


def check_streamed_verdicts(
    root: Path,
    label: Callable[[str], str],
    check: FileCheck,
    public_key: ec.EllipticCurvePublicKey,
    pack_signer: SignerInfo,
) -> tuple[VerdictCheck, ...]:
    """Both verdict statements of a streamed pack: signed by the pack's key, and each payload's
    sha256 the one recomputed from ``decision.json`` and the pack statement's subjects."""
    if check.verdict_error is not None or not check.verdict_sha256:
        return not_recomputed(check.verdict_error or "decision.json cannot be read")
    if check.verdict_decision_sha256 != check.expected.get(DECISION_NAME):
        # the bytes the verdicts were recomputed from are not the signed decision.json
        return not_recomputed("decision.json changed while the pack was being verified")
    return tuple(
        _check_one(kind, root / kind.file, label(kind.file), check, public_key, pack_signer)
        for kind in VERDICTS
    )


def _check_one(
    kind: VerdictKind,
    path: Path,
    label: str,
    check: FileCheck,
    public_key: ec.EllipticCurvePublicKey,
    pack_signer: SignerInfo,
) -> VerdictCheck:
    found: list[str] = []

    def sign() -> tuple[str, SignerInfo]:
        signed = verify_streamed_key_bundle(path, label, public_key)
        found.append(signed.payload_sha256)
        return signed.bundle_sha256, signed.signer

    def compare() -> tuple[str, ...]:
        expected = check.verdict_sha256[kind.file]
        if found[0] != expected:
            raise VerificationError(
                f"{label}: the signed statement (payload sha256 {found[0]}) is not the one "
                f"decision.json and the pack statement give (sha256 {expected})"
            )
        return verdict_says(kind, {"predicate": check.verdict_predicates[kind.predicate_type]})

    return verdict_check(kind, path, label, pack_signer, sign, compare)
