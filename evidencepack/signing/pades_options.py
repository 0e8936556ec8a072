"""What ``build --pdf-sign-key/--pdf-sign-cert/--pdf-sign-chain/--tsa/--pdf-sign-revocation``
asks for, checked for completeness only: light to import (the CLI's ``--help`` imports it), the
credentials themselves are read by ``pades_credentials``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

PASSPHRASE_ENV = "EVIDENCEPACK_PDF_SIGN_PASSPHRASE"
"""The environment variable holding an encrypted document-signing key's passphrase."""


@dataclass(frozen=True)
class PdfSignOptions:
    """``build --pdf-sign-key KEY --pdf-sign-cert CERT [--pdf-sign-chain FILE] [--tsa URL]``."""

    key: Path
    cert: Path
    chain: Path | None = None
    tsa: str | None = None
    """A time-stamp authority's URL (RFC 3161): PAdES B-T; without it B-B, offline."""
    revocation: tuple[Path, ...] = ()
    """CRLs (PEM or DER) and OCSP responses (DER) for the chain, embedded: PAdES B-LT."""


CLI_NAMES = (
    "--pdf-sign-key",
    "--pdf-sign-cert",
    "--pdf-sign-chain",
    "--tsa",
    "--pdf-sign-revocation",
)
"""How ``build`` names the five options (the Python API names them as its parameters)."""

PathArg = str | os.PathLike[str]


def pdf_sign_options(
    key: PathArg | None,
    cert: PathArg | None,
    chain: PathArg | None,
    tsa: str | None,
    revocation: tuple[PathArg, ...] = (),
    names: tuple[str, str, str, str, str] = CLI_NAMES,
) -> PdfSignOptions | None:
    """The PAdES options given, or None when neither key nor certificate is; UsageError for a
    half-given set, naming the options by ``names`` (key, cert, chain, tsa, revocation)."""
    if key is None and cert is None:
        for name, value in zip(names[2:], (chain, tsa, revocation or None), strict=True):
            if value is not None:
                raise UsageError(f"{name} needs {names[0]} and {names[1]}")
        return None
    if key is None or cert is None:
        missing = names[1] if cert is None else names[0]
        raise UsageError(
            f"signing report.pdf needs both {names[0]} and {names[1]}: {missing} is missing"
        )
    if revocation and tsa is None:
        raise UsageError(
            f"{names[4]} makes a PAdES B-LT signature, which builds on a time-stamp: "
            f"give {names[3]}"
        )
    return PdfSignOptions(
        Path(key),
        Path(cert),
        Path(chain) if chain else None,
        tsa,
        tuple(Path(path) for path in revocation),
    )
