"""The PAdES options: ``build --pdf-sign-key/--pdf-sign-cert/--pdf-sign-chain/--tsa`` and
``verify --pdf-trust-root``."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from ..signing.pades_credentials import PASSPHRASE_ENV, PdfSignOptions


def pdf_sign_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``build``'s options for a PAdES signature inside report.pdf."""
    p.add_argument(
        "--pdf-sign-key",
        metavar="KEY",
        help="also sign report.pdf (PAdES, invisible) with this private key, PEM or DER "
        f"(encrypted: passphrase from ${PASSPHRASE_ENV}); needs the extra evidencepack[pdf-sign]",
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


def pdf_sign_options(args: argparse.Namespace) -> PdfSignOptions | None:
    """The PAdES options given, or None; UsageError for a half-given set."""
    key, cert = args.pdf_sign_key, args.pdf_sign_cert
    if key is None and cert is None:
        for option, value in (("--pdf-sign-chain", args.pdf_sign_chain), ("--tsa", args.tsa)):
            if value is not None:
                raise UsageError(f"{option} needs --pdf-sign-key and --pdf-sign-cert")
        return None
    if key is None or cert is None:
        missing = "--pdf-sign-cert" if cert is None else "--pdf-sign-key"
        raise UsageError(
            f"signing report.pdf needs both --pdf-sign-key and --pdf-sign-cert: "
            f"{missing} is missing"
        )
    chain = Path(args.pdf_sign_chain) if args.pdf_sign_chain else None
    return PdfSignOptions(key=Path(key), cert=Path(cert), chain=chain, tsa=args.tsa)


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
