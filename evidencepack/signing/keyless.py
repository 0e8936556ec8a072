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
from sigstore.errors import Error as SigstoreError
from sigstore.hashes import Hashed
from sigstore.models import Bundle, ClientTrustConfig, TrustedRoot
from sigstore.oidc import ExpiredIdentity, IdentityToken, detect_credential
from sigstore.sign import Signer, SigningContext
from sigstore.verify import Verifier
from sigstore.verify.policy import Identity
from sigstore_models.common.v1 import HashAlgorithm

from ..core._text import unprintable_characters
from ..errors import CouldNotRun, InputError, SigningError, VerificationError, option
from ._sigstore_private import (
    ExpiredCertificate,
    FulcioClientError,
    RekorClientError,
    TimestampSource,
    TimestampVerificationResult,
    established_times,
    signing_certificate,
)
from .bundle import CheckedSignature, ParsedBundle, TrustRootInfo
from .sign import SignerIdentity
from .signer import SignerInfo
from .statement import PAYLOAD_TYPE

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
            f"`permissions: id-token: write`; elsewhere pass {option('identity_token')} or set "
            f"{IDENTITY_TOKEN_ENV}; or sign with {option('key')}"
        )
    return ambient


_RENEW_BEFORE = dt.timedelta(seconds=60)
"""A certificate with less than this left is renewed before signing (Fulcio's last about ten
minutes, and the log must take the entry while the certificate is still valid)."""


class KeylessSigner:
    """Signs with a short-lived Fulcio certificate bound to an OIDC identity; logs to Rekor.

    ``prepare()`` requests the certificate before the report is rendered, so the report can
    name the identity and issuer it carries; ``sign_payload`` signs with that certificate, or
    with a renewed one naming exactly the same identity and issuer, and otherwise refuses.
    """

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
        self._signer: Signer | None = None
        self._certificate: x509.Certificate | None = None
        self._stated: SignerIdentity | None = None

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
            self._context = SigningContext.from_trust_config(config)
        except (SigstoreError, OSError, ValueError) as exc:
            source = self._trust_config or f"the Sigstore {instance} TUF repository"
            raise SigningError(
                f"cannot load the signing configuration from {source}: {exc}"
            ) from exc
        return self._context

    def _open(self) -> tuple[Signer, x509.Certificate, SignerIdentity]:
        """A sigstore ``Signer`` holding a fresh Fulcio certificate, and who it names.

        The token is resolved again each time: ambient credentials mint a new one."""
        raw_token = resolve_identity_token(self._token)
        context = self._signing_context()
        try:
            token = IdentityToken(raw_token)
            # cache=True: the Signer requests the certificate now and signs with it until it
            # expires (read through the fence around sigstore's private API).
            with context.signer(token, cache=True) as signer:
                certificate = signing_certificate(signer)
        except _SIGNING_ERRORS as exc:
            detail = str(exc) or type(exc).__name__
            raise SigningError(f"keyless signing failed: {detail}") from exc
        try:
            named = signer_identity(certificate)
        except ValueError as exc:
            raise SigningError(f"keyless signing refused: the Fulcio certificate {exc}") from exc
        return signer, certificate, named

    def prepare(self) -> SignerIdentity:
        """Request the Fulcio certificate now; the identity (SAN) and issuer it carries."""
        if self._stated is None:
            self._signer, self._certificate, self._stated = self._open()
        return self._stated

    def _current(self, stated: SignerIdentity) -> tuple[Signer, x509.Certificate]:
        """The prepared signer, or one with a renewed certificate if the prepared one is (about
        to be) expired; a renewal naming anyone other than ``stated`` is refused."""
        assert self._signer is not None
        assert self._certificate is not None
        left = self._certificate.not_valid_after_utc - dt.datetime.now(dt.UTC)
        if left > _RENEW_BEFORE:
            return self._signer, self._certificate
        signer, certificate, renewed = self._open()
        if renewed != stated:
            raise SigningError(
                "keyless signing refused: the signing certificate expired before signing, and "
                f"the renewed one names {renewed.identity!r} (issuer {renewed.issuer!r}), not "
                f"{stated.identity!r} (issuer {stated.issuer!r}) as the report states; "
                "nothing was signed"
            )
        self._signer, self._certificate = signer, certificate
        return signer, certificate

    def sign_payload(self, payload: bytes) -> bytes:
        """Sign an in-toto statement; return the bundle JSON (v0.3, DSSE, with log entry)."""
        signer, certificate = self._current(self.prepare())
        try:
            bundle = signer.sign_dsse(dsse.Statement(payload))
        except _SIGNING_ERRORS as exc:
            detail = str(exc) or type(exc).__name__
            raise SigningError(f"keyless signing failed: {detail}") from exc
        if bundle.signing_certificate != certificate:
            raise SigningError(
                "keyless signing refused: sigstore signed with another certificate than the "
                "one the report names"
            )
        return bundle.to_json().encode()


_ISSUER_V1 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.1")
_ISSUER_V2 = x509.ObjectIdentifier("1.3.6.1.4.1.57264.1.8")


def _certificate_names(cert: x509.Certificate) -> tuple[str | None, bytes | None]:
    """The first URI or email SAN, and the raw OIDC issuer (v1 extension, else v2's string)."""
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    names = san.get_values_for_type(x509.UniformResourceIdentifier) + san.get_values_for_type(
        x509.RFC822Name
    )
    for oid in (_ISSUER_V1, _ISSUER_V2):
        try:
            value = cert.extensions.get_extension_for_oid(oid).value
        except ExtensionNotFound:
            continue
        raw = value.value if isinstance(value, x509.UnrecognizedExtension) else b""
        # v2 is a DER UTF8String (tag 0x0c, short length); v1 is the bare string.
        if oid == _ISSUER_V2 and raw[:1] == b"\x0c" and len(raw) > 1 and raw[1] < 0x80:
            raw = raw[2:]
        return (names[0] if names else None), raw
    return (names[0] if names else None), None


