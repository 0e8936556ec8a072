"""A PAdES signature inside the report PDF (``build --pdf-sign-key/--pdf-sign-cert``): made with a
test CA's certificate, validated with pyHanko's own validator, the PDF/A-3b identification and
the attachments kept, ``verify --rebuild`` reproducing the rendered part and checking the rest,
and every bad credential or an unanswering time-stamp authority refused by name."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pypdf import PdfReader

from evidencepack._cli import main
from evidencepack.errors import InputError, InvalidRequest
from evidencepack.pack.predicate import PdfSignatureRecord, load_predicate
from evidencepack.signing import pades
from evidencepack.signing.documents import cross_check
from evidencepack.signing.pades import prepare_pdf_signer
from evidencepack.signing.pades_check import check_pdf_signature
from evidencepack.signing.pades_options import PASSPHRASE_ENV, PdfSignOptions, pdf_sign_options

from ..conftest import REPO_ROOT, SAMPLE_SPEC
from .pades_testing import Pki, local_tsa, make_pki, silent_tsa, write_crl

pytest.importorskip("pyhanko")

PASSPHRASE = "pades test passphrase"
VERIFY_SCHEMA = json.loads((REPO_ROOT / "schemas" / "verify-report.v1.schema.json").read_text())


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def _build(out: Path, key: Path, cert: Path, *extra: str) -> int:
    """`build` of the sample into ``out``, its PDF signed with ``key`` and ``cert``."""
    sign = ["--pdf-sign-key", str(key), "--pdf-sign-cert", str(cert)]
    return main(["build", str(SAMPLE_SPEC), "-o", str(out), *sign, *extra])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, pki: Pki) -> dict[str, Path]:
    """The sample, built with a key signature, its PDF signed B-T through a local TSA; and the
    same sample built unsigned (the rendered PDF, for comparison)."""
    folder = tmp_path_factory.mktemp("pades")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVIDENCEPACK_KEY_PASSPHRASE", PASSPHRASE)
        assert (
            main(
                [
                    "keygen",
                    "--private-key",
                    str(folder / "k.pem"),
                    "--public-key",
                    str(folder / "k.pub"),
                ]
            )
            == 0
        )
        with local_tsa(pki) as url:
            code = _build(
                folder / "pack",
                pki.signer.key_pem,
                pki.signer.cert_pem,
                "--tsa",
                url,
                "--key",
                str(folder / "k.pem"),
            )
    assert code == 0
    return {"pack": folder / "pack", "key": folder / "k.pem", "pub": folder / "k.pub"}


def _validate(pdf: bytes, pki: Pki) -> Any:
    """pyHanko's own validator, trusting the test CA."""
    from asn1crypto import x509
    from cryptography.hazmat.primitives.serialization import Encoding
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    root = x509.Certificate.load(pki.ca.cert.public_bytes(Encoding.DER))
    (embedded,) = PdfFileReader(io.BytesIO(pdf)).embedded_signatures
    context = ValidationContext(trust_roots=[root], allow_fetching=False)
    return validate_pdf_signature(embedded, context, ts_validation_context=context)


def test_the_signed_pdf_validates_with_pyhanko(built: dict[str, Path], pki: Pki) -> None:
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    pdf = (built["pack"] / "report.pdf").read_bytes()
    status = _validate(pdf, pki)
    assert status.intact
    assert status.valid
    assert status.trusted
    assert status.bottom_line
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    assert status.timestamp_validity is not None
    assert status.timestamp_validity.trusted
    assert "Jane Buyer" in status.signing_cert.subject.human_friendly
    record = load_predicate(built["pack"]).pdf_signature
    assert record is not None
    assert record.level == "B-T"
    assert record.signer_cert_sha256 == hashlib.sha256(status.signing_cert.dump()).hexdigest()
    assert record.signer_subject == pki.signer.cert.subject.rfc4514_string()
    # The rendered PDF is a byte prefix: a whole PDF of its own, then the signature's revision.
    rendered = pdf[: record.rendered_bytes]
    assert hashlib.sha256(rendered).hexdigest() == record.rendered_sha256
    assert rendered.rstrip().endswith(b"%%EOF")
    assert b"/ByteRange" not in rendered


