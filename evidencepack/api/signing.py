"""Signing and verifying as functions: ``signer``, ``verify_policy``, ``verify``, ``keygen``,
``sign``, ``register``, and ``verify_text`` (the report a person reads).

Who signs is a ``SignerSpec`` and who must have signed a ``VerifyPolicy``
(``evidencepack.api.options``); sigstore and cryptography load only when a function needs them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, InvalidRequest, marked, option, word_options
from .options import PathLike, SignerSpec, VerifyOptions, VerifyPolicy, path_or_none

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..signing.keys import KeyPair
    from ..signing.sign import PackSigner
    from ..signing.verify import VerifyPolicy as CheckedPolicy
    from ..signing.verify_report import VerifyReport
    from ..spec.plan import PlanDocument


def signer(spec: SignerSpec) -> PackSigner:
    """The signer ``spec`` names: a key file's (its passphrase from ``spec.passphrase``, else
    ``$EVIDENCEPACK_KEY_PASSPHRASE`` or a prompt), a keyless Sigstore signer (public, staging,
    or the private instance of ``spec.trust_config``), or ``spec.custom`` as it is."""
    if spec.custom is not None:
        return spec.custom
    if spec.key is not None:
        from ..signing.keyed import KeySigner

        if spec.passphrase is None:
            return KeySigner.from_file(Path(spec.key))
        secret = spec.passphrase.encode("utf-8")
        return KeySigner.from_file(Path(spec.key), lambda: secret)
    from ..signing.keyless import KeylessSigner

    return KeylessSigner(
        spec.identity_token, staging=spec.staging, trust_config=path_or_none(spec.trust_config)
    )


def verify_policy(policy: VerifyPolicy) -> CheckedPolicy:
    """``policy`` made ready to check signatures: the public key read, or the Sigstore trust
    root loaded (pinned, staging, cached or refreshed)."""
    from ..signing.verify import KeylessPolicy, KeyPolicy

    if policy.key is not None:
        from ..signing.keys import load_public_key

        return KeyPolicy(load_public_key(Path(policy.key)))
    from ..signing.keyless import load_trust_root

    identity, issuer = policy.cert_identity or "", policy.cert_oidc_issuer or ""
    root = load_trust_root(
        path_or_none(policy.trusted_root), staging=policy.staging, offline=policy.offline
    )
    return KeylessPolicy(identity, issuer, root)  # VerifyPolicy refused an empty one


def verify(
    target: PathLike,
    policy: VerifyPolicy,
    options: VerifyOptions | None = None,
    *,
    word: Callable[[str], str] = str,
) -> VerifyReport:
    """Verify a pack (folder or ``.tar.gz``), or one file of it against the pack's bundle
    (``options.bundle``): the signature, who signed (``policy``) and every file digest; with
    ``options.rebuild`` the decision recomputed from the pack's own inputs too. A failed
    verification is ``VerifyReport.ok`` False with its ``problems``; an option a problem names
    is worded by ``word`` (default: the keyword, ``any_file``; the command line: its flag)."""
    report = _verify(target, policy, options)
    if not any(marked(p) for p in report.problems):
        return report
    problems = tuple(word_options(p, word) for p in report.problems)
    return report.model_copy(update={"problems": problems})


def _verify(target: PathLike, policy: VerifyPolicy, options: VerifyOptions | None) -> VerifyReport:
    from ..pack.archive import is_archive
    from ..signing.verify import verify_file, verify_pack

    options = options or VerifyOptions()
    path = Path(target)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    checked = verify_policy(policy)
    bundle = path_or_none(options.bundle)
    pack = path.is_dir() or is_archive(path)
    if options.rebuild:
        if not pack:
            raise InvalidRequest(
                f"{option('rebuild')} needs a pack: a folder or a .tar.gz archive, not one file"
            )
        from ..pipeline import verify_rebuild

        roots = [Path(root) for root in options.pdf_trust_roots]
        return verify_rebuild(path, checked, bundle=bundle, pdf_trust_roots=roots)
    if pack:
        return verify_pack(path, checked, bundle=bundle)
    if bundle is None:
        raise InvalidRequest(
            f"{path}: to verify one file, pass the pack's bundle "
            f"({option('bundle')} pack.sigstore.json)"
        )
    return verify_file(path, bundle, checked, any_file=options.any_file)


def verify_text(report: VerifyReport, *, verbose: bool = False) -> str:
    """A verification report for a person (``verify``'s output): what was checked, the signer,
    the decision, the problems; ``verbose`` adds the bundle, the documents compared and every
    property."""
    from ..signing.verify import format_report

    return format_report(report, verbose=verbose)


def keygen(
    private_key: PathLike,
    public_key: PathLike,
    *,
    encrypt: bool = True,
    force: bool = False,
) -> KeyPair:
    """Write an ECDSA P-256 key pair: the private key (mode 0600) encrypted with the passphrase
    in ``$EVIDENCEPACK_KEY_PASSPHRASE`` or asked twice (``encrypt=False``: not encrypted), and
    the public key; existing files are replaced only with ``force``."""
    from ..signing.keys import generate_keypair, read_passphrase

    private, public = Path(private_key), Path(public_key)
    if not force:
        for path in (private, public):
            if path.exists():
                raise InvalidRequest(f"{path} exists; pass {option('force')} to replace it")
    passphrase = read_passphrase(confirm=True) if encrypt else None
    return generate_keypair(private, public, passphrase, overwrite=force)


@dataclass(frozen=True)
class Signed:
    """A pack signed by ``sign``: the bundle written and who it names."""

    pack: Path
    bundle: Path
    mode: str
    """``key`` or ``keyless``."""
    files: int
    """How many files the statement covers."""
    key_fingerprint: str | None
    """A key signature: the key's fingerprint (sha256)."""
    log_index: int | None
    """A keyless signature: its transparency log index."""
    identity: str | None
    """A keyless signature: the certificate's identity."""
    issuer: str | None
    """A keyless signature: the identity's OIDC issuer."""


def sign(pack: PathLike, spec: SignerSpec, *, force: bool = False) -> Signed:
    """Sign a built pack: write ``PACK/pack.sigstore.json`` (and the verdict bundles); an
    existing signature is replaced only with ``force``."""
    from ..signing.bundle import parse_bundle
    from ..signing.sign import sign_pack_detailed

    folder = Path(pack)
    result = sign_pack_detailed(folder, None, signer(spec), force=force)
    raw = result.bundle.read_bytes()
    parsed = parse_bundle(raw, str(result.bundle))
    identity = issuer = None
    if parsed.mode != "key":
        from ..signing.keyless import certificate_identity

        identity, issuer = certificate_identity(raw)
    return Signed(
        pack=folder,
        bundle=result.bundle,
        mode=result.mode,
        files=result.files,
        key_fingerprint=parsed.key_hint,
        log_index=parsed.log_index,
        identity=identity,
        issuer=issuer,
    )


def register(
    spec: PathLike, out: PathLike, signer_spec: SignerSpec, *, force: bool = False
) -> tuple[PlanDocument, Path]:
    """Pre-register a spec's plan (its bar, SLO, traffic, objective, candidates) as a signed
    in-toto statement at ``out`` (replaced only with ``force``); ``check --plan`` later holds a
    spec against it. Returns the plan and the file written."""
    from ..core.provenance import sha256_file
    from ..signing.plan import register_plan
    from ..spec.load import load_spec

    spec_path, written = Path(spec), Path(out)
    if written.exists() and not force:
        raise InvalidRequest(f"{written} exists; pass {option('force')} to replace it")
    loaded = load_spec(spec_path, allow_outside=True)
    return register_plan(
        loaded, sha256_file(spec_path), signer(signer_spec), written, dt.datetime.now(dt.UTC)
    )
