"""The options objects the API's functions take: one per command, frozen, every field described.

The command line builds them from its flags; a program builds them directly::

    from evidencepack.api import BuildOptions, SignerSpec, VerifyPolicy

    evidencepack.build("pack.yaml", "out/pack", BuildOptions(signer=SignerSpec(key="k.pem")))
    evidencepack.verify("out/pack", VerifyPolicy(key="k.pub.pem"))

Nothing here imports more than the standard library: options are checked (``InvalidRequest``,
naming the option) when made, and files are read only when a function uses them.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidRequest, option

if TYPE_CHECKING:
    from ..core.progress import Reporter
    from ..signing.sign import PackSigner

PathLike = str | os.PathLike[str]
"""A path: a ``str`` or a ``pathlib.Path``."""


def path_or_none(value: PathLike | None) -> Path | None:
    """``value`` as a ``Path``, or None."""
    return None if value is None else Path(value)


@dataclass(frozen=True, kw_only=True)
class CheckOptions:
    """How a spec is compiled (``check``, and ``build`` through ``BuildOptions``)."""

    allow_outside: bool = False
    """Permit evidence paths outside the spec's folder (``--allow-outside-paths``)."""
    as_of: dt.date | None = None
    """Judge waiver expiry on this date (default: the spec's decision date)."""
    plan: PathLike | None = None
    """A plan registered with ``register``: the spec is held against it (check PLAN), and
    ``build`` packs it as ``plan.sigstore.json``."""
    reporter: Reporter | None = None
    """Where the stages and counts are reported (a ``Reporter``: ``stage``, ``count``,
    ``finish``; ``api.terminal.terminal_reporter`` writes them to a terminal); None: nowhere,
    the stages are logged."""


@dataclass(frozen=True, kw_only=True)
class SignerSpec:
    """Who signs: a private key file, keyless Sigstore (public, staging or a private instance),
    or a signer object of your own (anything with ``mode`` and ``sign_payload``: the
    ``evidencepack.plugins.PackSigner`` protocol). Give one of ``key``, ``keyless``, ``custom``;
    ``identity_token``, ``staging`` or ``trust_config`` alone mean keyless."""

    key: PathLike | None = None
    """A PKCS#8 private key file (``keygen`` writes one)."""
    passphrase: str | None = None
    """Unlocks an encrypted ``key``; None reads ``$EVIDENCEPACK_KEY_PASSPHRASE``, else prompts."""
    keyless: bool = False
    """Sign keyless with Sigstore: a short-lived certificate for an OIDC identity."""
    identity_token: str | None = None
    """Keyless: the OIDC token (default: ``$SIGSTORE_IDENTITY_TOKEN``, then ambient credentials
    such as GitHub Actions')."""
    staging: bool = False
    """Keyless: Sigstore's public staging instance."""
    trust_config: PathLike | None = None
    """Keyless: a Sigstore client trust config JSON naming a private Sigstore instance."""
    custom: PackSigner | None = None
    """A signer object of your own (an HSM, a KMS): used as it is."""

    def __post_init__(self) -> None:
        """Refuse a contradictory set: a key or a custom signer signs without Sigstore."""
        sigstore = self.keyless or self.identity_token or self.staging or self.trust_config
        if self.custom is not None and (self.key is not None or sigstore):
            raise InvalidRequest(
                f"{option('custom')} signs by itself: drop {option('key')} and the keyless options"
            )
        if self.key is not None and sigstore:
            raise InvalidRequest(
                f"{option('key')} signs without Sigstore: drop {option('identity_token')}/"
                f"{option('staging')}/{option('trust_config')}"
            )
        if self.key is None and self.passphrase is not None:
            raise InvalidRequest(f"{option('passphrase')} unlocks a {option('key')}: give one")
        if self.passphrase == "":
            raise InvalidRequest(
                f"an empty {option('passphrase')}: give None to read $EVIDENCEPACK_KEY_PASSPHRASE"
            )


