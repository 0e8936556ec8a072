"""The PAdES options: ``build --pdf-sign-key/--pdf-sign-cert/--pdf-sign-chain/--tsa`` and
``verify --pdf-trust-root``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..api.options import PdfSignSpec


def pdf_sign_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``build``'s options for a PAdES signature inside report.pdf."""
    p.add_argument(
        "--pdf-sign-key",
        metavar="KEY",
        help="also sign report.pdf (PAdES, invisible) with this private key, PEM or DER "
        "(encrypted: passphrase from $EVIDENCEPACK_PDF_SIGN_PASSPHRASE); needs the extra "
        "evidencepack[pdf-sign]",
    )
    p.add_argument("--pdf-sign-cert", metavar="CERT", help="the key's document-signing certificate")
    p.add_argument(
        "--pdf-sign-chain",
        metavar="FILE",
        help="intermediate CA certificates to embed in the signature (PEM)",
    )
    p.add_argument(
        "--tsa",
        metavar="URL",
        help="an RFC 3161 time-stamp authority for the PDF signature (PAdES B-T); "
        "without it the signature is B-B, made offline",
    )
    p.add_argument(
        "--pdf-sign-revocation",
        metavar="FILE",
        action="append",
        default=[],
        help="a CRL (PEM or DER) or OCSP response (DER) for the signing and time-stamping "
        "chains, embedded (PAdES B-LT; needs --tsa and the root in --pdf-sign-chain); repeatable",
    )


def pdf_sign_spec(args: argparse.Namespace) -> PdfSignSpec | None:
    """The PAdES options given, or None (the API refuses a half-given set, naming the flags)."""
    from ..api.options import PdfSignSpec

    given = (args.pdf_sign_key, args.pdf_sign_cert, args.pdf_sign_chain, args.tsa)
    if not any(given) and not args.pdf_sign_revocation:
        return None
    return PdfSignSpec(
        key=args.pdf_sign_key,
        cert=args.pdf_sign_cert,
        chain=args.pdf_sign_chain,
        tsa=args.tsa,
        revocation=tuple(args.pdf_sign_revocation),
    )


def pdf_trust_argument(p: argparse.ArgumentParser) -> None:
    """Add ``verify --pdf-trust-root``."""
    p.add_argument(
        "--pdf-trust-root",
        metavar="CERT",
        action="append",
        default=[],
        help="with --rebuild: a root certificate (PEM or DER) to report whether the PDF "
        "signature's certificate chains to; may be repeated",
    )
