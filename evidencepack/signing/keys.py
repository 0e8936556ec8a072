"""Signing keys for air-gapped packs: ECDSA P-256 pairs, the private key encrypted by a passphrase.

Private key: PKCS#8 PEM, mode 0600. A key's fingerprint (sha256 of its DER public key) is the
hint a key-signed bundle carries.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..core._atomic import PRIVATE_MODE, PUBLIC_MODE, atomic_write
from ..core.limits import MAX_KEY_BYTES, MAX_PASSPHRASE_BYTES, read_limited
from ..errors import InputError, InvalidRequest, SigningError, option

PASSPHRASE_ENV = "EVIDENCEPACK_KEY_PASSPHRASE"

# The curves a key-signed bundle may be verified with, each with its hash (the Sigstore
# algorithm registry pairs them the same way). Only P-256 is used for signing.
_VERIFY_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "secp256r1": hashes.SHA256,
    "secp384r1": hashes.SHA384,
    "secp521r1": hashes.SHA512,
}


@dataclass(frozen=True)
class KeyPair:
    """A written key pair: both paths, the fingerprint, whether the private key is encrypted."""

    private_key: Path
    public_key: Path
    fingerprint: str
    encrypted: bool


def key_fingerprint(public_key: ec.EllipticCurvePublicKey) -> str:
    """sha256 hex of the DER SubjectPublicKeyInfo: the bundle's ``publicKey.hint``."""
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()


def signature_hash(public_key: ec.EllipticCurvePublicKey) -> hashes.HashAlgorithm:
    """The hash an ECDSA signature by this key uses; raises InputError for other curves."""
    try:
        return _VERIFY_HASHES[public_key.curve.name]()
    except KeyError:
        raise InputError(
            f"unsupported curve {public_key.curve.name}: expected P-256, P-384 or P-521"
        ) from None


def read_passphrase(*, confirm: bool) -> bytes:
    """The passphrase from ``EVIDENCEPACK_KEY_PASSPHRASE``, else a prompt on a terminal.

    An empty passphrase is refused: an unencrypted key must be asked for explicitly.
    """
    value = os.environ.get(PASSPHRASE_ENV)
    if value is None:
        if not sys.stdin.isatty():
            raise InvalidRequest(
                f"no passphrase: set {PASSPHRASE_ENV} (standard input is not a terminal, "
                "so there is no prompt)"
            )
        value = getpass.getpass("Key passphrase: ")
        if confirm and getpass.getpass("Repeat the passphrase: ") != value:
            raise InvalidRequest("the two passphrases differ")
    if not value:
        raise InvalidRequest(
            f"empty passphrase: choose one, or pass {option('no_passphrase')} to write an "
            "unencrypted key"
        )
    encoded = value.encode("utf-8", errors="surrogateescape")
    if len(encoded) > MAX_PASSPHRASE_BYTES:
        raise InvalidRequest(
            f"the passphrase is {len(encoded)} bytes; at most {MAX_PASSPHRASE_BYTES} are supported"
        )
    return encoded


def generate_keypair(
    private_path: Path,
    public_path: Path,
    passphrase: bytes | None,
    *,
    overwrite: bool = False,
) -> KeyPair:
    """Write a new P-256 key pair; the private key encrypted unless ``passphrase`` is None."""
    if private_path.resolve() == public_path.resolve():
        raise InvalidRequest("the private and public key paths must differ")
    if not overwrite:
        for path in (private_path, public_path):
            if path.exists():
                raise InvalidRequest(f"{path} exists; pass {option('force')} to replace it")
    key = ec.generate_private_key(ec.SECP256R1())
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase)
        if passphrase
        else serialization.NoEncryption()
    )
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    atomic_write(private_path, private_pem, mode=PRIVATE_MODE)
    atomic_write(public_path, public_pem, mode=PUBLIC_MODE)
    return KeyPair(
        private_key=private_path,
        public_key=public_path,
        fingerprint=key_fingerprint(key.public_key()),
        encrypted=passphrase is not None,
    )


def _read(
    path: Path,
    what: str,
    error: type[InputError] | type[SigningError],
    label: str | None = None,
) -> bytes:
    shown = str(path) if label is None else label
    if not path.exists() and not path.is_symlink():
        raise error(f"{shown}: no such {what} file")
    return read_limited(path, MAX_KEY_BYTES, what=what, error=error, label=shown)


def is_encrypted(pem: bytes) -> bool:
    """Whether a PEM private key is encrypted (PKCS#8 ``ENCRYPTED PRIVATE KEY``)."""
    return b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in pem


def load_private_key(
    path: Path, passphrase: Callable[[], bytes] = lambda: read_passphrase(confirm=False)
) -> ec.EllipticCurvePrivateKey:
    """Load a P-256 private key; ``passphrase`` is only called when the key is encrypted."""
    pem = _read(path, "private key", SigningError)
    password = passphrase() if is_encrypted(pem) else None
    try:
        key = serialization.load_pem_private_key(pem, password=password)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        hint = " (wrong passphrase?)" if password else ""
        raise SigningError(f"{path}: cannot load the private key{hint}: {exc}") from exc
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise SigningError(f"{path}: not an ECDSA P-256 private key (make one with keygen)")
    return key


def load_public_key(path: Path, label: str | None = None) -> ec.EllipticCurvePublicKey:
    """Load an ECDSA public key (PEM) to verify a key-signed pack (messages call the file
    ``label``; default: ``path``)."""
    shown = str(path) if label is None else label
    pem = _read(path, "public key", InputError, shown)
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise InputError(f"{shown}: not a PEM public key: {exc}") from exc
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise InputError(f"{shown}: not an ECDSA public key")
    signature_hash(key)
    return key


def wrong_key_message(
    source: str, public_key: ec.EllipticCurvePublicKey, key_hint: str | None
) -> str:
    """Why a key-signed bundle failed with ``public_key``: the key given and, when the bundle
    names another (its key hint, a claim until that key verifies it), the one it names."""
    given = key_fingerprint(public_key)
    claimed = (
        f"; the bundle names key sha256:{key_hint} as its signer"
        if key_hint and key_hint != given
        else ""
    )
    return (
        f"{source}: the signature does not verify with the given public key "
        f"(sha256:{given}){claimed}"
    )
