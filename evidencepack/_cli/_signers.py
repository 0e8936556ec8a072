"""Who signs, and who must have signed: options ``build``, ``sign``, ``verify``, ``diff`` share."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import UsageError
from ._common import optional_path

if TYPE_CHECKING:
    from ..signing.sign import PackSigner
    from ..signing.verify import VerifyPolicy


class SignerOptions(NamedTuple):
    """``--key``, or the keyless options: shared by ``sign`` and ``build --sign``."""

    key: Path | None
    identity_token: str | None
    staging: bool
    trust_config: Path | None


def signer_options(args: argparse.Namespace) -> SignerOptions:
    """The signer options of a ``build`` or ``sign`` command line."""
    return SignerOptions(
        optional_path(args.key), args.identity_token, args.staging, optional_path(args.trust_config)
    )


def make_signer(opts: SignerOptions) -> PackSigner:
    """A key signer with --key, else a keyless Sigstore signer."""
    if opts.key is not None:
        if opts.identity_token or opts.staging or opts.trust_config:
            raise UsageError(
                "--key signs without Sigstore: drop --identity-token/--staging/--trust-config"
            )
        from ..signing.keyed import KeySigner

        return KeySigner.from_file(opts.key)
    from ..signing.keyless import KeylessSigner

    return KeylessSigner(opts.identity_token, staging=opts.staging, trust_config=opts.trust_config)


class VerifyOptions(NamedTuple):
    """What ``verify`` (and ``diff``, which verifies first) was asked to check, and how."""

    target: Path
    bundle: Path | None
    cert_identity: str | None
    cert_oidc_issuer: str | None
    key: Path | None
    trusted_root: Path | None
    staging: bool
    offline: bool
    json: bool
    any_file: bool = False


def verify_options(
    args: argparse.Namespace,
    target: Path,
    *,
    bundle: Path | None = None,
    json: bool = False,
    any_file: bool = False,
) -> VerifyOptions:
    """The verification options of a command line that takes ``--key`` or the keyless
    ``--cert-identity``/``--cert-oidc-issuer`` options (``verify``, ``diff``)."""
    return VerifyOptions(
        target=target,
        bundle=bundle,
        cert_identity=args.cert_identity,
        cert_oidc_issuer=args.cert_oidc_issuer,
        key=optional_path(args.key),
        trusted_root=optional_path(args.trusted_root),
        staging=args.staging,
        offline=args.offline,
        json=json,
        any_file=any_file,
    )


def verify_policy(opts: VerifyOptions) -> VerifyPolicy:
    """The verification policy the options ask for: a key, or a keyless identity and issuer."""
    from ..api import verify_policy as policy

    return policy(
        key=opts.key,
        cert_identity=opts.cert_identity,
        cert_oidc_issuer=opts.cert_oidc_issuer,
        trusted_root=opts.trusted_root,
        staging=opts.staging,
        offline=opts.offline,
    )


def keyless_arguments(p: argparse.ArgumentParser) -> None:
    """Add the keyless signing options (``--identity-token``, ``--staging``, ``--trust-config``)."""
    p.add_argument(
        "--identity-token",
        metavar="TOKEN",
        help="keyless: the OIDC token (default: $SIGSTORE_IDENTITY_TOKEN, then ambient "
        "credentials such as GitHub Actions with id-token: write)",
    )
    p.add_argument(
        "--staging", action="store_true", help="keyless: use Sigstore's public staging instance"
    )
    p.add_argument(
        "--trust-config",
        metavar="FILE",
        help="keyless: a Sigstore client trust config (a private Sigstore instance)",
    )


def verifier_arguments(p: argparse.ArgumentParser, key_help: str) -> None:
    """Who must have signed: --key, or --cert-identity/--cert-oidc-issuer and the trust root."""
    p.add_argument("--cert-identity", metavar="IDENTITY", help="keyless: the signer's identity")
    p.add_argument("--cert-oidc-issuer", metavar="URL", help="keyless: the identity's issuer")
    p.add_argument("--key", metavar="PUBLIC_PEM", help=key_help)
    p.add_argument(
        "--trusted-root",
        metavar="FILE",
        help="keyless: pinned Sigstore trusted root (or client trust config) JSON; no network",
    )
    p.add_argument(
        "--staging", action="store_true", help="keyless: trust Sigstore's staging instance"
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="keyless: use sigstore-python's cached trusted root, without refreshing it",
    )
