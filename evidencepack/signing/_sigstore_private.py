"""The one fence around sigstore-python's private API (pinned by ``sigstore~=4.5``).

sigstore-python has no public way to read the certificate a signer fetched, to learn the verified
signing time of a bundle, or to name the errors its HTTP clients raise. Every private name
evidencepack needs is used here and only here; ``tests/signing/test_sigstore_fence.py`` fails by
name when an upgrade moves one, and ``PRIVATE_NAMES`` lists them for that test.
"""

from __future__ import annotations

from typing import Any

from cryptography import x509
from sigstore._internal.fulcio.client import ExpiredCertificate, FulcioClientError
from sigstore._internal.rekor import RekorClientError
from sigstore._internal.timestamp import TimestampSource, TimestampVerificationResult
from sigstore.models import Bundle
from sigstore.sign import Signer
from sigstore.verify import Verifier

__all__ = [
    "PRIVATE_NAMES",
    "ExpiredCertificate",
    "FulcioClientError",
    "RekorClientError",
    "TimestampSource",
    "TimestampVerificationResult",
    "established_times",
    "signing_certificate",
]

PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("sigstore._internal.fulcio.client", "ExpiredCertificate"),
    ("sigstore._internal.fulcio.client", "FulcioClientError"),
    ("sigstore._internal.rekor", "RekorClientError"),
    ("sigstore._internal.timestamp", "TimestampSource"),
    ("sigstore._internal.timestamp", "TimestampVerificationResult"),
    ("sigstore.sign.Signer", "_signing_cert"),
    ("sigstore.verify.Verifier", "_establish_time"),
)
"""(module or class, name) of every private sigstore-python name used here."""


def signing_certificate(signer: Signer) -> x509.Certificate:
    """The Fulcio certificate a caching signer fetched (``Signer._signing_cert``)."""
    certificate: x509.Certificate = signer._signing_cert()
    return certificate


def established_times(verifier: Verifier, bundle: Bundle) -> list[TimestampVerificationResult]:
    """The verified times of a bundle: its log integration time with the log's signed promise,
    or RFC 3161 timestamps that chain to the trusted root (``Verifier._establish_time``)."""
    times: Any = verifier._establish_time(bundle)
    return list(times)
