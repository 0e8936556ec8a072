"""``verify``'s check of a pack's verdict statements (``signing.verdicts``).

Each statement must be there (a pack with ``decision.json`` carries both, unless it was
signed before evidencepack wrote them: then neither is, and verify says they are absent), signed
by the signer of the pack (the same key, or the same identity and issuer), over exactly the pack
statement's subjects, and equal field for field to the statement recomputed from the verified
``decision.json`` and the pack statement: a re-signed statement that changed one check's
outcome is named by its file and its first differing field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError, VerificationError
from .bundle import CheckedSignature, read_bundle
from .json_diff import first_difference, parse_object, show
from .signer import SignerInfo
from .statement import SignedStatement, Statement
from .verdicts import SVR_PREDICATE_TYPE, VERDICTS, VerdictKind, verdict_payloads
from .verify_report import VerdictCheck

CheckSignature = Callable[[bytes, str], CheckedSignature]
"""Checks a bundle's signature under the verify policy: (raw bundle, label) -> what it proves."""


def same_signer(signer: SignerInfo, pack: SignerInfo) -> bool:
    """Whether two checked signatures are by the same key, or the same identity and issuer."""
    return (signer.mode, signer.identity, signer.issuer, signer.key_fingerprint) == (
        pack.mode,
        pack.identity,
        pack.issuer,
        pack.key_fingerprint,
    )


def verdict_says(kind: VerdictKind, statement: dict[str, object]) -> tuple[str, ...]:
    """What a verdict statement says: its verified properties, or its test result."""
    predicate = statement.get("predicate")
    assert isinstance(predicate, dict)
    if kind.predicate_type == SVR_PREDICATE_TYPE:
        return tuple(predicate.get("verifiedProperties", ()))
    return (str(predicate.get("result")),)


def verdict_check(
    kind: VerdictKind,
    path: Path,
    label: str,
    pack_signer: SignerInfo,
    sign: Callable[[], tuple[str, SignerInfo]],
    compare: Callable[[], tuple[str, ...]],
) -> VerdictCheck:
    """One verdict statement checked: there, ``sign`` (its bundle's sha256 and signer, or
    VerificationError) by the pack's signer, then ``compare`` (what it says, or
    VerificationError naming what differs)."""
    digest: str | None = None
    says: tuple[str, ...] = ()
    try:
        if not path.exists() and not path.is_symlink():
            raise VerificationError(
                f"{label}: missing: a pack with decision.json carries its verdict statement "
                f"({kind.predicate_type}), signed with the pack"
            )
        digest, signer = sign()
        if not same_signer(signer, pack_signer):
            raise VerificationError(
                f"{label}: signed by another signer than the pack's {pack_signer.mode} signature"
            )
        says = compare()
    except VerificationError as exc:
        problems = exc.problems
    else:
        problems = ()
    return VerdictCheck(
        file=kind.file,
        predicate_type=kind.predicate_type,
        ok=not problems,
        bundle_sha256=digest,
        says=says,
        problems=problems,
    )


def not_recomputed(reason: str) -> tuple[VerdictCheck, ...]:
    """Both verdict statements, failed: they cannot be recomputed, for ``reason``."""
    return tuple(
        VerdictCheck(
            file=kind.file,
            predicate_type=kind.predicate_type,
            ok=False,
            problems=(f"{kind.file}: cannot be recomputed: {reason}",),
        )
        for kind in VERDICTS
    )


def _check_one(
    kind: VerdictKind,
    path: Path,
    label: str,
    expected: bytes,
    check_signature: CheckSignature,
    pack_signer: SignerInfo,
) -> VerdictCheck:
    payload: list[bytes] = []

    def sign() -> tuple[str, SignerInfo]:
        raw = read_bundle(path, label)
        digest = hashlib.sha256(raw).hexdigest()
        checked = check_signature(raw, label)
        payload.append(checked.payload or b"")
        return digest, checked.signer

    def compare() -> tuple[str, ...]:
        found = parse_object(payload[0])
        if found is None:
            raise VerificationError(f"{label}: the signed payload is not a JSON object")
        difference = first_difference(found, json.loads(expected))
        if difference is not None:
            raise VerificationError(
                f"{label}: {difference.path} is {show(difference.left)}; decision.json and the "
                f"pack statement say {show(difference.right)}"
            )
        return verdict_says(kind, found)

    return verdict_check(kind, path, label, pack_signer, sign, compare)


def check_verdicts(
    root: Path,
    label: Callable[[str], str],
    statement: Statement | SignedStatement,
    payload: bytes,
    decision: bytes,
    check_signature: CheckSignature,
    pack_signer: SignerInfo,
) -> tuple[VerdictCheck, ...]:
    """Both verdict statements of the pack in ``root`` checked; ``label`` names a pack file as
    the report shows it, ``decision`` is the verified ``decision.json``'s bytes."""
    parsed = parse_object(decision)
    try:
        if parsed is None:
            raise InputError("decision.json: not a JSON object")
        expected = verdict_payloads(statement, payload, parsed)
    except InputError as exc:
        return not_recomputed(exc.message)
    return tuple(
        _check_one(
            kind,
            root / kind.file,
            label(kind.file),
            expected[kind.file],
            check_signature,
            pack_signer,
        )
        for kind in VERDICTS
    )


def verdicts_absent(root: Path) -> bool:
    """Neither verdict statement is in the pack: one signed before evidencepack wrote them. Its
    own signature still covers decision.json, so verify says so instead of failing; one of the
    two alone is checked (and fails as missing)."""
    return not any(
        (root / kind.file).exists() or (root / kind.file).is_symlink() for kind in VERDICTS
    )


def unexpected_verdicts(root: Path) -> list[str]:
    """A pack without decision.json (a change note) carries no verdict statement."""
    return [
        f"{kind.file}: a verdict statement in a pack without decision.json"
        for kind in VERDICTS
        if (root / kind.file).exists() or (root / kind.file).is_symlink()
    ]
