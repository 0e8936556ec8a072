"""Sign a pack: hash every file into the in-toto statement, sign it, write ``pack.sigstore.json``.

The signer is a ``KeySigner`` (``evidencepack.signing.keyed``, air-gapped) or a
``KeylessSigner`` (``evidencepack.signing.keyless``, release pipelines).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..core._atomic import atomic_write
from ..errors import InputError, InvalidRequest, option
from ..pack.layout import BUNDLE_NAME, DECISION_NAME, PREDICATE_NAME, SIGNATURE_NAMES
from ..pack.predicate import PackPredicate, load_predicate, write_predicate
from .bundle import MAX_BUNDLE_BYTES
from .json_diff import parse_object
from .statement import Statement, build_statement, statement_bytes
from .stream_bundle import MAX_STREAMED_BUNDLE_BYTES
from .verdicts import verdict_payloads


class PackSigner(Protocol):
    """Anything that turns a statement payload into a Sigstore bundle (JSON bytes)."""

    @property
    def mode(self) -> str:
        """``key`` or ``keyless``: how the bundle was signed."""

    def sign_payload(self, payload: bytes) -> bytes:
        """The Sigstore bundle (JSON bytes) over the statement payload."""


@dataclass(frozen=True)
class SignerIdentity:
    """The identity (certificate SAN) and OIDC issuer a keyless signature's certificate names."""

    identity: str
    issuer: str


@runtime_checkable
class CertifiedSigner(Protocol):
    """A keyless signer that gets its certificate before signing, so a report can name it."""

    def prepare(self) -> SignerIdentity:
        """Request the signing certificate now; the identity and issuer it carries.

        ``sign_payload`` then signs with a certificate naming exactly these, or refuses."""


@dataclass(frozen=True)
class SignResult:
    """The written bundle, the signing mode, how many files it covers and the statement."""

    bundle: Path
    mode: str
    files: int
    statement: Statement


def sign_pack(pack_dir: Path, predicate: PackPredicate, signer: PackSigner) -> Path:
    """Sign every file of ``pack_dir``; write ``pack_dir/pack.sigstore.json`` atomically."""
    return sign_pack_detailed(pack_dir, predicate, signer).bundle


def sign_pack_detailed(
    pack_dir: Path, predicate: PackPredicate | None, signer: PackSigner, *, force: bool = False
) -> SignResult:
    """``sign_pack`` returning what was signed; ``predicate=None`` reads the pack's own.

    A pack with a ``decision.json`` gets its two verdict statements too (``sign_verdicts``).

    A pack always carries its predicate as ``predicate.json`` (written here if absent), so
    that it can be signed again later, keyless or with another key, from the pack alone.
    An existing signature is replaced only with ``force`` (never silently).
    """
    if not pack_dir.is_dir():
        raise InputError(f"{pack_dir}: not a folder")
    bundle_path = pack_dir / BUNDLE_NAME
    if (bundle_path.exists() or bundle_path.is_symlink()) and not force:
        raise InvalidRequest(
            f"{bundle_path} exists: the pack is already signed; pass {option('force')} to replace "
            "its signature"
        )
    if predicate is not None and not (pack_dir / PREDICATE_NAME).exists():
        write_predicate(pack_dir, predicate)
    if predicate is None or (pack_dir / PREDICATE_NAME).is_file():
        stored = load_predicate(pack_dir)
        if predicate is not None and stored != predicate:
            raise InputError(
                f"{pack_dir / PREDICATE_NAME} differs from the predicate being signed; "
                "rewrite it with write_predicate() first"
            )
        predicate = stored
    statement = build_statement(pack_dir, predicate)
    payload = statement_bytes(statement)
    bundle = signer.sign_payload(payload)
    _verifiable(pack_dir, signer.mode, len(bundle), len(statement.subject))
    path = atomic_write(pack_dir / BUNDLE_NAME, bundle)
    sign_verdicts(pack_dir, statement, payload, signer)
    return SignResult(
        bundle=path, mode=signer.mode, files=len(statement.subject), statement=statement
    )


def _verifiable(pack_dir: Path, mode: str, size: int, files: int) -> None:
    """Refuse to write a bundle ``verify`` would refuse: over 16 MiB keyless (the Sigstore
    client reads it whole), over ``MAX_STREAMED_BUNDLE_BYTES`` with a key (streamed)."""
    limit = MAX_STREAMED_BUNDLE_BYTES if mode == "key" else MAX_BUNDLE_BYTES
    if size > limit:
        raise InputError(
            f"{pack_dir}: {files:,} files make a {size:,}-byte {mode} signature bundle, over the "
            f"{limit:,} bytes `verify` reads"
            + ("" if mode == "key" else f"; sign with {option('key')}: key bundles are streamed")
        )


def sign_verdicts(
    pack_dir: Path, statement: Statement, payload: bytes, signer: PackSigner
) -> list[Path]:
    """Sign the SVR and test-result statements (``signing.verdicts``) of a pack whose signed
    statement lists ``decision.json``; none for a pack without one (a change note)."""
    signed = statement.digests().get(DECISION_NAME)
    if signed is None:
        for name in SIGNATURE_NAMES[1:]:
            (pack_dir / name).unlink(missing_ok=True)
        return []
    raw = (pack_dir / DECISION_NAME).read_bytes()
    if hashlib.sha256(raw).hexdigest() != signed:
        raise InputError(f"{pack_dir / DECISION_NAME} changed while the pack was being signed")
    decision = parse_object(raw)
    if decision is None:
        raise InputError(f"{pack_dir / DECISION_NAME}: not a JSON object")
    return [
        atomic_write(pack_dir / name, signer.sign_payload(verdict))
        for name, verdict in verdict_payloads(statement, payload, decision).items()
    ]
