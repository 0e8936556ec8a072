"""The envelope model's own signature in the spec: an OpenSSF model-signing bundle and its signer.

``envelope.model.signature`` cites a ``model.sig`` (OMS v1.0) and who must have signed it: a
public key, or a Sigstore identity and OIDC issuer checked offline against a pinned trusted
root. ``check`` verifies it and compares its manifest with ``envelope.model.digest``
(PROV-MODEL; ``signing.oms``).
"""

from __future__ import annotations

from pydantic import model_validator

from ..core._models import NonEmptyStr, Sha256Hex
from .types import SpecModel


class ModelSignature(SpecModel):
    """An OpenSSF model-signing bundle (OMS v1.0) over the model's files, and its signer."""

    path: NonEmptyStr
    """The bundle (``model.sig``, written by ``model_signing sign``), relative to the spec; it
    is packed with the other inputs."""
    sha256: Sha256Hex | None = None
    """The bundle file's sha256: the build fails (PROV-FILES) if the bytes differ."""
    public_key: NonEmptyStr | None = None
    """A PEM ECDSA public key the bundle must verify with, relative to the spec (key-signed
    models: ``model_signing sign key``); or give ``identity``, ``issuer`` and
    ``trusted_root``."""
    identity: NonEmptyStr | None = None
    """Keyless: the certificate identity (e-mail or workflow URI) that must have signed."""
    issuer: NonEmptyStr | None = None
    """Keyless: the OIDC issuer that must have issued the signing identity."""
    trusted_root: NonEmptyStr | None = None
    """Keyless: a Sigstore trusted-root file, relative to the spec: the bundle is verified
    offline against it (the bundle carries its own certificate and log entry)."""

    @model_validator(mode="after")
    def _one_signer(self) -> ModelSignature:
        keyless = (self.identity, self.issuer, self.trusted_root)
        if self.public_key is not None and any(v is not None for v in keyless):
            raise ValueError("give either public_key or identity/issuer/trusted_root, not both")
        if self.public_key is None and not all(v is not None for v in keyless):
            raise ValueError(
                "name the signer: public_key, or all of identity, issuer and trusted_root"
            )
        return self

    def cited(self) -> list[tuple[str, Sha256Hex | None]]:
        """The files this signature cites, each with its pin: the bundle, then the key or root."""
        other = self.public_key if self.public_key is not None else self.trusted_root
        return [(self.path, self.sha256), *([(other, None)] if other is not None else [])]
