"""A keyless pack's report names its signer: ``build --sign`` over loopback against the local
Sigstore instance, checked against the bundle's own certificate, verified with the commands the
report prints and rebuilt byte for byte; a renewal naming someone else and hostile names are
refused or shown as text."""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import jwt
import pypdf
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from sigstore import dsse
from sigstore.models import Bundle
from sigstore.oidc import IdentityToken

from evidencepack._cli import main
from evidencepack.errors import VerificationError
from evidencepack.pack.layout import BUNDLE_NAME
from evidencepack.pipeline import rebuild

from ..conftest import SAMPLE_SPEC
from ..render.scan import assert_names_keyless_signer, scan
from ..sigstore_testing.ca import OIDC_ISSUER_OID
from ..sigstore_testing.fixtures import IDENTITY, ISSUER, WORKFLOW_REF
from ..sigstore_testing.instance import LocalSigstore
from ..sigstore_testing.oidc import github_token_service
from ..sigstore_testing.server import serve

# slow: each test builds and signs the sample keyless over loopback (a local Sigstore)
pytestmark = pytest.mark.slow

OTHER_WORKFLOW = "acme/someone-else/.github/workflows/release.yml@refs/heads/main"


@dataclass(frozen=True)
class Built:
    out: Path
    exit_code: int
    err: str
    trusted_root: Path


def _build_sign(
    local: LocalSigstore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    token: str | None,
) -> Built:
    """``evidencepack build --sign``: the real Fulcio and Rekor HTTP clients against the local
    instance on loopback; ``token=None`` takes the ambient (GitHub Actions) credential."""
    out = tmp_path / "pack"
    capsys.readouterr()
    with serve(local) as url:
        config = tmp_path / "config.json"
        config.write_text(json.dumps(local.trust_config_json(url, url)))
        argv = ["build", str(SAMPLE_SPEC), "-o", str(out), "--sign", "--trust-config", str(config)]
        if token is not None:
            argv += ["--identity-token", token]
        code = main(argv)
    err = capsys.readouterr().err
    return Built(out, code, err, local.write_trusted_root(tmp_path / "root.json"))


def _certificate(pack: Path) -> x509.Certificate:
    return Bundle.from_json((pack / BUNDLE_NAME).read_bytes()).signing_certificate


def _certificate_names(pack: Path) -> tuple[str, str]:
    """The SAN and OIDC issuer of the bundle's certificate, read with cryptography alone."""
    cert = _certificate(pack)
    (name,) = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    issuer = cert.extensions.get_extension_for_oid(OIDC_ISSUER_OID).value
    assert isinstance(issuer, x509.UnrecognizedExtension)
    assert isinstance(name.value, str)
    return name.value, issuer.value.decode()


def _verify_box(html: str) -> dict[str, str]:
    """The rows of the report's "How to verify this pack" box, as a reader sees their text."""
    section = html[html.index('<section id="sec-verify"') :]
    rows = re.findall(r"<tr><th>(.*?)</th><td[^>]*>(.*?)</td></tr>", section, re.S)
    return {th: scan(td).all_text() for th, td in rows}


def _run_printed(command: str, pack: Path, trusted_root: Path) -> int:
    """Run a verify command as printed in the report, on this pack, offline."""
    args = shlex.split(command)
    assert args[:2] == ["evidencepack", "verify"]
    where = {"pack/": pack, "report.pdf": pack / "report.pdf", BUNDLE_NAME: pack / BUNDLE_NAME}
    return main([str(where.get(a, a)) for a in args[1:]] + ["--trusted-root", str(trusted_root)])


