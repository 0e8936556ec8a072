"""Who signs, and who must have signed: options ``build``, ``sign``, ``verify``, ``diff`` share,
as the API's ``SignerSpec`` and ``VerifyPolicy``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ._common import optional_path

if TYPE_CHECKING:
    from ..api.options import SignerSpec, VerifyPolicy


def signer_spec(args: argparse.Namespace) -> SignerSpec:
    """Who signs, from a ``build --sign``/``sign``/``register`` command line: ``--key``, else
    keyless Sigstore (``--identity-token``, ``--staging``, ``--trust-config``)."""
    from ..api.options import SignerSpec

    key = optional_path(args.key)
    return SignerSpec(
        key=key,
        keyless=key is None,
        identity_token=args.identity_token,
        staging=args.staging,
        trust_config=optional_path(args.trust_config),
    )


def verifying(args: argparse.Namespace) -> bool:
    """Whether the command line names who must have signed (``--key`` or a keyless identity)."""
    return bool(args.key or args.cert_identity or args.cert_oidc_issuer)


def verify_policy(args: argparse.Namespace) -> VerifyPolicy:
    """Who must have signed, from a command line that takes ``--key`` or the keyless
    ``--cert-identity``/``--cert-oidc-issuer`` options (``verify``, ``diff``, ``export``,
    ``warehouse``, ``watch``)."""
    from ..api.options import VerifyPolicy

    return VerifyPolicy(
        key=optional_path(args.key),
        cert_identity=args.cert_identity,
        cert_oidc_issuer=args.cert_oidc_issuer,
        trusted_root=optional_path(args.trusted_root),
        staging=args.staging,
        offline=args.offline,
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
