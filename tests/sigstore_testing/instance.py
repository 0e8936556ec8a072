"""A whole local Sigstore instance: CA, CT key, log, trusted root, and fake Fulcio/Rekor clients.

``LocalSigstore.signing_context()`` is a real ``sigstore.sign.SigningContext`` whose Fulcio and
Rekor clients answer in-process, so the real ``Signer.sign_dsse`` runs offline; the trusted root
it writes is what the real ``Verifier`` and the stock ``sigstore`` CLI verify against.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path
from typing import Any

import jwt
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding
from sigstore._internal.fulcio.client import FulcioCertificateSigningResponse, FulcioClientError
from sigstore._internal.rekor import EntryRequestBody
from sigstore._internal.rekor.client import RekorClient
from sigstore.models import TransparencyLogEntry, TrustedRoot
from sigstore.oidc import IdentityToken
from sigstore.sign import SigningContext
from sigstore_models.trustroot import v1 as trustroot_v1

from .ca import LocalCA, spki_der
from .tlog import LocalLog

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
FULCIO_URL = "https://fulcio.evidencepack.invalid"
REKOR_URL = "https://rekor.evidencepack.invalid"
CTFE_URL = "https://ctfe.evidencepack.invalid"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _public_key(key: ec.EllipticCurvePublicKey, start: dt.datetime) -> dict[str, Any]:
    return {
        "rawBytes": _b64(spki_der(key)),
        "keyDetails": "PKIX_ECDSA_P256_SHA_256",
        "validFor": {"start": _time(start)},
    }


class _SigningCertEndpoint:
    def __init__(self, instance: LocalSigstore) -> None:
        self._instance = instance

    def post(
        self, request: x509.CertificateSigningRequest, identity: IdentityToken
    ) -> FulcioCertificateSigningResponse:
        try:
            leaf = self._instance.issue_certificate(request, str(identity))
        except ValueError as exc:
            raise FulcioClientError(str(exc)) from exc
        return FulcioCertificateSigningResponse(leaf, [self._instance.ca.root])


class FakeFulcio:
    """Stands in for ``FulcioClient``: ``signing_cert.post(csr, token)``, in-process."""

    def __init__(self, instance: LocalSigstore) -> None:
        self.signing_cert = _SigningCertEndpoint(instance)


class FakeRekor(RekorClient):
    """The real Rekor v1 client (it builds the entry request) with an in-process log behind it."""

    def __init__(self, instance: LocalSigstore) -> None:
        super().__init__(REKOR_URL)
        self._instance = instance

    def create_entry(self, request: EntryRequestBody) -> TransparencyLogEntry:
        answer = self._instance.log.integrate(
            dict(request), int(self._instance.clock().timestamp())
        )
        return TransparencyLogEntry._from_v1_response(answer)


class LocalSigstore:
    """One local instance. ``clock`` is when signing happens (the leaf must be valid then)."""

    def __init__(self, now: dt.datetime | None = None) -> None:
        fixed = now
        self.clock = (lambda: fixed) if fixed else (lambda: dt.datetime.now(dt.UTC))
        start = self.clock()
        self.ca = LocalCA(start)
        self.log = LocalLog()
        self.start = self.ca.not_before

    def issue_certificate(
        self, request: x509.CertificateSigningRequest, raw_token: str
    ) -> x509.Certificate:
        """Fulcio's job: check proof of possession, bind the token's identity to the key."""
        if not request.is_signature_valid:
            raise ValueError("the CSR signature is invalid")
        public_key = request.public_key()
        if not isinstance(public_key, ec.EllipticCurvePublicKey):
            raise ValueError("only ECDSA keys are accepted")
        claims = jwt.decode(raw_token, options={"verify_signature": False})
        san: x509.GeneralName
        if claims["iss"] == GITHUB_ISSUER:
            # Fulcio puts the workflow that ran, not the token's sub, into a GitHub leaf.
            san = x509.UniformResourceIdentifier(f"https://github.com/{claims['job_workflow_ref']}")
        elif "email" in claims:
            san = x509.RFC822Name(claims["email"])
        else:
            san = x509.UniformResourceIdentifier(claims["sub"])
        return self.ca.issue(public_key, san, claims["iss"], self.clock())

    def trusted_root_json(self) -> dict[str, Any]:
        return {
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [
                {
                    "baseUrl": REKOR_URL,
                    "hashAlgorithm": "SHA2_256",
                    "publicKey": _public_key(self.log.key.public_key(), self.start),
                    "logId": {"keyId": _b64(self.log.log_id)},
                }
            ],
            "certificateAuthorities": [
                {
                    "subject": {"organization": "evidencepack-test", "commonName": "test CA"},
                    "uri": FULCIO_URL,
                    "certChain": {
                        "certificates": [
                            {"rawBytes": _b64(self.ca.root.public_bytes(Encoding.DER))}
                        ]
                    },
                    "validFor": {"start": _time(self.start)},
                }
            ],
            "ctlogs": [
                {
                    "baseUrl": CTFE_URL,
                    "hashAlgorithm": "SHA2_256",
                    "publicKey": _public_key(self.ca.ct_key.public_key(), self.start),
                    "logId": {"keyId": _b64(self.ca.ct_log_id)},
                }
            ],
            "timestampAuthorities": [],
        }

    def trust_config_json(
        self, fulcio_url: str = FULCIO_URL, rekor_url: str = REKOR_URL
    ) -> dict[str, Any]:
        """A client trust config (what ``sigstore --trust-config`` reads) around the root."""

        def service(url: str) -> dict[str, Any]:
            return {
                "url": url,
                "majorApiVersion": 1,
                "validFor": {"start": _time(self.start)},
                "operator": "evidencepack.invalid",
            }

        return {
            "mediaType": "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json",
            "trustedRoot": self.trusted_root_json(),
            "signingConfig": {
                "mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
                "caUrls": [service(fulcio_url)],
                "oidcUrls": [],
                "rekorTlogUrls": [service(rekor_url)],
                "rekorTlogConfig": {"selector": "ANY"},
                "tsaUrls": [],
                "tsaConfig": {"selector": "ANY"},
            },
        }

    def write_trusted_root(self, path: Path) -> Path:
        path.write_text(json.dumps(self.trusted_root_json(), indent=2))
        return path

    def write_trust_config(self, path: Path) -> Path:
        path.write_text(json.dumps(self.trust_config_json(), indent=2))
        return path

    def trusted_root(self) -> TrustedRoot:
        inner = trustroot_v1.TrustedRoot.from_json(json.dumps(self.trusted_root_json()))
        return TrustedRoot(inner)

    def signing_context(self) -> SigningContext:
        return SigningContext(
            fulcio=FakeFulcio(self),  # type: ignore[arg-type]
            rekor=FakeRekor(self),
            trusted_root=self.trusted_root(),
        )

    def identity_token(
        self,
        *,
        issuer: str = GITHUB_ISSUER,
        email: str | None = None,
        workflow_ref: str | None = None,
        lifetime_s: int = 300,
    ) -> str:
        """An OIDC token as the issuer would mint it (sigstore does not check its signature;
        Fulcio would, and this instance's Fulcio trusts it)."""
        now = int(self.clock().timestamp())
        claims: dict[str, Any] = {
            "iss": issuer,
            "aud": "sigstore",
            "iat": now,
            "nbf": now,
            "exp": now + lifetime_s,
            "sub": email or f"repo:{workflow_ref}",
        }
        if email:
            claims["email"] = email
        if workflow_ref:
            claims["job_workflow_ref"] = workflow_ref
        return jwt.encode(claims, "local-test-oidc-issuer-hmac-secret-32+bytes", algorithm="HS256")