@dataclass(frozen=True, kw_only=True)
class PdfSignSpec:
    """A PAdES signature inside ``report.pdf`` (the extra ``evidencepack[pdf-sign]``): ``key``
    and ``cert`` both, or no signature (``build`` refuses a half-given set, naming the options as
    ``pdf_sign_key``, ``pdf_sign_cert``, ``pdf_sign_chain``, ``tsa``, ``pdf_sign_revocation``)."""

    key: PathLike | None = None
    """The document-signing private key, PEM or DER (encrypted: its passphrase in
    ``$EVIDENCEPACK_PDF_SIGN_PASSPHRASE``)."""
    cert: PathLike | None = None
    """The key's document-signing certificate."""
    chain: PathLike | None = None
    """Intermediate CA certificates to embed (PEM)."""
    tsa: str | None = None
    """An RFC 3161 time-stamp authority's URL: PAdES B-T (without it B-B, made offline)."""
    revocation: tuple[PathLike, ...] = ()
    """CRLs (PEM or DER) and OCSP responses (DER) for the chains: PAdES B-LT (needs ``tsa``)."""


@dataclass(frozen=True, kw_only=True)
class BuildOptions(CheckOptions):
    """How a pack is built: the compile options, then what is written and who signs."""

    force: bool = False
    """Replace an existing pack at the output folder (only a folder that verifies as a pack)."""
    archive: bool = False
    """Also write ``OUT.tar.gz``, the deterministic archive of the pack."""
    oscal: str | None = None
    """Also write the OSCAL export into the pack, declaring this OSCAL version (``"1.2.3"``)."""
    signer: SignerSpec | None = None
    """Who signs the pack; None: unsigned (sign it later with ``sign``)."""
    pdf_sign: PdfSignSpec | None = None
    """A PAdES signature inside ``report.pdf``; None: none."""


@dataclass(frozen=True, kw_only=True)
class VerifyPolicy:
    """Who must have signed: a public key file, or a keyless identity and its OIDC issuer
    (checked against Sigstore's trust root, the staging one, or a pinned ``trusted_root``)."""

    key: PathLike | None = None
    """The signer's public key (PEM): the pack must be key-signed by it."""
    cert_identity: str | None = None
    """Keyless: the signer's identity (the certificate's SAN: an e-mail or a workflow URL)."""
    cert_oidc_issuer: str | None = None
    """Keyless: the identity's OIDC issuer."""
    trusted_root: PathLike | None = None
    """Keyless: a pinned Sigstore trusted root (or client trust config) JSON; no network."""
    staging: bool = False
    """Keyless: trust Sigstore's staging instance."""
    offline: bool = False
    """Keyless: use sigstore-python's cached trusted root, without refreshing it."""

    def __post_init__(self) -> None:
        """Refuse a policy that names no signer, or a key beside keyless options."""
        keyless = self.cert_identity is not None or self.cert_oidc_issuer is not None
        if self.key is not None:
            if keyless or self.trusted_root or self.staging or self.offline:
                raise InvalidRequest(
                    f"{option('key')} verifies a key-signed pack: drop "
                    f"{option('cert_identity')}/{option('cert_oidc_issuer')}/"
                    f"{option('trusted_root')}/{option('staging')}/{option('offline')}"
                )
            return
        if not (self.cert_identity and self.cert_oidc_issuer):
            raise InvalidRequest(
                f"say who must have signed: {option('cert_identity')} and "
                f"{option('cert_oidc_issuer')} (both), or {option('key')}"
            )
        if self.trusted_root and self.staging:
            raise InvalidRequest(
                f"{option('staging')} picks Sigstore's staging root; it cannot go with "
                f"{option('trusted_root')}"
            )


