"""Who the build was asked to sign with, as the report states it.

The report is rendered before the signature exists, so it cannot quote the signature: for key
mode it names the key by its fingerprint (sha256 of the DER public key, the bundle's
``publicKey.hint``); for keyless it points at ``pack.sigstore.json``, whose certificate holds the
identity and issuer. ``verify --rebuild`` rebuilds the same plan from the bundle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..pack.layout import BUNDLE_NAME


@dataclass(frozen=True)
class SigningPlan:
    """How the pack will be signed (key or keyless), as the report's first page says."""

    mode: Literal["key", "keyless"]
    key_fingerprint: str | None = None
    """sha256 hex of the DER public key, key mode only."""

    @property
    def line(self) -> str:
        """The one-line signer statement of page 1."""
        if self.mode == "key":
            return f"key sha256:{self.key_fingerprint} (ECDSA P-256), signature in {BUNDLE_NAME}"
        return (
            f"keyless Sigstore signature: identity, issuer and log entry in {BUNDLE_NAME} "
            "(verify prints them)"
        )

    @property
    def verify_options(self) -> str:
        """The options ``evidencepack verify`` needs for this signature."""
        if self.mode == "key":
            return "--key PUBLIC_KEY.pem"
        return "--cert-identity IDENTITY --cert-oidc-issuer ISSUER"
