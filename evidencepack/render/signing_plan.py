"""Who the build signs with, as the report states it.

The report is rendered before the signature exists. For key mode it names the key by its
fingerprint (sha256 of the DER public key, the bundle's ``publicKey.hint``). For keyless it
names the identity and OIDC issuer of the Fulcio certificate the signer requested before
rendering, the certificate the signature in ``pack.sigstore.json`` is then made with.
``verify --rebuild`` rebuilds the same plan from the bundle.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from ..core._text import unprintable_characters
from ..pack.layout import BUNDLE_NAME


@dataclass(frozen=True)
class SigningPlan:
    """How the pack will be signed (key or keyless), as the report's first page says."""

    mode: Literal["key", "keyless"]
    key_fingerprint: str | None = None
    """sha256 hex of the DER public key, key mode only."""
    identity: str | None = None
    """The certificate's identity (SAN: a workflow URL or an email), keyless only."""
    issuer: str | None = None
    """The certificate's OIDC issuer, keyless only."""

    def __post_init__(self) -> None:
        if self.mode == "keyless":
            if not (self.identity and self.issuer):
                raise ValueError("a keyless signing plan names the identity and the issuer")
            # The signing layer refuses these already; the report must never show them raw.
            for text in (self.identity, self.issuer):
                if unprintable_characters(text):
                    raise ValueError(f"unprintable characters in the signer {text!r}")

    @property
    def line(self) -> str:
        """The one-line signer statement of page 1."""
        if self.mode == "key":
            return f"key sha256:{self.key_fingerprint} (ECDSA P-256), signature in {BUNDLE_NAME}"
        return (
            f"keyless Sigstore signature by {self.identity} (OIDC issuer {self.issuer}), as "
            f"the Fulcio certificate in {BUNDLE_NAME} names them"
        )

    @property
    def verify_options(self) -> str:
        """The options ``evidencepack verify`` needs for this signature, quoted for a shell."""
        if self.mode == "key":
            return "--key PUBLIC_KEY.pem"
        return self.identity_options

    @property
    def identity_options(self) -> str:
        """``--cert-identity I --cert-oidc-issuer U`` (also what stock ``sigstore`` takes)."""
        if self.identity is None or self.issuer is None:
            raise ValueError("a key-mode signature names no identity")
        return (
            f"--cert-identity {shlex.quote(self.identity)} "
            f"--cert-oidc-issuer {shlex.quote(self.issuer)}"
        )
