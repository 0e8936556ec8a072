"""The report PDF's PAdES signature checked against what the pack's predicate records (pyHanko).

``verify --rebuild`` compares the rebuilt PDF with the pack PDF's first ``rendered_bytes`` bytes
and checks the rest here: the rendered prefix is the recorded one, the PDF carries exactly one
signature, pyHanko finds it intact and valid and covering the whole file, and its certificate is
the recorded one. Whether the certificate chains to a trusted root is reported (with
``--pdf-trust-root``), never judged: trust in a document-signing certificate is the reader's.
Nothing is fetched: no revocation data, no certificates from the network.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, option
from ..pack.predicate import PdfSignatureRecord
from .pades import quiet_pyhanko
from .pades_credentials import MAX_CREDENTIAL_BYTES
from .rebuild_compare import compare_rebuilt
from .verify_report import PdfSignatureCheck, RebuildOutcome


def _roots(paths: Sequence[Path]) -> list[Any]:
    from asn1crypto import x509 as asn1_x509
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    from ..core.limits import read_limited

    roots = []
    for path in paths:
        raw = read_limited(path, MAX_CREDENTIAL_BYTES, label=f"{option('pdf_trust_root')} {path}")
        try:
            certs = (
                x509.load_pem_x509_certificates(raw)
                if b"-----BEGIN" in raw
                else [x509.load_der_x509_certificate(raw)]
            )
        except ValueError as exc:
            raise InputError(
                f"{option('pdf_trust_root')} {path}: not an X.509 certificate ({exc})"
            ) from exc
        roots += [asn1_x509.Certificate.load(c.public_bytes(Encoding.DER)) for c in certs]
    return roots


def _failed(problems: list[str]) -> PdfSignatureCheck:
    return PdfSignatureCheck(
        signer_subject=None,
        signer_cert_sha256=None,
        intact=False,
        valid=False,
        covers_whole_file=False,
        chain="not checked",
        problems=tuple(problems),
    )


def check_pdf_signature(
    pdf: bytes, record: PdfSignatureRecord, trust_roots: Sequence[Path] = ()
) -> PdfSignatureCheck:
    """``pdf`` (the pack's, as signed) against ``record``: every way it is not that signature."""
    name = record.file
    if len(pdf) <= record.rendered_bytes:
        return _failed(
            [
                f"{name}: the predicate records a PAdES signature by {record.signer_subject!r}, "
                f"but the PDF ends at its rendered {record.rendered_bytes:,} bytes: the signature "
                "was stripped"
            ],
        )
    if hashlib.sha256(pdf[: record.rendered_bytes]).hexdigest() != record.rendered_sha256:
        return _failed(
            [
                f"{name}: its first {record.rendered_bytes:,} bytes are not the rendered PDF the "
                f"predicate records (sha256 {record.rendered_sha256})"
            ],
        )
    try:
        from pyhanko.pdf_utils.reader import PdfFileReader
        from pyhanko.sign.validation import validate_pdf_signature
        from pyhanko.sign.validation.settings import KeyUsageConstraints
        from pyhanko.sign.validation.status import SignatureCoverageLevel
        from pyhanko_certvalidator import ValidationContext
    except ImportError as exc:
        return _failed(
            [
                f"{name}: checking its PAdES signature needs pyHanko: install "
                f"`evidencepack[pdf-sign]` ({exc})"
            ],
        )
    roots = _roots(trust_roots)
    quiet_pyhanko()
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        signatures = reader.embedded_signatures
        dss = reader.root.get("/DSS")  # an indirect reference, or None
        long_term = dss is not None and any(k in dss.get_object() for k in ("/CRLs", "/OCSPs"))
        if len(signatures) != 1:
            return _failed([f"{name}: carries {len(signatures)} signatures; the pack records one"])
        embedded = signatures[0]
        status = validate_pdf_signature(
            embedded,
            ValidationContext(trust_roots=roots, allow_fetching=False),
            key_usage_settings=KeyUsageConstraints(
                key_usage={"digital_signature", "non_repudiation"}, match_all_key_usages=False
            ),
        )
    except Exception as exc:  # pyHanko reads a PDF it did not write: any failure is the PDF's
        return _failed([f"{name}: pyHanko cannot read its signature: {exc}"])
    cert_der = status.signing_cert.dump()
    cert_sha256 = hashlib.sha256(cert_der).hexdigest()
    subject = _subject(cert_der)
    whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    problems = []
    if not status.intact:
        problems.append(f"{name}: the PAdES signature's digest does not match the signed bytes")
    if not status.valid:
        problems.append(f"{name}: the PAdES signature does not verify for its certificate")
    if not whole:
        problems.append(
            f"{name}: bytes were added after the PAdES signature; it no longer "
            "covers the whole file"
        )
    if cert_sha256 != record.signer_cert_sha256:
        problems.append(
            f"{name}: signed by {subject!r} (certificate sha256 {cert_sha256}); the predicate "
            f"records {record.signer_subject!r} ({record.signer_cert_sha256})"
        )
    if record.level == "B-LT" and not long_term:
        problems.append(
            f"{name}: the predicate records PAdES B-LT, but the PDF carries no "
            "revocation data (no /DSS with CRLs or OCSP responses)"
        )
    stamp = status.timestamp_validity
    return PdfSignatureCheck(
        signer_subject=subject,
        signer_cert_sha256=cert_sha256,
        intact=bool(status.intact),
        valid=bool(status.valid),
        covers_whole_file=whole,
        timestamp=stamp.timestamp.isoformat() if stamp is not None else None,
        chain=("trusted" if status.trusted else "untrusted") if roots else "not checked",
        problems=tuple(problems),
    )


def _subject(cert_der: bytes) -> str:
    from cryptography import x509

    return x509.load_der_x509_certificate(cert_der).subject.rfc4514_string()


def compare_signed_rebuild(
    pack: Path,
    rebuilt: Path,
    names: Iterable[str],
    record: PdfSignatureRecord,
    trust_roots: Sequence[Path] = (),
) -> RebuildOutcome:
    """``compare_rebuilt`` for a pack whose PDF carries ``record``'s signature: the rebuilt PDF
    against the signed one's rendered prefix, and the signature over the rest checked."""
    try:
        signed = (pack / record.file).read_bytes()
    except OSError as exc:
        raise InputError(f"{record.file}: cannot read the signed PDF: {exc}") from exc
    check = check_pdf_signature(signed, record, trust_roots)
    prefix = {record.file: record.rendered_bytes}
    outcome = compare_rebuilt(pack, rebuilt, names, prefixes=prefix)
    return outcome.model_copy(update={"pdf_signature": check})
