"""Keyless signing (Fulcio certificate + Rekor entry) and keyless verification via sigstore-python.

The one module that calls sigstore: its errors, and the network errors of its clients, are
re-raised here as SigningError (exit 3), VerificationError (exit 1) or CouldNotRun (exit 3).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from cryptography import x509
from cryptography.x509 import ExtensionNotFound
from sigstore import dsse
from sigstore._internal.fulcio.client import ExpiredCertificate, FulcioClientError
from sigstore._internal.rekor import RekorClientError
from sigstore._internal.timestamp import TimestampSource, TimestampVerificationResult
from sigstore.errors import Error as SigstoreError
from sigstore.hashes import Hashed
from sigstore.models import Bundle, ClientTrustConfig, TrustedRoot
from sigstore.oidc import ExpiredIdentity, IdentityToken, detect_credential
from sigstore.sign import SigningContext
from sigstore.verify import Verifier
from sigstore.verify.policy import Identity
from sigstore_models.common.v1 import HashAlgorithm

from ..errors import CouldNotRun, InputError, SigningError, VerificationError
from .bundle import CheckedSignature, ParsedBundle, SignerInfo, TrustRootInfo

IDENTITY_TOKEN_ENV = "SIGSTORE_IDENTITY_TOKEN"
_CONFIG_MEDIA_TYPE = "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json"

# What sigstore-python raises while signing: its own errors, its HTTP clients' errors (private
# modules, hence the sigstore~=4.5 pin) and OSError, which covers requests' connection errors.
_SIGNING_ERRORS = (
    SigstoreError,
    ExpiredIdentity,
    ExpiredCertificate,
    FulcioClientError,
    RekorClientError,
    OSError,
)
# What a hostile or broken bundle can make the verifier raise besides sigstore's own errors.
_VERIFY_ERRORS = (SigstoreError, ValueError, ExtensionNotFound)


def resolve_identity_token(explicit: str | None = None) -> str:
    """The OIDC token: given, else ``$SIGSTORE_IDENTITY_TOKEN``, else ambient (GitHub Actions)."""
    if explicit:
        return explicit
    if token := os.environ.get(IDENTITY_TOKEN_ENV):
        return token
    try:
        ambient = detect_credential()
    except SigstoreError as exc:
        raise SigningError(f"cannot get an ambient OIDC credential: {exc}") from exc
    if not ambient:
        raise SigningError(
            "no OIDC identity token for keyless signing: in GitHub Actions grant "
            "`permissions: id-token: write`; elsewhere pass --identity-token or set "
            f"{IDENTITY_TOKEN_ENV}; or sign with --key"
        )
    return ambient


class KeylessSigner:
    """Signs with a short-lived Fulcio certificate bound to an OIDC identity; logs to Rekor."""

    mode = "keyless"

    def __init__(
        self,
        identity_token: str | None = None,
        *,
        staging: bool = False,
        trust_config: Path | None = None,
        context: SigningContext | None = None,
    ) -> None:
        self._token = identity_token
        self._staging = staging
        self._trust_config = trust_config
        self._context = context

    def _signing_context(self) -> SigningContext:
        if self._context is not None:
            return self._context
        instance = "staging" if self._staging else "production"
        try:
            if self._trust_config is not None:
                config = ClientTrustConfig.from_json(self._trust_config.read_text("utf-8"))
            elif self._staging:
                config = ClientTrustConfig.staging()
            else:
                config = ClientTrustConfig.production()
            return SigningContext.from_trust_config(config)
        except (SigstoreError, OSError, ValueError) as exc:
            source = self._trust_config or f"the Sigstore {instance} TUF repository"
            raise SigningError(
                f"cannot load the signing configuration from {source}: {exc}"
            ) from exc

    def sign_payload(self, payload: bytes) -> bytes:
        """Sign an in-toto statement; return the bundle JSON (v0.3, DSSE, with log entry)."""
        raw_token = resolve_identity_token(self._token)
        context = self._signing_context()
        try:
            token = IdentityToken(raw_token)
            with context.signer(token, cache=True) as signer:
                bundle = signer.sign_dsse(dsse.Statement(payload))
        except _SIGNING_ERRORS as exc:
            detail = str(exc) or type(exc).__name__
            raise SigningError(f"keyless signing failed: {detail}") from exc
        return bundle.to_json().encode()


_ISSUER_V1 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.1")
_ISSUER_V2 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.8")


def certificate_identity(raw_bundle: bytes) -> tuple[str | None, str | None]:
    """The identity (SAN) and OIDC issuer a keyless bundle's certificate names.

    Unverified, for telling the signer what auditors must require; verification checks them.
    """
    try:
        cert = Bundle.from_json(raw_bundle).signing_certificate
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except _VERIFY_ERRORS as exc:
        raise VerificationError(f"cannot read the signing certificate: {exc}") from exc
    names = san.get_values_for_type(x509.UniformResourceIdentifier) + san.get_values_for_type(
        x509.RFC822Name
    )
    issuer = None
    for oid in (_ISSUER_V1, _ISSUER_V2):
        try:
            value = cert.extensions.get_extension_for_oid(oid).value
        except ExtensionNotFound:
            continue
        raw = value.value if isinstance(value, x509.UnrecognizedExtension) else b""
        # v2 is a DER UTF8String (tag 0x0c, short length); v1 is the bare string.
        if oid == _ISSUER_V2 and raw[:1] == b"\x0c" and len(raw) > 1 and raw[1] < 0x80:
            raw = raw[2:]
        issuer = raw.decode("utf-8", errors="replace")
        break
    return (names[0] if names else None), issuer


class TrustRoot:
    """A loaded Sigstore trusted root and where it came from."""

    def __init__(self, root: TrustedRoot, info: TrustRootInfo) -> None:
        self.root = root
        self.info = info


def load_trust_root(
    path: Path | None = None, *, staging: bool = False, offline: bool = False
) -> TrustRoot:
    """A pinned trusted-root file (or a client trust config holding one), else the TUF root.

    Without ``path`` and with ``offline``, the root cached by sigstore-python (or the one it
    ships) is used without refreshing; without ``offline`` it is refreshed over the network.
    """
    if path is not None:
        return _trust_root_file(path)
    instance: Literal["production", "staging"] = "staging" if staging else "production"
    try:
        config = (
            ClientTrustConfig.staging(offline=offline)
            if staging
            else ClientTrustConfig.production(offline=offline)
        )
        root = config.trusted_root
    except (SigstoreError, OSError, ValueError) as exc:
        raise CouldNotRun(
            f"cannot load the Sigstore {instance} trusted root ({exc}); use --offline to use "
            "the cached one, or --trusted-root FILE to pin one"
        ) from exc
    return TrustRoot(root, TrustRootInfo(source=instance, refreshed=not offline))


def _trust_root_file(path: Path) -> TrustRoot:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CouldNotRun(f"{path}: cannot read the trusted root: {exc}") from exc
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and data.get("mediaType") == _CONFIG_MEDIA_TYPE:
            root = ClientTrustConfig.from_json(raw.decode()).trusted_root
        else:
            root = TrustedRoot.from_file(str(path))
    except (SigstoreError, ValueError) as exc:
        raise InputError(
            f"{path}: not a Sigstore trusted root or client trust config: {exc}"
        ) from exc
    info = TrustRootInfo(source="file", path=str(path), sha256=hashlib.sha256(raw).hexdigest())
    return TrustRoot(root, info)


def verify_keyless_bundle(
    bundle: ParsedBundle,
    *,
    identity: str,
    issuer: str,
    trust_root: TrustRoot,
    artifact_sha256: bytes | None = None,
) -> CheckedSignature:
    """Verify certificate chain, SCT, log entry, identity and signature with sigstore's Verifier.

    A DSSE bundle yields its payload; a bundle that signs one file directly (``hashedrekord``)
    needs that file's digest and yields no payload.
    """
    if bundle.mode != "keyless":
        raise VerificationError(
            f"{bundle.source}: signed with a key (it has no certificate); verify with --key"
        )
    if not identity or not issuer:
        raise VerificationError("keyless verification needs both an identity and an issuer")
    policy = Identity(identity=identity, issuer=issuer)
    try:
        sigstore_bundle = Bundle.from_json(bundle.raw)
        verifier = Verifier(trusted_root=trust_root.root)
        if bundle.is_dsse:
            payload_type, payload = verifier.verify_dsse(sigstore_bundle, policy)
            if payload_type != dsse.Envelope._TYPE:
                raise VerificationError(f"{bundle.source}: payload type {payload_type!r}")
            signed: bytes | None = payload
        elif artifact_sha256 is None:
            raise VerificationError(
                f"{bundle.source}: the bundle signs a single file directly, not an in-toto "
                "statement; it cannot sign a pack"
            )
        else:
            digest = Hashed(algorithm=HashAlgorithm.SHA2_256, digest=artifact_sha256)
            verifier.verify_artifact(digest, sigstore_bundle, policy)
            signed = None
        # The verified times (log integration time with its signed promise, or RFC 3161
        # timestamps that chain to the trusted root); a private helper, pinned by sigstore~=4.5.
        times = verifier._establish_time(sigstore_bundle)
    except _VERIFY_ERRORS as exc:
        raise VerificationError(f"{bundle.source}: {exc}") from exc
    signed_at, source = _earliest(times)
    return CheckedSignature(
        signer=SignerInfo(
            mode="keyless",
            identity=identity,
            issuer=issuer,
            signed_at=signed_at,
            time_source=source,
            log_index=bundle.log_index,
            log_id=bundle.log_id,
        ),
        payload=signed,
    )


TimeSource = Literal["transparency_log", "timestamp_authority"]


def _earliest(
    times: list[TimestampVerificationResult],
) -> tuple[dt.datetime | None, TimeSource | None]:
    if not times:
        return None, None
    first = min(times, key=lambda result: result.time)
    source: TimeSource = (
        "transparency_log"
        if first.source == TimestampSource.TRANSPARENCY_SERVICE
        else "timestamp_authority"
    )
    return first.time.astimezone(dt.UTC), source
