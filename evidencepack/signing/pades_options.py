"""What ``build --pdf-sign-key/--pdf-sign-cert/--pdf-sign-chain/--tsa/--pdf-sign-revocation``
asks for, checked for completeness only: light to import (the CLI's ``--help`` imports it), the
credentials themselves are read by ``pades_credentials``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidRequest, option

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


OPTION_NAMES = (
    option("pdf_sign_key"),
    option("pdf_sign_cert"),
    option("pdf_sign_chain"),
    option("tsa"),
    option("pdf_sign_revocation"),
)
"""The five options, marked for ``InvalidRequest`` (the command line words them as its flags)."""

PathArg = str | os.PathLike[str]


def pdf_sign_options(
    key: PathArg | None,
    cert: PathArg | None,
    chain: PathArg | None,
    tsa: str | None,
    revocation: tuple[PathArg, ...] = (),
    names: tuple[str, str, str, str, str] = OPTION_NAMES,
) -> PdfSignOptions | None:
    """The PAdES options given, or None when neither key nor certificate is; InvalidRequest for a
    half-given set, naming the options by ``names`` (key, cert, chain, tsa, revocation)."""
    if key is None and cert is None:
        for name, value in zip(names[2:], (chain, tsa, revocation or None), strict=True):
            if value is not None:
                raise InvalidRequest(f"{name} needs {names[0]} and {names[1]}")
        return None
    if key is None or cert is None:
        missing = names[1] if cert is None else names[0]
        raise InvalidRequest(
            f"signing report.pdf needs both {names[0]} and {names[1]}: {missing} is missing"
        )
    if revocation and tsa is None:
        raise InvalidRequest(
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
