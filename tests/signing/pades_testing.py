"""A throwaway PKI for the PAdES tests: a test CA, document-signing certificates (good, expired,
without a signing key usage), a time-stamping certificate, and a tiny RFC 3161 responder on
127.0.0.1 built on pyHanko's own ``DummyTimeStamper``."""

from __future__ import annotations

import contextlib
import datetime as dt
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.types import CertificateIssuerPrivateKeyTypes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PEM = serialization.Encoding.PEM
MAX_REQUEST_BYTES = 64 << 10
CRL_URL = "http://127.0.0.1:9/example-test-ca.crl"
"""Where the test certificates say their CA's CRL is: never fetched (nothing listens there)."""


def _name(common: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example Procurement Ltd"),
        ]
    )


def _usage(*, sign: bool, ca: bool = False) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=sign,
        content_commitment=sign,
        key_encipherment=not sign and not ca,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


@dataclass(frozen=True)
class Issued:
    """A certificate and its key, as objects and as PEM files."""

    cert: x509.Certificate
    key: CertificateIssuerPrivateKeyTypes
    cert_pem: Path
    key_pem: Path


def _write(
    folder: Path, name: str, cert: x509.Certificate, key: CertificateIssuerPrivateKeyTypes
) -> Issued:
    cert_pem, key_pem = folder / f"{name}.cert.pem", folder / f"{name}.key.pem"
    cert_pem.write_bytes(cert.public_bytes(PEM))
    key_pem.write_bytes(
        key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return Issued(cert, key, cert_pem, key_pem)


@dataclass(frozen=True)
class Pki:
    """The CA and every certificate it issued for the tests."""

    ca: Issued
    signer: Issued
    expired: Issued
    no_signing_usage: Issued
    tsa: Issued


def make_pki(folder: Path) -> Pki:
    """Issue the test CA and its certificates into ``folder``."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("Example Test CA"))
        .issuer_name(_name("Example Test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=2))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(sign=False, ca=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    ca = _write(folder, "ca", ca_cert, ca_key)

    def issue(
        name: str,
        common: str,
        *,
        sign: bool = True,
        days: tuple[int, int] = (-1, 30),
        tsa: bool = False,
    ) -> Issued:
        # pyHanko's DummyTimeStamper signs with RSA only.
        key: CertificateIssuerPrivateKeyTypes = (
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
            if tsa
            else ec.generate_private_key(ec.SECP256R1())
        )
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common))
            .issuer_name(ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now + dt.timedelta(days=days[0]))
            .not_valid_after(now + dt.timedelta(days=days[1]))
            .add_extension(_usage(sign=sign), critical=True)
            .add_extension(
                x509.CRLDistributionPoints(
                    [
                        x509.DistributionPoint(
                            [x509.UniformResourceIdentifier(CRL_URL)], None, None, None
                        )
                    ]
                ),
                critical=False,
            )
        )
        if tsa:
            builder = builder.add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True
            )
        return _write(folder, name, builder.sign(ca_key, hashes.SHA256()), key)

    return Pki(
        ca=ca,
        signer=issue("signer", "Jane Buyer"),
        expired=issue("expired", "Old Signer", days=(-60, -30)),
        no_signing_usage=issue("encrypt-only", "Encryption Only", sign=False),
        tsa=issue("tsa", "Example Test TSA", tsa=True),
    )


@contextlib.contextmanager
def local_tsa(pki: Pki) -> Iterator[str]:
    """An RFC 3161 time-stamp authority on 127.0.0.1 (pyHanko's DummyTimeStamper over HTTP)."""
    from asn1crypto import keys, tsp
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign.timestamps import DummyTimeStamper

    der = serialization.Encoding.DER
    stamper = DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(pki.tsa.cert.public_bytes(der)),
        tsa_key=keys.PrivateKeyInfo.load(
            pki.tsa.key.private_bytes(
                der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
    )

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = min(int(self.headers.get("Content-Length", "0")), MAX_REQUEST_BYTES)
            request = tsp.TimeStampReq.load(self.rfile.read(length))
            body = stamper.request_tsa_response(request).dump()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsa"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def silent_tsa() -> Iterator[str]:
    """A TCP listener on 127.0.0.1 that accepts connections and never answers."""
    import socket

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/tsa"
    finally:
        listener.close()


def write_crl(pki: Pki, path: Path, *, revoked: tuple[x509.Certificate, ...] = ()) -> Path:
    """The test CA's CRL (DER), revoking ``revoked``, written to ``path``."""
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(pki.ca.cert.subject)
        .last_update(now - dt.timedelta(hours=1))
        .next_update(now + dt.timedelta(days=7))
    )
    for cert in revoked:
        builder = builder.add_revoked_certificate(
            x509.RevokedCertificateBuilder()
            .serial_number(cert.serial_number)
            .revocation_date(now - dt.timedelta(minutes=30))
            .build()
        )
    ca_key = pki.ca.key
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    path.write_bytes(builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER))
    return path