# The rebuild's report PDF comes from the session's cache when every input of its render (HTML
# with the signer line read from the bundle, attachments, date) is the build's: exactly what a
# keyless rebuild must reproduce. WeasyPrint's own determinism (two renders, same bytes) is
# shown by the real_pdf rebuild tests (tests/signing/test_signed_pack.py, test_pades.py).
def test_report_names_the_certificates_signer_and_its_commands_verify(
    local_sigstore: LocalSigstore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    built = _build_sign(local_sigstore, tmp_path, capsys, token)
    assert built.exit_code == 0, built.err
    identity, issuer = _certificate_names(built.out)
    assert (identity, issuer) == (IDENTITY, ISSUER)
    # Fulcio names the workflow that ran, not the token's subject: the report must say the former.
    assert identity != jwt.decode(token, options={"verify_signature": False})["sub"]

    html = (built.out / "report.html").read_text()
    assert_names_keyless_signer(html, identity, issuer)
    options = f"--cert-identity {identity} --cert-oidc-issuer {issuer}"
    page1 = "".join(pypdf.PdfReader(built.out / "report.pdf").pages[0].extract_text().split())
    assert f"Signer:keylessSigstoresignatureby{identity}(OIDCissuer{issuer})" in page1

    box = _verify_box(html)
    assert box["Identity"].startswith(
        f"The Fulcio certificate in pack.sigstore.json names the identity {identity} and the "
        f"OIDC issuer {issuer}"
    )
    assert (
        f"sigstore verify identity --bundle pack.sigstore.json {options} report.pdf"
        in (box["Identity"])
    )
    for row in ("A pack folder", "This PDF on its own"):
        assert options in box[row]
        assert _run_printed(box[row], built.out, built.trusted_root) == 0, row
        assert capsys.readouterr().out.startswith("OK: ")
    # The rebuild states the same signer, read from the bundle: byte-identical report.
    assert _run_printed(box["Reproduce the report"], built.out, built.trusted_root) == 0
    assert (
        "rebuild      OK: decision.json, manifest.json, report.html, report.pdf reproduced "
        "byte for byte" in (capsys.readouterr().out)
    )

    # A bundle whose certificate names a bidi-laden issuer is refused by the rebuild, not shown.
    statement = json.loads((built.out / BUNDLE_NAME).read_text())["dsseEnvelope"]["payload"]
    hostile = local_sigstore.identity_token(
        issuer="https://idp.example/\u202elive.gro", email="signer@example.com"
    )
    signing = local_sigstore.signing_context()
    with signing.signer(IdentityToken(hostile), cache=True) as signer:
        bundle = signer.sign_dsse(dsse.Statement(base64.b64decode(statement)))
    (built.out / BUNDLE_NAME).write_text(bundle.to_json())
    with pytest.raises(VerificationError, match=r"OIDC issuer .*U\+202E"):
        rebuild(built.out)


def _first_certificate_expiring(
    local: LocalSigstore, monkeypatch: pytest.MonkeyPatch
) -> list[x509.Certificate]:
    """Record what the local Fulcio issues; the first certificate expires 20 s from now, as if
    rendering had taken most of its ten minutes."""
    issued: list[x509.Certificate] = []
    issue = local.ca.issue

    def recorded(
        key: ec.EllipticCurvePublicKey, san: x509.GeneralName, issuer: str, now: dt.datetime
    ) -> x509.Certificate:
        if not issued:
            now -= dt.timedelta(minutes=10) - dt.timedelta(seconds=20)
        issued.append(issue(key, san, issuer, now))
        return issued[-1]

    monkeypatch.setattr(local.ca, "issue", recorded)
    return issued


def test_an_expiring_certificate_is_renewed_for_the_same_signer(
    local_sigstore: LocalSigstore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    issued = _first_certificate_expiring(local_sigstore, monkeypatch)
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    with github_token_service([token, token], monkeypatch):
        built = _build_sign(local_sigstore, tmp_path, capsys, None)
    assert built.exit_code == 0, built.err
    assert len(issued) == 2
    assert _certificate(built.out) == issued[1]
    assert _certificate_names(built.out) == (IDENTITY, ISSUER)
    assert_names_keyless_signer((built.out / "report.html").read_text(), IDENTITY, ISSUER)
    args = ["verify", str(built.out), "--cert-identity", IDENTITY, "--cert-oidc-issuer", ISSUER]
    assert main([*args, "--trusted-root", str(built.trusted_root)]) == 0


def test_a_renewal_naming_someone_else_is_refused(
    local_sigstore: LocalSigstore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The report was rendered naming the first certificate's identity; the credential renewed
    after it expired names another workflow: nothing is signed and nothing is published."""
    issued = _first_certificate_expiring(local_sigstore, monkeypatch)
    first = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    second = local_sigstore.identity_token(workflow_ref=OTHER_WORKFLOW)
    with github_token_service([first, second], monkeypatch):
        built = _build_sign(local_sigstore, tmp_path, capsys, None)
    assert built.exit_code == 3
    assert len(issued) == 2
    assert "keyless signing refused: the signing certificate expired before signing" in built.err
    assert f"https://github.com/{OTHER_WORKFLOW}" in built.err
    assert IDENTITY in built.err
    assert not built.out.exists()
    assert local_sigstore.log.leaves == []


@pytest.mark.no_pdf  # reads the report's HTML; verify hashes the pack's files (tests/pdf_cache.py)
def test_a_hostile_identity_is_text_in_the_report_and_quoted_in_its_commands(
    local_sigstore: LocalSigstore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    email = '"<script>alert(1)</script>$(touch pwned)"@example.com'
    issuer = "https://idp.example/'><img src=x>"
    token = local_sigstore.identity_token(issuer=issuer, email=email)
    built = _build_sign(local_sigstore, tmp_path, capsys, token)
    assert built.exit_code == 0, built.err
    assert _certificate_names(built.out) == (email, issuer)
    html = (built.out / "report.html").read_text()
    assert "<script" not in html
    assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    box = _verify_box(html)
    assert shlex.split(box["A pack folder"])[3:] == [
        "--cert-identity",
        email,
        "--cert-oidc-issuer",
        issuer,
    ]
    assert _run_printed(box["A pack folder"], built.out, built.trusted_root) == 0


def test_a_bidi_issuer_is_refused_before_anything_is_built(
    local_sigstore: LocalSigstore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = local_sigstore.identity_token(
        issuer="https://idp.example/\u202elive.gro", email="signer@example.com"
    )
    built = _build_sign(local_sigstore, tmp_path, capsys, token)
    assert built.exit_code == 3
    assert "keyless signing refused: the Fulcio certificate names an OIDC issuer" in built.err
    assert "U+202E" in built.err
    assert not built.out.exists()
    assert local_sigstore.log.leaves == []