@dataclass(frozen=True, kw_only=True)
class VerifyOptions:
    """What ``verify`` checks besides the signature."""

    bundle: PathLike | None = None
    """The pack's bundle (``pack.sigstore.json``): needed to verify one file on its own; for a
    pack, a bundle other than its own."""
    any_file: bool = False
    """Verifying one file: accept any file the statement lists, not only the ones a reader
    receives alone (the report, the decision)."""
    rebuild: bool = False
    """Also re-run the analysis on the pack's own inputs and compare the files byte for byte."""
    pdf_trust_roots: tuple[PathLike, ...] = ()
    """With ``rebuild``: root certificates the PDF signature's chain is reported against."""

    def __post_init__(self) -> None:
        """``pdf_trust_roots`` serve ``rebuild`` only."""
        if self.pdf_trust_roots and not self.rebuild:
            raise InvalidRequest(
                f"{option('pdf_trust_root')} is used by {option('rebuild')}, which checks the "
                "PDF signature"
            )


@dataclass(frozen=True, kw_only=True)
class DiffOptions:
    """How ``diff_packs`` opens the two packs and when the decision stops holding."""

    policy: VerifyPolicy | None = None
    """Verify both packs first, against this policy; None: compare unverified."""
    fail_on_cost_increase: float | None = None
    """The decision stops holding when the chosen candidate's cost per month rises by more than
    this fraction (0.1 = 10%)."""
    fail_on_capacity_loss: float | None = None
    """... or when its capacity falls by more than this fraction."""
    allow_outside: bool = False
    """For a spec given as NEW: allow evidence paths outside its folder."""
    as_of: dt.date | None = None
    """For a spec given as NEW: judge waivers on this date."""
    allow_other_decision: bool = False
    """Compare packs of different decisions (another ``decision_id``); refused otherwise."""


@dataclass(frozen=True, kw_only=True)
class ExportOptions:
    """``export oscal``: the OSCAL version written and who must have signed the pack."""

    oscal_version: str | None = None
    """The OSCAL version declared (None: the default, ``DEFAULT_OSCAL_VERSION``)."""
    policy: VerifyPolicy | None = None
    """Verify the pack's signature first; None: its files and records are checked, not who
    signed it."""
    force: bool = False
    """Replace an earlier export in the output folder."""


@dataclass(frozen=True, kw_only=True)
class WatchOptions:
    """One ``watch``: where to re-measure, for how long at most, and what to judge."""

    endpoint: str
    """The production endpoint (OpenAI-compatible), e.g. ``http://127.0.0.1:8000``."""
    prompts: PathLike
    """The prompts (JSONL) sent at the decision's operating point."""
    out: PathLike
    """The watch folder written (report, run, watched bundle, predicate)."""
    policy: VerifyPolicy
    """Who must have signed the pack: it is verified first."""
    spec: PathLike | None = None
    """Today's spec: its traffic and SLO judged against the pack's."""
    as_of: dt.date | None = None
    """The date dated things are judged at (default: today)."""
    duration_s: float = 60.0
    """The most seconds the run lasts."""
    max_requests: int = 500
    """The most requests sent."""
    candidate: str | None = None
    """The candidate watched (default: the recommended one)."""
    tolerance: float = 0.10
    """How far a figure may drift from the pack's before it is degraded (a fraction, 0 to 10)."""
    approval_max_days: int = 365
    """An older approval asks for a new sign-off."""
    api_key_env: str | None = None
    """The environment variable holding the endpoint's API key."""
    timeout_s: float = 120.0
    """Seconds one request may take."""
    sign_key: PathLike | None = None
    """Sign the watch folder with this private key; None: unsigned."""
    force: bool = False
    """Replace an existing watch folder."""


@dataclass(frozen=True, kw_only=True)
class MlperfListOptions:
    """Which MLPerf results ``mlperf_list`` lists from an evidence store."""

    benchmark: str | None = None
    """Only this benchmark (``llama2-70b-99``)."""
    scenario: str | None = None
    """Only this scenario (``Server``, ``Offline``); Training and Endpoints have none."""
    accelerator: str | None = None
    """Only systems whose accelerator name contains this (case-insensitive)."""