def _claimed_identity(raw_bundle: bytes) -> tuple[str | None, str | None]:
    """The identity a keyless bundle's certificate names, or (None, None) if unreadable: to
    say who did sign when the policy's identity did not."""
    try:
        return certificate_identity(raw_bundle)
    except VerificationError:
        return None, None


def certificate_identity(raw_bundle: bytes) -> tuple[str | None, str | None]:
    """The identity (SAN) and OIDC issuer a keyless bundle's certificate names.

    Unverified, for telling the signer what auditors must require; verification checks them.
    """
    try:
        identity, issuer = _certificate_names(Bundle.from_json(raw_bundle).signing_certificate)
    except _VERIFY_ERRORS as exc:
        raise VerificationError(f"cannot read the signing certificate: {exc}") from exc
    return identity, (issuer.decode("utf-8", errors="replace") if issuer is not None else None)


def signer_identity(cert: x509.Certificate) -> SignerIdentity:
    """The identity and issuer ``cert`` names, as a report may state them.

    Both come from an OIDC token, so they are untrusted text: ``ValueError`` (its message
    completes "the certificate ...") when either is missing, not UTF-8, or holds a control,
    bidi or other invisible format character that would make the report read otherwise.
    """
    try:
        identity, raw_issuer = _certificate_names(cert)
    except ExtensionNotFound as exc:
        raise ValueError("has no subject alternative name") from exc
    if identity is None:
        raise ValueError("names no URI or email identity")
    if raw_issuer is None:
        raise ValueError("names no OIDC issuer")
    try:
        issuer = raw_issuer.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("names an OIDC issuer that is not UTF-8") from exc
    for field, text in (("identity", identity), ("OIDC issuer", issuer)):
        if bad := unprintable_characters(text):
            raise ValueError(
                f"names an {field} holding control, bidi or invisible characters "
                f"({', '.join(bad)}): {text!r}; a report will not state it"
            )
    return SignerIdentity(identity=identity, issuer=issuer)


def bundle_signer_identity(raw_bundle: bytes, source: str) -> SignerIdentity:
    """``signer_identity`` of a keyless bundle's certificate (what ``verify --rebuild`` states)."""
    try:
        certificate = Bundle.from_json(raw_bundle).signing_certificate
    except _VERIFY_ERRORS as exc:
        raise VerificationError(f"{source}: cannot read the signing certificate: {exc}") from exc
    try:
        return signer_identity(certificate)
    except ValueError as exc:
        raise VerificationError(f"{source}: the signing certificate {exc}") from exc


class TrustRoot:
    """A loaded Sigstore trusted root and where it came from."""

    def __init__(self, root: TrustedRoot, info: TrustRootInfo) -> None:
        self.root = root
        self.info = info


def load_trust_root(
    path: Path | None = None,
    *,
    staging: bool = False,
    offline: bool = False,
    label: str | None = None,
) -> TrustRoot:
    """A pinned trusted-root file (or a client trust config holding one), else the TUF root.

    Without ``path`` and with ``offline``, the root cached by sigstore-python (or the one it
    ships) is used without refreshing; without ``offline`` it is refreshed over the network.
    Messages call a pinned file ``label`` (default: ``path``).
    """
    if path is not None:
        return _trust_root_file(path, str(path) if label is None else label)
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
            f"cannot load the Sigstore {instance} trusted root ({exc}); use "
            f"{option('offline')} to use the cached one, or {option('trusted_root')} FILE to pin "
            "one"
        ) from exc
    return TrustRoot(root, TrustRootInfo(source=instance, refreshed=not offline))


def _trust_root_file(path: Path, shown: str) -> TrustRoot:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CouldNotRun(f"{shown}: cannot read the trusted root: {exc}") from exc
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and data.get("mediaType") == _CONFIG_MEDIA_TYPE:
            root = ClientTrustConfig.from_json(raw.decode()).trusted_root
        else:
            root = TrustedRoot.from_file(str(path))
    except (SigstoreError, ValueError) as exc:
        raise InputError(
            f"{shown}: not a Sigstore trusted root or client trust config: {exc}"
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
            f"{bundle.source}: signed with a key (it has no certificate); verify with "
            f"{option('key')}"
        )
    if not identity or not issuer:
        raise VerificationError("keyless verification needs both an identity and an issuer")
    policy = Identity(identity=identity, issuer=issuer)
    try:
        sigstore_bundle = Bundle.from_json(bundle.raw)
        verifier = Verifier(trusted_root=trust_root.root)
        if bundle.is_dsse:
            payload_type, payload = verifier.verify_dsse(sigstore_bundle, policy)
            if payload_type != PAYLOAD_TYPE:
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
        # timestamps that chain to the trusted root), through the fence.
        times = established_times(verifier, sigstore_bundle)
    except _VERIFY_ERRORS as exc:
        found, found_issuer = _claimed_identity(bundle.raw)
        named = (
            f"; the certificate names {found} ({found_issuer}), the policy asked for "
            f"{identity} ({issuer})"
            if found is not None and (found, found_issuer) != (identity, issuer)
            else ""
        )
        raise VerificationError(f"{bundle.source}: {exc}{named}") from exc
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
