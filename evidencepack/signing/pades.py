"""A PAdES signature inside the report PDF (pyHanko; the optional extra ``pdf-sign``).

``build --pdf-sign-key KEY --pdf-sign-cert CERT`` signs the rendered PDF/A-3b report with an
invisible signature field (``/SubFilter /ETSI.CAdES.detached``, sha256), appended as an
incremental update: the rendered PDF stays the signed file's byte prefix, so ``verify
--rebuild`` still reproduces it. Offline (PAdES B-B) unless ``--tsa URL`` names an RFC 3161
time-stamp authority (B-T). pyHanko keeps the PDF/A identification (its XMP update keeps
``pdfaid:part=3``, ``pdfaid:conformance=B``) and the attachments (earlier revision, untouched).
No visible stamp: one would need an embedded font for the file to stay PDF/A-3b.
"""

from __future__ import annotations

import hashlib
import io
import logging
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..errors import InputError, InvalidRequest, SigningError, option
from ..pack.layout import REPORT_PDF_NAME
from ..pack.predicate import PdfSignatureRecord
from .pades_credentials import PdfCredentials, load_credentials
from .pades_options import PdfSignOptions

FIELD_NAME = "evidencepack"
"""The signature field's name (``/T``)."""

TSA_TIMEOUT_SECONDS = 10
"""How long a time-stamp authority may take to answer (each request, in total)."""

PADES_SUBFILTER: Final[Literal["ETSI.CAdES.detached"]] = "ETSI.CAdES.detached"


def quiet_pyhanko() -> None:
    """Keep pyHanko's log (a traceback per path it cannot validate, a warning that nothing is
    fetched) off stderr when the application configured no logging: the results say it."""
    for name in ("pyhanko", "pyhanko_certvalidator"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


def _pyhanko() -> Any:
    quiet_pyhanko()
    try:
        from pyhanko.sign import signers
    except ImportError as exc:
        raise SigningError(
            f"{option('pdf_sign_key')} needs pyHanko: install evidencepack with the extra "
            f"`pip install 'evidencepack[pdf-sign]'` ({exc})"
        ) from exc
    return signers


@dataclass(frozen=True)
class PdfSigner:
    """Signs the report PDF with checked credentials (``prepare_pdf_signer``)."""

    credentials: PdfCredentials
    tsa: str | None = None

    @property
    def level(self) -> Literal["B-B", "B-T", "B-LT"]:
        """The PAdES baseline level this signer makes."""
        if self.credentials.crls_der or self.credentials.ocsps_der:
            return "B-LT"
        return "B-T" if self.tsa else "B-B"

    def sign(self, pdf: bytes) -> tuple[bytes, PdfSignatureRecord]:
        """The signed PDF (``pdf`` + one incremental update) and the record of its signature."""
        signers = _pyhanko()
        from asn1crypto import keys, x509
        from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
        from pyhanko.sign.fields import SigSeedSubFilter
        from pyhanko.sign.timestamps import HTTPTimeStamper, TimestampRequestError
        from pyhanko_certvalidator.registry import SimpleCertificateStore

        creds = self.credentials
        signer = signers.SimpleSigner(
            signing_cert=x509.Certificate.load(creds.cert_der),
            signing_key=keys.PrivateKeyInfo.load(creds.key_der),
            cert_registry=SimpleCertificateStore.from_certs(  # type: ignore[no-untyped-call]
                [x509.Certificate.load(der) for der in creds.chain_der]
            ),
        )
        metadata = signers.PdfSignatureMetadata(
            field_name=FIELD_NAME,
            subfilter=SigSeedSubFilter.PADES,
            md_algorithm="sha256",
            **_long_term(creds),
        )
        stamper = HTTPTimeStamper(self.tsa, timeout=TSA_TIMEOUT_SECONDS) if self.tsa else None
        try:
            writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
            signed: bytes = (
                signers.PdfSigner(metadata, signer=signer, timestamper=stamper)
                .sign_pdf(writer)
                .getvalue()
            )
        except TimestampRequestError as exc:
            cause = exc.__cause__ or exc
            raise SigningError(
                f"{option('tsa')} {self.tsa}: the time-stamp authority did not answer with a "
                f"time-stamp within {TSA_TIMEOUT_SECONDS} s ({type(cause).__name__}: {cause}); "
                "nothing was published"
            ) from exc
        except Exception as exc:  # pyHanko raises many kinds; the PDF is ours, the key checked
            if self.level == "B-LT":
                raise InputError(
                    f"{option('pdf_sign_revocation')}: the certificate chain (to the root in "
                    f"{option('pdf_sign_chain')}) does not validate with the revocation data "
                    f"given, so no B-LT signature was made: {exc}"
                ) from exc
            raise SigningError(f"pyHanko could not sign {REPORT_PDF_NAME}: {exc}") from exc
        if signed[: len(pdf)] != pdf:
            raise SigningError(f"the signed {REPORT_PDF_NAME} does not extend the rendered one")
        record = PdfSignatureRecord(
            file=REPORT_PDF_NAME,
            subfilter=PADES_SUBFILTER,
            level=self.level,
            signer_subject=creds.subject,
            signer_cert_sha256=creds.cert_sha256,
            rendered_bytes=len(pdf),
            rendered_sha256=hashlib.sha256(pdf).hexdigest(),
            timestamp_authority=self.tsa,
        )
        return signed, record


def _long_term(creds: PdfCredentials) -> dict[str, Any]:
    """PdfSignatureMetadata's arguments for B-LT: the chain validated before signing against
    the given revocation data only (hard-fail, nothing fetched), which goes into the DSS of the
    signature's own revision (so the signature still covers the whole file)."""
    if not (creds.crls_der or creds.ocsps_der):
        return {}
    from asn1crypto import x509
    from pyhanko.sign.signers.pdf_signer import DSSContentSettings, SigDSSPlacementPreference
    from pyhanko_certvalidator import ValidationContext

    context = ValidationContext(
        trust_roots=[x509.Certificate.load(der) for der in creds.roots_der],
        other_certs=[x509.Certificate.load(der) for der in creds.chain_der],
        crls=list(creds.crls_der),
        ocsps=list(creds.ocsps_der),
        allow_fetching=False,
        revocation_mode="hard-fail",
    )
    return {
        "embed_validation_info": True,
        "validation_context": context,
        "signer_key_usage": {"digital_signature", "non_repudiation"},
        "dss_settings": DSSContentSettings(
            placement=SigDSSPlacementPreference.TOGETHER_WITH_SIGNATURE, include_vri=False
        ),
    }


def prepare_pdf_signer(options: PdfSignOptions) -> PdfSigner:
    """Check pyHanko is installed and the credentials can sign now (before the build starts)."""
    _pyhanko()
    if options.tsa is not None and not options.tsa.startswith(("http://", "https://")):
        raise InvalidRequest(f"{option('tsa')} {options.tsa}: not an http:// or https:// URL")
    return PdfSigner(load_credentials(options), options.tsa)
