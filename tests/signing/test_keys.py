"""Key pairs: P-256, the private key PKCS#8-encrypted and 0600, passphrases never empty."""

from __future__ import annotations

import hashlib
import io
import json
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from evidencepack._cli import main
from evidencepack.errors import InputError, InvalidRequest, SigningError
from evidencepack.signing.keys import (
    PASSPHRASE_ENV,
    generate_keypair,
    load_private_key,
    load_public_key,
    read_passphrase,
)


def _never() -> bytes:
    raise AssertionError("an unencrypted key needs no passphrase")


def test_encrypted_pair(tmp_path: Path) -> None:
    pair = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", b"correct horse")
    private_pem = pair.private_key.read_bytes()
    assert private_pem.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert stat.S_IMODE(pair.private_key.stat().st_mode) == 0o600
    assert stat.S_IMODE(pair.public_key.stat().st_mode) == 0o644
    key = load_private_key(pair.private_key, lambda: b"correct horse")
    assert key.curve.name == "secp256r1"
    public = load_public_key(pair.public_key)
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert pair.fingerprint == hashlib.sha256(der).hexdigest()
    assert key.public_key().public_numbers() == public.public_numbers()
    with pytest.raises(SigningError, match=r"cannot load the private key \(wrong passphrase\?\)"):
        load_private_key(pair.private_key, lambda: b"wrong")


def test_unencrypted_pair_needs_no_passphrase(tmp_path: Path) -> None:
    pair = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    assert pair.private_key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert not pair.encrypted
    load_private_key(pair.private_key, _never)


def test_existing_files_are_kept_unless_forced(tmp_path: Path) -> None:
    generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    before = (tmp_path / "k.pem").read_bytes()
    with pytest.raises(InvalidRequest, match="exists; pass force"):
        generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    assert (tmp_path / "k.pem").read_bytes() == before
    generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None, overwrite=True)
    assert (tmp_path / "k.pem").read_bytes() != before
    with pytest.raises(InvalidRequest, match="must differ"):
        generate_keypair(tmp_path / "same", tmp_path / "same", None, overwrite=True)


def test_other_key_types_are_refused(tmp_path: Path) -> None:
    p384 = ec.generate_private_key(ec.SECP384R1())
    (tmp_path / "p384.pem").write_bytes(
        p384.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(SigningError, match="not an ECDSA P-256 private key"):
        load_private_key(tmp_path / "p384.pem", _never)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (tmp_path / "rsa.pub").write_bytes(
        rsa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    with pytest.raises(InputError, match="not an ECDSA public key"):
        load_public_key(tmp_path / "rsa.pub")
    (tmp_path / "junk.pub").write_text("not a key")
    with pytest.raises(InputError, match="not a PEM public key"):
        load_public_key(tmp_path / "junk.pub")
    with pytest.raises(SigningError, match="no such private key file"):
        load_private_key(tmp_path / "missing.pem", _never)


def test_passphrase_from_env_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PASSPHRASE_ENV, "s3cret")
    assert read_passphrase(confirm=True) == b"s3cret"
    monkeypatch.setenv(PASSPHRASE_ENV, "")
    with pytest.raises(InvalidRequest, match="empty passphrase"):
        read_passphrase(confirm=False)
    monkeypatch.delenv(PASSPHRASE_ENV)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(InvalidRequest, match="standard input is not a terminal"):
        read_passphrase(confirm=False)


def test_passphrase_prompt_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    answers = iter(["one", "two"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    with pytest.raises(InvalidRequest, match="the two passphrases differ"):
        read_passphrase(confirm=True)
    answers = iter(["same", "same"])
    assert read_passphrase(confirm=True) == b"same"


def test_keygen_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(PASSPHRASE_ENV, "pipeline secret")
    private, public = tmp_path / "sign.key.pem", tmp_path / "sign.pub.pem"
    args = ["keygen", "--private-key", str(private), "--public-key", str(public), "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["encrypted"] is True
    assert (
        out["fingerprint"]
        == hashlib.sha256(
            load_public_key(public).public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        ).hexdigest()
    )
    load_private_key(private, lambda: b"pipeline secret")
    assert main(args) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    monkeypatch.setenv(PASSPHRASE_ENV, "")
    assert main([*args, "--force"]) == 2
    assert "empty passphrase" in capsys.readouterr().err
    assert main([*args, "--force", "--no-passphrase"]) == 0
    assert "NOT encrypted" not in capsys.readouterr().out  # --json prints JSON only
    assert main(["keygen", "--private-key", str(private), "--public-key", str(public)]) == 2
    load_private_key(private, _never)
