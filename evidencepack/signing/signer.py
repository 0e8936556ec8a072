"""Who signed a pack, as its checked bundle proves it: ``SignerInfo``.

Apart from the bundle code so that what only reports a signer (``diff``'s ``PackSide``, the
warehouse's rows) loads neither sigstore's models nor cryptography.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from ..core._models import StrictModel

SigningMode = Literal["keyless", "key"]


class SignerInfo(StrictModel):
    """Who signed, as far as the checked bundle proves it."""

    mode: SigningMode = Field(
        description=(
            "how the bundle was signed: 'key' (an ECDSA key, bundle carries "
            "publicKey.hint) or 'keyless' (a Sigstore certificate)"
        )
    )
    identity: str | None = Field(
        default=None,
        description=(
            "keyless: the certificate identity (e.g. an e-mail or workflow URI) the "
            "verification required and the certificate matched; None for a key "
            "signature"
        ),
    )
    issuer: str | None = Field(
        default=None,
        description=(
            "keyless: the OIDC issuer the verification required and the certificate "
            "matched; None for a key signature"
        ),
    )
    key_fingerprint: str | None = Field(
        default=None,
        description=(
            "key: sha256 hex of the verifying public key's DER "
            "SubjectPublicKeyInfo; None for a keyless signature"
        ),
    )
    key_hint: str | None = Field(
        default=None,
        description=(
            "key: the bundle's publicKey.hint as the signer wrote it (evidencepack "
            "writes the signing key's fingerprint); None for a keyless signature"
        ),
    )
    signed_at: dt.datetime | None = Field(
        default=None,
        description=(
            "keyless: the earliest verified signing time, UTC (transparency-log "
            "integration time or an RFC 3161 timestamp); None for a key signature, "
            "which carries no verified time"
        ),
    )
    time_source: Literal["transparency_log", "timestamp_authority"] | None = Field(
        default=None,
        description=(
            "where signed_at comes from: the transparency log's integration time or "
            "a timestamp authority; None when signed_at is None"
        ),
    )
    log_index: int | None = Field(
        default=None,
        description=(
            "keyless: the Rekor transparency-log index of the bundle's one log "
            "entry; None when the bundle has no single entry"
        ),
    )
    log_id: str | None = Field(
        default=None,
        description=(
            "keyless: hex key id of the transparency log holding the entry; None "
            "when the bundle has no single entry"
        ),
    )
