"""Verifying packs offline: identity policy, every changed/added/removed file, lone files, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from evidencepack._cli import main
from evidencepack.core.provenance import sha256_file
from evidencepack.core.resources import schemas_dir
from evidencepack.pack.layout import BUNDLE_NAME, SIGNATURE_NAMES
from evidencepack.pack.predicate import PREDICATE_TYPE
from evidencepack.signing.keyless import load_trust_root
from evidencepack.signing.keys import generate_keypair, load_public_key
from evidencepack.signing.verify import (
    KeylessPolicy,
    KeyPolicy,
    VerifyPolicy,
    VerifyReport,
    format_report,
    verify_file,
    verify_pack,
)

from ..packs import another_pack
from ..sigstore_testing.fixtures import IDENTITY, ISSUER, KeylessPack, KeyPack


def _keyless(signed: KeylessPack, identity: str = IDENTITY, issuer: str = ISSUER) -> KeylessPolicy:
    return KeylessPolicy(identity, issuer, load_trust_root(signed.trusted_root))


def _key(signed: KeyPack) -> KeyPolicy:
    return KeyPolicy(load_public_key(signed.keys.public_key))


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in SIGNATURE_NAMES)


def test_keyless_pack_passes_with_the_right_identity(keyless_pack: KeylessPack) -> None:
    report = verify_pack(keyless_pack.folder, _keyless(keyless_pack))
    assert report.ok, report.problems
    assert report.files_checked == len(_files(keyless_pack.folder))
    signer = report.signer
    assert signer is not None
    assert (signer.mode, signer.identity, signer.issuer) == ("keyless", IDENTITY, ISSUER)
    assert signer.time_source == "transparency_log"
    assert signer.signed_at is not None
    assert abs((signer.signed_at - keyless_pack.sigstore.clock()).total_seconds()) < 60
    assert signer.log_index == 0
    assert report.predicate_type == PREDICATE_TYPE
    assert report.decision == keyless_pack.predicate.decision
    assert report.trust_root is not None
    # the verdict statements, signed keyless by the same certificate identity, check too
    assert report.checks.verdicts == "passed"
    assert [v.says for v in report.verdicts] == [("EVIDENCEPACK_DECISION_PASS",), ("PASSED",)]
    assert report.trust_root.sha256 == sha256_file(keyless_pack.trusted_root)
    text = format_report(report)
    assert (
        text.splitlines()[0] == f"OK: pack {keyless_pack.folder} ({report.files_checked} file(s))"
    )
    assert f"signer       {IDENTITY}" in text
    assert f"issuer       {ISSUER}" in text
    assert "log index    0" in text


@pytest.mark.parametrize(
    ("identity", "issuer", "message"),
    [
        ("https://github.com/acme/other/.github/workflows/x.yml@refs/heads/main", ISSUER, "SANs"),
        (IDENTITY, "https://accounts.google.com", "OIDCIssuer does not match"),
    ],
)
def test_keyless_pack_fails_with_another_identity_or_issuer(
    keyless_pack: KeylessPack, identity: str, issuer: str, message: str
) -> None:
    report = verify_pack(keyless_pack.folder, _keyless(keyless_pack, identity, issuer))
    assert not report.ok
    assert message in report.problems[0]
    assert report.files_checked == 0  # nothing is trusted from an unverified statement


def test_keyless_pack_fails_against_another_instances_root(
    keyless_pack: KeylessPack, tmp_path: Path
) -> None:
    from ..sigstore_testing.instance import LocalSigstore

    other = LocalSigstore().write_trusted_root(tmp_path / "other_root.json")
    policy = KeylessPolicy(IDENTITY, ISSUER, load_trust_root(other))
    report = verify_pack(keyless_pack.folder, policy)
    assert not report.ok
    assert "certificate chain" in report.problems[0]


def _tamper_each_file(folder: Path, policy: VerifyPolicy) -> None:
    """Flip one byte of every pack file in turn: each is reported changed, with both digests."""
    for path in _files(folder):
        original = path.read_bytes()
        expected = sha256_file(path)
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        report = verify_pack(folder, policy)
        name = path.relative_to(folder).as_posix()
        assert not report.ok, name
        assert [(m.path, m.expected_sha256, m.actual_sha256) for m in report.changed] == [
            (name, expected, sha256_file(path))
        ]
        assert not report.missing
        assert not report.extra
        path.write_bytes(original)
    assert verify_pack(folder, policy).ok


def test_one_changed_byte_in_any_file_fails_keyless(keyless_pack: KeylessPack) -> None:
    _tamper_each_file(keyless_pack.folder, _keyless(keyless_pack))


def test_one_changed_byte_in_any_file_fails_key(key_pack: KeyPack) -> None:
    _tamper_each_file(key_pack.folder, _key(key_pack))


@pytest.mark.parametrize("mode", ["key", "keyless"])
def test_added_and_removed_files_fail(
    mode: str, key_pack: KeyPack, keyless_pack: KeylessPack
) -> None:
    if mode == "key":
        folder, policy = key_pack.folder, _key(key_pack)
    else:
        folder, policy = keyless_pack.folder, _keyless(keyless_pack)
    (folder / "inputs" / "smuggled.txt").write_text("not signed\n")
    removed = folder / "decision.json"
    removed_digest = sha256_file(removed)
    removed.unlink()
    report = verify_pack(folder, policy)
    assert not report.ok
    assert [(m.path, m.actual_sha256) for m in report.extra] == [
        ("inputs/smuggled.txt", sha256_file(folder / "inputs" / "smuggled.txt"))
    ]
    assert [(m.path, m.expected_sha256) for m in report.missing] == [
        ("decision.json", removed_digest)
    ]
    text = format_report(report)
    assert text.startswith("FAIL: pack")
    assert f"missing      decision.json  expected {removed_digest}" in text
    assert "extra        inputs/smuggled.txt  actual " in text


def test_a_symlink_added_to_a_signed_pack_fails(key_pack: KeyPack, tmp_path: Path) -> None:
    (key_pack.folder / "report-link.pdf").symlink_to(key_pack.folder / "report.pdf")
    report = verify_pack(key_pack.folder, _key(key_pack))
    assert not report.ok
    assert report.problems == ("report-link.pdf: symbolic link (packs hold regular files only)",)


def test_a_bundle_from_another_pack_fails(
    key_pack: KeyPack, tmp_path: Path, shared_data: Path
) -> None:
    from evidencepack.signing.keyed import KeySigner
    from evidencepack.signing.sign import sign_pack

    other, predicate = another_pack(
        tmp_path / "other", shared_data, key_pack.folder, key_pack.predicate.toolchain
    )
    # Same signer, so the signature itself verifies: only the file check can catch it.
    sign_pack(other, predicate, KeySigner.from_file(key_pack.keys.private_key, lambda: b"pw"))
    shutil.copyfile(other / BUNDLE_NAME, key_pack.folder / BUNDLE_NAME)
    report = verify_pack(key_pack.folder, _key(key_pack))
    assert not report.ok
    assert [m.path for m in report.changed] == ["report.pdf"]


def test_a_changed_bundle_fails(key_pack: KeyPack, keyless_pack: KeylessPack) -> None:
    for folder, policy in (
        (key_pack.folder, _key(key_pack)),
        (keyless_pack.folder, _keyless(keyless_pack)),
    ):
        bundle = json.loads((folder / BUNDLE_NAME).read_text())
        signature = bundle["dsseEnvelope"]["signatures"][0]
        sig = bytearray(__import__("base64").b64decode(signature["sig"]))
        sig[-1] ^= 0x01
        signature["sig"] = __import__("base64").b64encode(bytes(sig)).decode()
        (folder / BUNDLE_NAME).write_text(json.dumps(bundle))
        report = verify_pack(folder, policy)
        assert not report.ok
        assert report.signer is None
        (folder / BUNDLE_NAME).write_text("{not json")
        report = verify_pack(folder, policy)
        assert "not a Sigstore bundle" in report.problems[0]
        (folder / BUNDLE_NAME).unlink()
        report = verify_pack(folder, policy)
        assert "no such bundle (the pack is not signed)" in report.problems[0]


def test_wrong_key_and_wrong_mode_fail(
    key_pack: KeyPack, keyless_pack: KeylessPack, tmp_path: Path
) -> None:
    other = generate_keypair(tmp_path / "o.pem", tmp_path / "o.pub.pem", None)
    report = verify_pack(key_pack.folder, KeyPolicy(load_public_key(other.public_key)))
    assert "does not verify with the given public key" in report.problems[0]
    report = verify_pack(keyless_pack.folder, _key(key_pack))
    assert "signed keyless" in report.problems[0]
    report = verify_pack(key_pack.folder, _keyless(keyless_pack))
    assert "signed with a key" in report.problems[0]


def test_lone_pdf_verifies_for_procurement(
    keyless_pack: KeylessPack, key_pack: KeyPack, tmp_path: Path
) -> None:
    pdf = tmp_path / "Evidence pack.pdf"  # renamed by whoever mailed it: the name is a label
    shutil.copyfile(keyless_pack.folder / "report.pdf", pdf)
    report = verify_file(pdf, keyless_pack.folder / BUNDLE_NAME, _keyless(keyless_pack))
    assert report.ok, report.problems
    assert report.matched_subjects == ("report.pdf",)
    assert report.decision == keyless_pack.predicate.decision
    wrong = verify_file(
        pdf, keyless_pack.folder / BUNDLE_NAME, _keyless(keyless_pack, IDENTITY, "https://x")
    )
    assert not wrong.ok
    shutil.copyfile(key_pack.folder / "report.pdf", tmp_path / "report.pdf")
    assert verify_file(tmp_path / "report.pdf", key_pack.folder / BUNDLE_NAME, _key(key_pack)).ok
    with (tmp_path / "report.pdf").open("ab") as handle:
        handle.write(b"\n% appended\n")
    report = verify_file(tmp_path / "report.pdf", key_pack.folder / BUNDLE_NAME, _key(key_pack))
    assert not report.ok
    assert [(m.path, m.expected_sha256) for m in report.changed] == [
        ("report.pdf", sha256_file(key_pack.folder / "report.pdf"))
    ]


def test_stock_sigstore_cli_verifies_a_lone_pack_file(keyless_pack: KeylessPack) -> None:
    """``sigstore verify identity`` (unmodified, offline via --trust-config) accepts a pack
    file with the pack's bundle, and rejects a changed one."""

    def stock(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "sigstore",
                "--trust-config",
                str(keyless_pack.trust_config),
                "verify",
                "identity",
                "--offline",
                "--bundle",
                str(keyless_pack.folder / BUNDLE_NAME),
                "--cert-identity",
                IDENTITY,
                "--cert-oidc-issuer",
                ISSUER,
                str(path),
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    done = stock(keyless_pack.folder / "report.pdf")
    assert done.returncode == 0, done.stderr
    assert "OK: " in done.stderr + done.stdout
    changed = keyless_pack.folder / "report.html"
    changed.write_bytes(changed.read_bytes() + b" ")
    done = stock(changed)
    assert done.returncode != 0
    assert "has no subject for digest" in done.stderr + done.stdout


def test_verify_command_exit_codes_and_json(
    keyless_pack: KeylessPack, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(keyless_pack.folder)
    root = ["--trusted-root", str(keyless_pack.trusted_root)]
    who = ["--cert-identity", IDENTITY, "--cert-oidc-issuer", ISSUER]
    assert main(["verify", folder, *who, *root, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    schema = json.loads((schemas_dir() / "verify-report.v1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(data)
    assert VerifyReport.model_validate(data).ok
    assert data["apiVersion"] == "evidencepack/verify/v1"
    # The client trust config holding the root works as --trusted-root too.
    assert main(["verify", folder, *who, "--trusted-root", str(keyless_pack.trust_config)]) == 0
    assert capsys.readouterr().out.startswith("OK: ")
    (keyless_pack.folder / "report.pdf").write_bytes(b"%PDF-1.7 swapped")
    assert main(["verify", folder, *who, *root]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL: ")
    assert "changed      report.pdf  expected " in out
    # Usage errors: a half policy, two policies, one file without its bundle.
    assert main(["verify", folder, "--cert-identity", IDENTITY, *root]) == 2
    assert main(["verify", folder, *who, "--key", "k.pub", *root]) == 2
    assert main(["verify", str(keyless_pack.folder / "report.html"), *who, *root]) == 2
    err = capsys.readouterr().err
    assert "--cert-identity and --cert-oidc-issuer (both)" in err
    assert "pass the pack's bundle" in err
    assert main(["verify", folder, *who, "--trusted-root", "/no/such/root.json"]) == 3
    assert "cannot read the trusted root" in capsys.readouterr().err
    assert main(["verify", f"{folder}-gone", *who, *root]) == 1
    assert "-gone: no such file or folder" in capsys.readouterr().err


def test_verify_command_on_one_file(
    keyless_pack: KeylessPack, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "verify",
        str(keyless_pack.folder / "report.pdf"),
        "--bundle",
        str(keyless_pack.folder / BUNDLE_NAME),
        "--cert-identity",
        IDENTITY,
        "--cert-oidc-issuer",
        ISSUER,
        "--trusted-root",
        str(keyless_pack.trusted_root),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"OK: file {keyless_pack.folder / 'report.pdf'}")
    assert "subject      report.pdf" in out