def test_pdfa_identification_and_attachments_survive(built: dict[str, Path]) -> None:
    reader = PdfReader(built["pack"] / "report.pdf")
    xmp = reader.trailer["/Root"]["/Metadata"].get_object().get_data().decode()
    assert re.search(r'pdfaid:part(="|>)3', xmp), xmp
    assert re.search(r'pdfaid:conformance(="|>)B', xmp), xmp
    attached = {name: data[0] for name, data in reader.attachments.items()}
    assert set(attached) == {"manifest.json", "decision.json"}
    for name, data in attached.items():
        assert data == (built["pack"] / name).read_bytes(), name
    field = reader.trailer["/Root"]["/AcroForm"]["/Fields"][0].get_object()
    assert field["/FT"] == "/Sig"
    assert [float(x) for x in field["/Rect"]] == [0, 0, 0, 0]
    assert int(field["/F"]) & 4  # printable, as PDF/A requires of every annotation


def _rendered(built: dict[str, Path]) -> bytes:
    """The built pack's report.pdf as rendered: before its signature."""
    record = load_predicate(built["pack"]).pdf_signature
    assert record is not None
    return (built["pack"] / "report.pdf").read_bytes()[: record.rendered_bytes]


def _sign_b_lt(pki: Pki, pdf: bytes, crl: Path) -> tuple[bytes, PdfSignatureRecord]:
    """``pdf`` signed B-LT: time-stamped by the local TSA, with ``crl`` as revocation data."""
    with local_tsa(pki) as url:
        options = PdfSignOptions(
            key=pki.signer.key_pem,
            cert=pki.signer.cert_pem,
            chain=pki.ca.cert_pem,
            tsa=url,
            revocation=(crl,),
        )
        return prepare_pdf_signer(options).sign(pdf)


def test_an_offline_signature_is_pades_b_b(pki: Pki, built: dict[str, Path]) -> None:
    rendered = _rendered(built)
    signer = prepare_pdf_signer(PdfSignOptions(key=pki.signer.key_pem, cert=pki.signer.cert_pem))
    signed, b_b = signer.sign(rendered)
    assert signed.startswith(rendered)
    assert b_b.level == "B-B"
    assert b_b.timestamp_authority is None
    status = _validate(signed, pki)
    assert status.bottom_line
    assert status.timestamp_validity is None
    assert check_pdf_signature(signed, b_b).ok
    claimed_b_lt = b_b.model_copy(update={"level": "B-LT"})
    (problem,) = check_pdf_signature(signed, claimed_b_lt).problems
    assert "records PAdES B-LT, but the PDF carries no revocation data" in problem


def test_revocation_data_makes_a_b_lt_signature_in_one_revision(
    pki: Pki, built: dict[str, Path], tmp_path: Path
) -> None:
    from pyhanko.pdf_utils.reader import PdfFileReader

    rendered = _rendered(built)
    crl = write_crl(pki, tmp_path / "ca.crl")
    signed, b_lt = _sign_b_lt(pki, rendered, crl)
    assert b_lt.level == "B-LT"
    assert signed.startswith(rendered)
    dss = PdfFileReader(io.BytesIO(signed)).root["/DSS"]
    (embedded,) = [c.get_object().data for c in dss["/CRLs"]]
    assert embedded == crl.read_bytes()
    status = _validate(signed, pki)
    assert status.bottom_line
    checked = check_pdf_signature(signed, b_lt)
    assert checked.ok, checked.problems
    assert checked.covers_whole_file  # the DSS is in the signature's own revision


@pytest.mark.parametrize("case", ["revoked", "another CA's CRL"])
def test_revocation_data_that_revokes_or_misses_the_signer_stops_the_signature(
    pki: Pki, built: dict[str, Path], tmp_path: Path, case: str
) -> None:
    if case == "revoked":
        crl = write_crl(pki, tmp_path / "ca.crl", revoked=(pki.signer.cert,))
    else:  # the signer's certificate names a CRL; the one given is not it
        crl = write_crl(make_pki(tmp_path), tmp_path / "other.crl")
    with pytest.raises(InputError, match="pdf_sign_revocation: the certificate chain"):
        _sign_b_lt(pki, _rendered(built), crl)


