"""Sigstore bundles (v0.3) as evidencepack reads and writes them, and what a checked one proves.

The format is Sigstore's (protobuf-specs ``Bundle``), parsed with sigstore's own models
(``sigstore_models``, installed with sigstore); their errors are re-raised here.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pydantic
from pydantic import Field
from sigstore_models.bundle import v1 as bundle_v1
from sigstore_models.common import v1 as common_v1
from sigstore_models.intoto import Envelope, Signature

from ..core._models import StrictModel
from ..core.limits import read_limited
from ..errors import CouldNotRun, VerificationError
from .signer import SignerInfo, SigningMode
from .statement import PAYLOAD_TYPE

BUNDLE_MEDIA_TYPE: Literal["application/vnd.dev.sigstore.bundle.v0.3+json"] = (
    "application/vnd.dev.sigstore.bundle.v0.3+json"
)
MAX_BUNDLE_BYTES = 16 << 20
"""A real bundle is a few KiB; refuse to parse anything absurdly large."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE pre-authentication encoding: what the signature actually covers."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


class TrustRootInfo(StrictModel):
    """Which roots of trust a keyless verification used, so an auditor can pin the same ones."""

    source: Literal["file", "production", "staging"] = Field(
        description=(
            "the Sigstore trusted root used: a file given with --trusted-root, or "
            "the production or staging instance's"
        )
    )
    path: str | None = Field(
        default=None,
        description=(
            "the trusted-root file as given (source 'file'); None for the "
            "production or staging root"
        ),
    )
    sha256: str | None = Field(
        default=None,
        description=(
            "sha256 hex of the trusted-root file's bytes (source 'file'), to pin "
            "the same root; None otherwise"
        ),
    )
    refreshed: bool = Field(
        default=False,
        description=(
            "true when the production or staging root was refreshed over the "
            "network; false when the cached root was used (--offline) or a file was "
            "given"
        ),
    )


@dataclass(frozen=True)
class ParsedBundle:
    """A bundle's parts, before any signature is checked."""

    raw: bytes
    source: str
    mode: SigningMode
    key_hint: str | None
    payload_type: str | None
    payload: bytes | None
    signatures: tuple[bytes, ...]
    log_index: int | None
    log_id: str | None
    integrated_time: int | None

    @property
    def is_dsse(self) -> bool:
        """Whether the bundle signs a DSSE envelope (the in-toto statement), not a digest."""
        return self.payload is not None


@dataclass(frozen=True)
class CheckedSignature:
    """A bundle whose signature and signer policy held: the signer and the signed payload."""

    signer: SignerInfo
    payload: bytes | None


def read_bundle(path: Path, label: str | None = None) -> bytes:
    """The bundle's bytes; a missing bundle is a verification failure, unreadable one is I/O.

    Only a regular file of at most ``MAX_BUNDLE_BYTES`` is read (a bundle symlinked to
    ``/dev/zero`` or a FIFO is refused at once).
    """
    name = label or str(path)
    if not path.exists() and not path.is_symlink():
        raise VerificationError(f"{name}: no such bundle (the pack is not signed)")
    return read_limited(
        path,
        MAX_BUNDLE_BYTES,
        what="Sigstore bundle",
        label=name,
        error=VerificationError,
        io_error=CouldNotRun,
    )


def parse_bundle(raw: bytes, source: str) -> ParsedBundle:
    """Parse a bundle; raise VerificationError naming the JSON path of what is wrong."""
    try:
        inner = bundle_v1.Bundle.from_json(raw)
    except (pydantic.ValidationError, ValueError) as exc:
        first = str(exc).splitlines()
        detail = "; ".join(line.strip() for line in first[1:3]) or str(exc)
        raise VerificationError(f"{source}: not a Sigstore bundle: {detail}") from exc
    material = inner.verification_material
    entries = material.tlog_entries
    entry = entries[0] if len(entries) == 1 else None
    envelope = inner.dsse_envelope
    if material.public_key is not None:
        mode: SigningMode = "key"
    else:
        mode = "keyless"
    return ParsedBundle(
        raw=raw,
        source=source,
        mode=mode,
        key_hint=material.public_key.hint if material.public_key else None,
        payload_type=envelope.payload_type if envelope else None,
        payload=envelope.payload if envelope else None,
        signatures=tuple(s.sig for s in envelope.signatures) if envelope else (),
        log_index=entry.log_index if entry else None,
        log_id=entry.log_id.key_id.hex() if entry else None,
        integrated_time=entry.integrated_time if entry else None,
    )


def key_bundle(payload: bytes, signature: bytes, hint: str) -> bytes:
    """A v0.3 bundle for a key signature: DSSE envelope, ``publicKey.hint``, no log entries."""
    inner = bundle_v1.Bundle(
        media_type=BUNDLE_MEDIA_TYPE,
        verification_material=bundle_v1.VerificationMaterial(
            public_key=common_v1.PublicKeyIdentifier(hint=hint),
            tlog_entries=[],
        ),
        # sigstore_models decodes bytes fields from base64 even when given bytes.
        dsse_envelope=Envelope(
            payload=base64.b64encode(payload),
            payload_type=PAYLOAD_TYPE,
            signatures=[Signature(sig=base64.b64encode(signature), keyid="")],
        ),
    )
    return inner.to_json().encode()
