"""A local Fulcio-like certificate authority with its own certificate-transparency log key.

Leaf certificates carry what sigstore-python's unmodified ``Verifier`` checks: the codeSigning
EKU, a critical SAN with the identity, the OIDC issuer extensions (1.3.6.1.4.1.57264.1.1 raw,
1.3.6.1.4.1.57264.1.8 DER UTF8String), and one embedded precertificate SCT (RFC 6962) signed
by the local CT key over the leaf's TBSPrecertificate.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import struct

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

OIDC_ISSUER_OID = ObjectIdentifier("1.3.6.1.4.1.57264.1.1")
OIDC_ISSUER_V2_OID = ObjectIdentifier("1.3.6.1.4.1.57264.1.8")
SCT_LIST_OID = ObjectIdentifier("1.3.6.1.4.1.11129.2.4.2")


def spki_der(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def key_id(key: ec.EllipticCurvePublicKey) -> bytes:
    """RFC 6962 key id: sha256 of the DER SubjectPublicKeyInfo (also Rekor's log id)."""
    return hashlib.sha256(spki_der(key)).digest()


def _der(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + content


def der_utf8(text: str) -> bytes:
    return _der(0x0C, text.encode())


def _u24(n: int) -> bytes:
    return n.to_bytes(3, "big")


def _u16_prefixed(data: bytes) -> bytes:
    return struct.pack("!H", len(data)) + data


def _sct_list_extension(log_id: bytes, timestamp_ms: int, signature: bytes) -> bytes:
    """The extension value: OCTET STRING around a TLS SignedCertificateTimestampList."""
    sct = (
        b"\x00"  # v1
        + log_id
        + struct.pack("!Q", timestamp_ms)
        + _u16_prefixed(b"")  # no extensions
        + b"\x04\x03"  # sha256, ecdsa
        + _u16_prefixed(signature)
    )
    return _der(0x04, _u16_prefixed(_u16_prefixed(sct)))


class LocalCA:
    """A root CA issuing short-lived code-signing leaves, and a CT log key that signs SCTs."""

    def __init__(self, now: dt.datetime, name: str = "evidencepack test CA") -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.ct_key = ec.generate_private_key(ec.SECP256R1())
        self.not_before = now - dt.timedelta(days=1)
        subject = x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "evidencepack-test"),
                x509.NameAttribute(NameOID.COMMON_NAME, name),
            ]
        )
        public = self.key.public_key()
        self.root = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(self.not_before)
            .not_valid_after(now + dt.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=False,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(self.key, hashes.SHA256())
        )

    @property
    def ct_log_id(self) -> bytes:
        return key_id(self.ct_key.public_key())

    def issue(
        self,
        public_key: ec.EllipticCurvePublicKey,
        san: x509.GeneralName,
        issuer: str,
        now: dt.datetime,
    ) -> x509.Certificate:
        """A 10-minute leaf for ``san``, with an SCT over its precertificate."""
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([]))
            .issuer_name(self.root.subject)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(minutes=10))
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=False,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()),
                critical=False,
            )
            # Fulcio leaves have an empty subject, so the SAN is critical (RFC 5280 4.2.1.6).
            .add_extension(x509.SubjectAlternativeName([san]), critical=True)
            .add_extension(x509.UnrecognizedExtension(OIDC_ISSUER_OID, issuer.encode()), False)
            .add_extension(x509.UnrecognizedExtension(OIDC_ISSUER_V2_OID, der_utf8(issuer)), False)
        )
        # Whole seconds: the verifier rebuilds the signed timestamp from a float.
        timestamp_ms = int(now.timestamp()) * 1000
        placeholder = builder.add_extension(
            x509.UnrecognizedExtension(
                SCT_LIST_OID, _sct_list_extension(self.ct_log_id, timestamp_ms, b"\x00" * 72)
            ),
            critical=False,
        ).sign(self.key, hashes.SHA256())
        # The precertificate TBS leaves the SCT list out, so the placeholder's equals the
        # final certificate's: sign it, then issue the same certificate with the real SCT.
        tbs = placeholder.tbs_precertificate_bytes
        signed_entry = key_id(self.key.public_key()) + _u24(len(tbs)) + tbs
        digitally_signed = (
            struct.pack("!BBQH", 0, 0, timestamp_ms, 1) + signed_entry + _u16_prefixed(b"")
        )
        signature = self.ct_key.sign(digitally_signed, ec.ECDSA(hashes.SHA256()))
        leaf = builder.add_extension(
            x509.UnrecognizedExtension(
                SCT_LIST_OID, _sct_list_extension(self.ct_log_id, timestamp_ms, signature)
            ),
            critical=False,
        ).sign(self.key, hashes.SHA256())
        assert leaf.tbs_precertificate_bytes == tbs
        return leaf