def test_b_lt_needs_a_time_stamp_the_chain_root_and_real_revocation_files(
    pki: Pki, tmp_path: Path
) -> None:
    crl = write_crl(pki, tmp_path / "ca.crl")
    key, cert = pki.signer.key_pem, pki.signer.cert_pem
    with pytest.raises(InvalidRequest, match="pdf_sign_revocation makes a PAdES B-LT .* give tsa"):
        pdf_sign_options(key, cert, pki.ca.cert_pem, None, (crl,))
    rootless = PdfSignOptions(key=key, cert=cert, tsa="http://127.0.0.1:9/", revocation=(crl,))
    with pytest.raises(InputError, match="must hold its root certificate"):
        prepare_pdf_signer(rootless)
    bogus = tmp_path / "not-a-crl.der"
    bogus.write_bytes(b"0\x03\x02\x01\x00")
    options = PdfSignOptions(key, cert, pki.ca.cert_pem, "http://127.0.0.1:9/", (bogus,))
    with pytest.raises(InputError, match=f"pdf_sign_revocation {bogus}: neither a CRL"):
        prepare_pdf_signer(options)


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["verify", *args, "--json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, VERIFY_SCHEMA)
    return code, report


@pytest.mark.real_pdf  # the rebuild reproduces the rendered PDF byte for byte
def test_verify_rebuild_reproduces_the_rendered_part_and_checks_the_signature(
    built: dict[str, Path], pki: Pki, capsys: pytest.CaptureFixture[str]
) -> None:
    pack, pub = str(built["pack"]), str(built["pub"])
    args = (pack, "--key", pub, "--rebuild", "--pdf-trust-root", str(pki.ca.cert_pem))
    code, report = _verify(capsys, *args)
    assert code == 0, report
    assert report["ok"]
    assert report["checks"]["rebuild"] == "passed"
    assert "report.pdf" in report["rebuild"]["compared"]
    checked = report["rebuild"]["pdf_signature"]
    assert checked["chain"] == "trusted"
    assert checked["problems"] == []
    assert checked["signer_subject"] == pki.signer.cert.subject.rfc4514_string()
    assert checked["timestamp"] is not None


def _resigned_with(
    built: dict[str, Path], tmp_path: Path, pdf: bytes, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A copy of the built pack with ``pdf`` as its report.pdf, signed again by its key."""
    pack = tmp_path / "pack"
    shutil.copytree(built["pack"], pack)
    (pack / "report.pdf").write_bytes(pdf)
    monkeypatch.setenv("EVIDENCEPACK_KEY_PASSPHRASE", PASSPHRASE)
    assert main(["sign", str(pack), "--key", str(built["key"]), "--force"]) == 0
    return pack


def test_bytes_added_after_the_signature_fail_the_rebuild(
    built: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pdf = (built["pack"] / "report.pdf").read_bytes() + b"\n% appended after signing\n"
    pack = _resigned_with(built, tmp_path, pdf, monkeypatch)
    code, report = _verify(capsys, str(pack), "--key", str(built["pub"]), "--rebuild")
    assert code == 1
    assert not report["ok"]
    assert report["checks"]["documents"] == "passed"  # still the recorded rendering, signed
    problems = report["rebuild"]["pdf_signature"]["problems"]
    assert any("no longer covers the whole file" in p for p in problems), problems
    assert report["rebuild"]["differing"] == []  # the rendered part still reproduces


def test_verify_names_a_stripped_signature_even_when_the_pack_is_re_signed(
    built: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pack = _resigned_with(built, tmp_path, _rendered(built), monkeypatch)
    code, report = _verify(capsys, str(pack), "--key", str(built["pub"]))
    assert code == 1
    assert report["checks"]["documents"] == "failed"
    (found,) = report["contradictions"]
    assert found["document"] == "predicate.json"
    assert found["field"] == "pdf_signature.signed"
    assert found["other_value"] == "false"


def test_a_changed_byte_in_the_signed_revision_breaks_the_signature(
    built: dict[str, Path],
) -> None:
    pdf = (built["pack"] / "report.pdf").read_bytes()
    record = load_predicate(built["pack"]).pdf_signature
    assert record is not None
    assert check_pdf_signature(pdf, record).ok
    at = pdf.index(b"/Producer (WeasyPrint", record.rendered_bytes)  # the signed Info dict
    forged = pdf[:at] + pdf[at:].replace(b"WeasyPrint", b"WeasyPrinT", 1)
    found = check_pdf_signature(forged, record)
    assert not found.ok
    assert not found.intact
    assert any("does not match the signed bytes" in p for p in found.problems), found.problems


def test_a_stripped_or_added_signature_contradicts_the_predicate(built: dict[str, Path]) -> None:
    pack = built["pack"]
    predicate = load_predicate(pack)
    record = predicate.pdf_signature
    assert record is not None
    pdf = (pack / "report.pdf").read_bytes()
    stripped = pdf[: record.rendered_bytes]
    assert cross_check(predicate, {"report.pdf": pdf}) == []
    (found,) = cross_check(predicate, {"report.pdf": stripped})
    assert found.message == (
        "predicate.json: pdf_signature.signed is true; report.pdf: PAdES signature.signed is false"
    )
    assert "the signature was stripped" in check_pdf_signature(stripped, record).problems[0]
    unsigned = predicate.model_copy(update={"pdf_signature": None})
    (added,) = cross_check(unsigned, {"report.pdf": pdf})
    assert added.message == (
        "predicate.json: pdf_signature.signed is false; report.pdf: PAdES signature.signed is true"
    )
    assert cross_check(unsigned, {"report.pdf": stripped}) == []


@pytest.mark.parametrize(
    ("which", "option", "words"),
    [
        ("expired", "--pdf-sign-cert", "expired on"),
        ("no_signing_usage", "--pdf-sign-cert", "neither digitalSignature nor nonRepudiation"),
        ("wrong_key", "--pdf-sign-key", "does not match the certificate"),
    ],
)
def test_a_bad_credential_stops_the_build_naming_the_option_and_file(
    pki: Pki,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    which: str,
    option: str,
    words: str,
) -> None:
    if which == "wrong_key":
        key, cert = pki.expired.key_pem, pki.signer.cert_pem
    else:
        issued = getattr(pki, which)
        key, cert = issued.key_pem, issued.cert_pem
    out = tmp_path / "pack"
    code = _build(out, key, cert)
    err = capsys.readouterr().err
    assert code == 1, err
    named = key if option == "--pdf-sign-key" else cert
    assert f"{option} {named}" in err, err
    assert words in err, err
    assert not out.exists()


def test_half_given_pdf_signing_options_are_a_usage_error(
    pki: Pki, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "pack")
    assert (
        main(["build", str(SAMPLE_SPEC), "-o", out, "--pdf-sign-key", str(pki.signer.key_pem)]) == 2
    )
    assert "--pdf-sign-cert is missing" in capsys.readouterr().err
    assert main(["build", str(SAMPLE_SPEC), "-o", out, "--tsa", "http://127.0.0.1:9/"]) == 2
    assert "--tsa needs --pdf-sign-key" in capsys.readouterr().err


def test_an_encrypted_key_opens_with_the_passphrase_variable(
    pki: Pki,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cryptography.hazmat.primitives import serialization

    from evidencepack.signing.pades_credentials import load_credentials

    encrypted = tmp_path / "encrypted.key.pem"
    encrypted.write_bytes(
        pki.signer.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"document signing"),
        )
    )
    options = PdfSignOptions(key=encrypted, cert=pki.signer.cert_pem)
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    with pytest.raises(
        InputError, match=f"{encrypted}: .*it is encrypted: set \\${PASSPHRASE_ENV}"
    ):
        load_credentials(options)
    monkeypatch.setenv(PASSPHRASE_ENV, "document signing")
    assert load_credentials(options).subject == pki.signer.cert.subject.rfc4514_string()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert f"${PASSPHRASE_ENV}" in capsys.readouterr().out.replace("\n", " ")


def test_the_api_refuses_half_given_pdf_signing_options(pki: Pki, tmp_path: Path) -> None:
    from evidencepack import api

    half = api.BuildOptions(pdf_sign=api.PdfSignSpec(cert=pki.signer.cert_pem))
    with pytest.raises(InvalidRequest, match="both pdf_sign_key and pdf_sign_cert"):
        api.build(SAMPLE_SPEC, tmp_path / "pack", half)
    stamped = api.BuildOptions(pdf_sign=api.PdfSignSpec(tsa="http://127.0.0.1:9/"))
    with pytest.raises(InvalidRequest, match="tsa needs pdf_sign_key and pdf_sign_cert"):
        api.build(SAMPLE_SPEC, tmp_path / "pack", stamped)
    assert not (tmp_path / "pack").exists()


def test_a_tsa_that_does_not_answer_fails_the_build_and_publishes_nothing(
    pki: Pki,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pades, "TSA_TIMEOUT_SECONDS", 1)
    out = tmp_path / "pack"
    with silent_tsa() as url:
        code = _build(out, pki.signer.key_pem, pki.signer.cert_pem, "--archive", "--tsa", url)
    err = capsys.readouterr().err
    assert code == 3, err
    assert f"--tsa {url}: the time-stamp authority did not answer" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no pack, no archive, no staging
