"""Key-based signing for air-gapped packs: ECDSA P-256 over the DSSE PAE, and its verification.

sigstore-python cannot verify public-key bundles (sigstore/sigstore-python#1244), so both
directions live here, with ``cryptography`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from ..errors import VerificationError, option
from .bundle import CheckedSignature, ParsedBundle, key_bundle, pae
from .keys import (
    key_fingerprint,
    load_private_key,
    read_passphrase,
    signature_hash,
    wrong_key_message,
)
from .signer import SignerInfo
from .statement import PAYLOAD_TYPE


class KeySigner:
    """Signs with a local P-256 private key; the bundle names the key by its fingerprint."""

    mode = "key"

    def __init__(self, private_key: ec.EllipticCurvePrivateKey) -> None:
        self._key = private_key
        self.fingerprint = key_fingerprint(private_key.public_key())

    @classmethod
    def from_file(
        cls,
        path: Path,
        passphrase: Callable[[], bytes] = lambda: read_passphrase(confirm=False),
    ) -> KeySigner:
        """A signer from an encrypted (or plain) PKCS#8 private key file."""
        return cls(load_private_key(path, passphrase))

    def sign_payload(self, payload: bytes) -> bytes:
        """The bundle JSON for ``payload`` (an in-toto statement)."""
        signature = self._key.sign(pae(PAYLOAD_TYPE, payload), ec.ECDSA(hashes.SHA256()))
        return key_bundle(payload, signature, self.fingerprint)


def verify_key_bundle(
    bundle: ParsedBundle, public_key: ec.EllipticCurvePublicKey
) -> CheckedSignature:
    """Check a key-signed bundle's DSSE signature with ``public_key``; VerificationError if not."""
    if bundle.mode != "key":
        raise VerificationError(
            f"{bundle.source}: signed keyless (it holds a certificate, not a key hint); "
            f"verify with {option('cert_identity')} and {option('cert_oidc_issuer')}"
        )
    if bundle.payload is None or bundle.payload_type is None:
        raise VerificationError(f"{bundle.source}: a key-signed bundle must hold a DSSE envelope")
    signatures = bundle.signatures
    if len(signatures) != 1:
        raise VerificationError(
            f"{bundle.source}: expected exactly one DSSE signature, found {len(signatures)}"
        )
    try:
        public_key.verify(
            signatures[0],
            pae(bundle.payload_type, bundle.payload),
            ec.ECDSA(signature_hash(public_key)),
        )
    except InvalidSignature:
        raise VerificationError(
            wrong_key_message(bundle.source, public_key, bundle.key_hint)
        ) from None
    return CheckedSignature(
        signer=SignerInfo(
            mode="key", key_fingerprint=key_fingerprint(public_key), key_hint=bundle.key_hint
        ),
        payload=bundle.payload,
    )
