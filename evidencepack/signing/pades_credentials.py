"""The document-signing credentials of ``build --pdf-sign-key KEY --pdf-sign-cert CERT``, checked.

Read with ``cryptography`` before anything is built, so a bad credential stops the build at once,
naming the option and the file: a key that is not the certificate's, a certificate that is not
valid now (expired or not yet valid), or one whose key usage allows neither digitalSignature nor
nonRepudiation (contentCommitment). A certificate without a key usage extension is unrestricted
(RFC 5280). An encrypted key is opened with ``$EVIDENCEPACK_PDF_SIGN_PASSPHRASE``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes

from ..core.limits import read_limited
from ..errors import InputError, option
from .pades_options import PASSPHRASE_ENV, PdfSignOptions

MAX_CREDENTIAL_BYTES = 1 << 20
"""A key, certificate or chain file is at most this big (a chain of a few certificates: KiB)."""


@dataclass(frozen=True)
class PdfCredentials:
    """A checked key and certificate, with the chain to embed, all DER."""

    key_der: bytes
    """The private key, PKCS#8 DER, unencrypted (held in memory only)."""
    cert_der: bytes
    chain_der: tuple[bytes, ...]
    subject: str
    """The certificate's subject, RFC 4514."""
    roots_der: tuple[bytes, ...] = ()
    """The self-signed certificates of the chain: the roots a B-LT signature validates to."""
    crls_der: tuple[bytes, ...] = ()
    ocsps_der: tuple[bytes, ...] = ()

    @property
    def cert_sha256(self) -> str:
        """sha256 hex of the certificate's DER: the signer, exactly."""
        return hashlib.sha256(self.cert_der).hexdigest()


def _certificates(path: Path, option: str) -> list[x509.Certificate]:
    raw = read_limited(path, MAX_CREDENTIAL_BYTES, what="certificate", label=f"{option} {path}")
    try:
        if b"-----BEGIN" in raw:
            return x509.load_pem_x509_certificates(raw)
        return [x509.load_der_x509_certificate(raw)]
    except ValueError as exc:
        raise InputError(
            f"{option} {path}: not an X.509 certificate in PEM or DER ({exc})"
        ) from exc


def _private_key(path: Path) -> PrivateKeyTypes:
    raw = read_limited(
        path, MAX_CREDENTIAL_BYTES, what="private key", label=f"{option('pdf_sign_key')} {path}"
    )
    passphrase = os.environ.get(PASSPHRASE_ENV)
    password = passphrase.encode() if passphrase else None
    load = (
        serialization.load_pem_private_key
        if b"-----BEGIN" in raw
        else serialization.load_der_private_key
    )
    try:
        return load(raw, password)
    except TypeError as exc:
        hint = (
            f"it is encrypted: set ${PASSPHRASE_ENV} to its passphrase"
            if password is None
            else f"it is not encrypted: unset ${PASSPHRASE_ENV}"
        )
        raise InputError(
            f"{option('pdf_sign_key')} {path}: cannot load the private key, {hint}"
        ) from exc
    except ValueError as exc:
        raise InputError(
            f"{option('pdf_sign_key')} {path}: not a private key in PEM or DER, or a wrong "
            f"passphrase in ${PASSPHRASE_ENV} ({exc})"
        ) from exc


def _spki(public_key: object) -> bytes:
    der: bytes = public_key.public_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return der


def certificate_problem(cert: x509.Certificate, now: dt.datetime) -> str | None:
    """Why ``cert`` cannot sign a document at ``now`` (None: it can)."""
    if now < cert.not_valid_before_utc:
        return f"is not valid before {cert.not_valid_before_utc.isoformat()}"
    if now > cert.not_valid_after_utc:
        return f"expired on {cert.not_valid_after_utc.isoformat()}"
    try:
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return None
    if not (usage.digital_signature or usage.content_commitment):
        return (
            "does not allow signing documents: its key usage has neither digitalSignature nor "
            "nonRepudiation (contentCommitment)"
        )
    return None


def load_credentials(options: PdfSignOptions, now: dt.datetime | None = None) -> PdfCredentials:
    """The key, certificate and chain of ``options``, checked for signing now; InputError naming
    the option and the file otherwise."""
    certs = _certificates(options.cert, option("pdf_sign_cert"))
    cert = certs[0]
    problem = certificate_problem(cert, now or dt.datetime.now(dt.UTC))
    if problem:
        subject = cert.subject.rfc4514_string()
        raise InputError(
            f"{option('pdf_sign_cert')} {options.cert}: the certificate {subject!r} {problem}"
        )
    key = _private_key(options.key)
    if _spki(key.public_key()) != _spki(cert.public_key()):
        raise InputError(
            f"{option('pdf_sign_key')} {options.key}: the key does not match the certificate in "
            f"{option('pdf_sign_cert')} {options.cert} (their public keys differ)"
        )
    chain = [
        *certs[1:],
        *(_certificates(options.chain, option("pdf_sign_chain")) if options.chain else []),
    ]
    der = serialization.Encoding.DER
    roots = tuple(c.public_bytes(der) for c in chain if c.issuer == c.subject)
    revocation = [_revocation(path) for path in options.revocation]
    if revocation and not roots:
        raise InputError(
            f"{option('pdf_sign_chain')} {options.chain}: a B-LT signature validates the chain "
            "before signing, so the chain must hold its root certificate (self-signed)"
        )
    return PdfCredentials(
        key_der=key.private_bytes(
            der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        cert_der=cert.public_bytes(der),
        chain_der=tuple(c.public_bytes(der) for c in chain),
        subject=cert.subject.rfc4514_string(),
        roots_der=roots if revocation else (),
        crls_der=tuple(der for kind, der in revocation if kind == "crl"),
        ocsps_der=tuple(der for kind, der in revocation if kind == "ocsp"),
    )


def _revocation(path: Path) -> tuple[str, bytes]:
    """("crl", DER) or ("ocsp", DER) of a revocation file, else InputError naming it."""
    from cryptography.x509 import ocsp

    label = f"{option('pdf_sign_revocation')} {path}"
    raw = read_limited(path, MAX_CREDENTIAL_BYTES, what="revocation file", label=label)
    try:
        if b"-----BEGIN X509 CRL" in raw:
            crl = x509.load_pem_x509_crl(raw)
            return "crl", crl.public_bytes(serialization.Encoding.DER)
        x509.load_der_x509_crl(raw)
        return "crl", raw
    except ValueError:
        pass
    try:
        ocsp.load_der_ocsp_response(raw)
    except ValueError as exc:
        raise InputError(
            f"{label}: neither a CRL (PEM or DER) nor an OCSP response (DER) ({exc})"
        ) from exc
    return "ocsp", raw
