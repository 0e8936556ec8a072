"""Signing: key bundles, keyless bundles by the real ``Signer.sign_dsse``, credentials, failures."""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from sigstore.models import Bundle
from sigstore.verify import Verifier
from sigstore.verify.policy import Identity

from evidencepack._cli import main
from evidencepack.errors import InputError, SigningError
from evidencepack.pack.layout import BUNDLE_NAME
from evidencepack.pack.predicate import PackPredicate
from evidencepack.signing.keyless import IDENTITY_TOKEN_ENV, KeylessSigner
from evidencepack.signing.keys import PASSPHRASE_ENV
from evidencepack.signing.sign import sign_pack
from evidencepack.signing.statement import PAYLOAD_TYPE, build_statement, statement_bytes

from ..packs import another_pack
from ..sigstore_testing.fixtures import IDENTITY, ISSUER, WORKFLOW_REF, KeylessPack, KeyPack
from ..sigstore_testing.instance import LocalSigstore
from ..sigstore_testing.oidc import github_token_service
from ..sigstore_testing.server import serve

Pack = tuple[Path, PackPredicate]
_AMBIENT_ENV = (
    "GITHUB_ACTIONS",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "GOOGLE_SERVICE_ACCOUNT_NAME",
    "BUILDKITE",
    "GITLAB_CI",
    "CIRCLECI",
    IDENTITY_TOKEN_ENV,
)


@pytest.fixture
def no_ambient(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _AMBIENT_ENV:
        monkeypatch.delenv(name, raising=False)


def _bundle(folder: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((folder / BUNDLE_NAME).read_text())
    return data


def test_key_bundle_is_v03_dsse_with_a_key_hint_and_no_log(key_pack: KeyPack) -> None:
    bundle = _bundle(key_pack.folder)
    assert bundle["mediaType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"
    assert bundle["verificationMaterial"] == {
        "publicKey": {"hint": key_pack.keys.fingerprint},
        "tlogEntries": [],
    }
    envelope = bundle["dsseEnvelope"]
    assert isinstance(envelope, dict)
    assert envelope["payloadType"] == PAYLOAD_TYPE
    assert len(envelope["signatures"]) == 1
    expected = statement_bytes(build_statement(key_pack.folder, key_pack.predicate))
    assert base64.b64decode(envelope["payload"]) == expected


def test_keyless_bundle_from_the_real_signer_verifies_with_the_real_verifier(
    keyless_pack: KeylessPack,
) -> None:
    raw = (keyless_pack.folder / BUNDLE_NAME).read_bytes()
    bundle = Bundle.from_json(raw)
    san = bundle.signing_certificate.extensions.get_extension_for_class(
        x509.SubjectAlternativeName
    ).value
    assert san.get_values_for_type(x509.UniformResourceIdentifier) == [IDENTITY]
    entry = json.loads(raw)["verificationMaterial"]["tlogEntries"][0]
    assert entry["kindVersion"] == {"kind": "dsse", "version": "0.0.1"}
    assert entry["inclusionPromise"]["signedEntryTimestamp"]
    assert entry["inclusionProof"]["checkpoint"]["envelope"].startswith("rekor.local - 1\n")
    verifier = Verifier(trusted_root=keyless_pack.sigstore.trusted_root())
    payload_type, payload = verifier.verify_dsse(bundle, Identity(identity=IDENTITY, issuer=ISSUER))
    assert payload_type == PAYLOAD_TYPE
    assert payload == statement_bytes(build_statement(keyless_pack.folder, keyless_pack.predicate))
    with pytest.raises(Exception, match="SANs do not match"):
        verifier.verify_dsse(bundle, Identity(identity="https://github.com/evil", issuer=ISSUER))


def test_a_second_pack_gets_the_next_log_index(
    keyless_pack: KeylessPack, tmp_path: Path, shared_data: Path
) -> None:
    other, predicate = another_pack(
        tmp_path / "second", shared_data, keyless_pack.folder, keyless_pack.predicate.toolchain
    )
    local = keyless_pack.sigstore
    token = local.identity_token(workflow_ref=WORKFLOW_REF)
    sign_pack(other, predicate, KeylessSigner(token, context=local.signing_context()))
    first = _bundle(keyless_pack.folder)["verificationMaterial"]["tlogEntries"][0]  # type: ignore[index]
    second = _bundle(other)["verificationMaterial"]["tlogEntries"][0]  # type: ignore[index]
    # Each pack logs three entries: its statement, then its SVR and test-result statements.
    assert (first["logIndex"], second["logIndex"]) == ("0", "3")
    assert second["inclusionProof"]["treeSize"] == "4"


def test_sign_refuses_a_predicate_that_differs_from_the_packs(pack: Pack) -> None:
    folder, predicate = pack
    other = predicate.model_copy(update={"created_at": "2027-01-01"})
    with pytest.raises(InputError, match="differs from the predicate being signed"):
        sign_pack(folder, other, KeylessSigner("unused"))
    assert not (folder / BUNDLE_NAME).exists()


@pytest.fixture
def github_oidc(local_sigstore: LocalSigstore, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A loopback stand-in for the Actions token service, with the env `id-token: write` sets."""
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    with github_token_service([token], monkeypatch):
        yield


@pytest.mark.usefixtures("github_oidc")
def test_ambient_github_actions_credential_signs(pack: Pack, local_sigstore: LocalSigstore) -> None:
    folder, predicate = pack
    sign_pack(folder, predicate, KeylessSigner(context=local_sigstore.signing_context()))
    bundle = Bundle.from_json((folder / BUNDLE_NAME).read_bytes())
    verifier = Verifier(trusted_root=local_sigstore.trusted_root())
    verifier.verify_dsse(bundle, Identity(identity=IDENTITY, issuer=ISSUER))


@pytest.mark.usefixtures("no_ambient")
def test_missing_or_denied_credentials_are_signing_errors(
    pack: Pack, local_sigstore: LocalSigstore, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, predicate = pack
    signer = KeylessSigner(context=local_sigstore.signing_context())
    with pytest.raises(SigningError, match="permissions: id-token: write") as info:
        sign_pack(folder, predicate, signer)
    assert info.value.exit_code == 3
    # In Actions but without `id-token: write`, the request variables are missing.
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    with pytest.raises(SigningError, match="insufficient OIDC token permissions"):
        sign_pack(folder, predicate, signer)
    monkeypatch.delenv("GITHUB_ACTIONS")
    expired = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF, lifetime_s=-60)
    monkeypatch.setenv(IDENTITY_TOKEN_ENV, expired)
    with pytest.raises(SigningError, match="keyless signing failed: Identity token is malformed"):
        sign_pack(folder, predicate, signer)
    assert not (folder / BUNDLE_NAME).exists()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_sigstore_exits_3_and_writes_nothing(
    pack: Pack,
    local_sigstore: LocalSigstore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, _ = pack
    config = local_sigstore.trust_config_json()
    down = f"http://127.0.0.1:{_closed_port()}"
    for service in ("caUrls", "rekorTlogUrls"):
        config["signingConfig"][service][0]["url"] = down
    (tmp_path / "down.json").write_text(json.dumps(config))
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    args = ["sign", str(folder), "--trust-config", str(tmp_path / "down.json")]
    assert main([*args, "--identity-token", token]) == 3
    err = capsys.readouterr().err
    assert "keyless signing failed" in err
    assert "Connection refused" in err or "Max retries" in err
    assert not (folder / BUNDLE_NAME).exists()


def test_sign_command_with_a_key(
    pack: Pack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = pack
    monkeypatch.setenv(PASSPHRASE_ENV, "air-gapped")
    private, public = tmp_path / "k.pem", tmp_path / "k.pub.pem"
    assert main(["keygen", "--private-key", str(private), "--public-key", str(public)]) == 0
    capsys.readouterr()
    assert main(["sign", str(folder), "--key", str(private), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "key"
    # every file but its three bundles (the pack, SVR and test-result statements)
    assert (
        out["files"] == len([p for p in folder.rglob("*") if p.is_file()]) - 3
    )  # its three bundles
    assert out["log_index"] is None
    assert main(["verify", str(folder), "--key", str(public)]) == 0
    assert capsys.readouterr().out.startswith(f"OK: pack {folder}")
    assert main(["sign", str(folder), "--key", str(private), "--staging"]) == 2
    monkeypatch.setenv(PASSPHRASE_ENV, "wrong")
    assert main(["sign", str(folder), "--key", str(private)]) == 3
    assert "wrong passphrase?" in capsys.readouterr().err


def test_sign_command_refuses_a_pack_with_a_symlink(
    pack: Pack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = pack
    (folder / "elsewhere").symlink_to(tmp_path)
    assert main(["sign", str(folder), "--identity-token", "unused"]) == 1
    assert "elsewhere: symbolic link" in capsys.readouterr().err
    assert not (folder / BUNDLE_NAME).exists()


def test_sign_command_keyless_end_to_end_over_loopback(
    pack: Pack,
    local_sigstore: LocalSigstore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``evidencepack sign`` with a trust config: the real Fulcio and Rekor HTTP clients talk
    to the local instance; the verify command it prints for auditors then passes."""
    folder, _ = pack
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    with serve(local_sigstore) as url:
        config = tmp_path / "config.json"
        config.write_text(json.dumps(local_sigstore.trust_config_json(url, url)))
        assert (
            main(["sign", str(folder), "--trust-config", str(config), "--identity-token", token])
            == 0
        )
    out = capsys.readouterr().out
    assert f"as {IDENTITY} ({ISSUER}), log index 0" in out
    command = out.strip().splitlines()[-1].split("verify with: ", 1)[1]
    assert command == (
        f"evidencepack verify {folder} --cert-identity {IDENTITY} --cert-oidc-issuer {ISSUER}"
    )
    trusted_root = local_sigstore.write_trusted_root(tmp_path / "root.json")
    argv = [*command.split()[1:], "--trusted-root", str(trusted_root)]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("OK: pack")


def test_sign_pack_writes_the_predicate_when_the_pack_lacks_it(pack: Pack, tmp_path: Path) -> None:
    from evidencepack.pack.layout import PREDICATE_NAME
    from evidencepack.pack.predicate import load_predicate
    from evidencepack.signing.keyed import KeySigner
    from evidencepack.signing.keys import generate_keypair

    folder, predicate = pack
    (folder / PREDICATE_NAME).unlink()
    pair = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    signer = KeySigner.from_file(pair.private_key)
    sign_pack(folder, predicate, signer)
    assert load_predicate(folder) == predicate
    payload = json.loads(base64.b64decode(_bundle(folder)["dsseEnvelope"]["payload"]))  # type: ignore[index]
    assert PREDICATE_NAME in [s["name"] for s in payload["subject"]]
    with pytest.raises(InputError, match="not a folder"):
        sign_pack(tmp_path / "no-such-pack", predicate, signer)
    assert not (tmp_path / "no-such-pack").exists()


class _StubKeyless:
    """Stands in for Sigstore: a keyless signer whose bundle is the payload (too big here)."""

    mode = "keyless"

    def sign_payload(self, payload: bytes) -> bytes:
        return payload


@pytest.mark.parametrize("mode", ["keyless", "key"])
def test_sign_refuses_a_bundle_verify_could_not_read(
    pack: Pack, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keyless bundles are verified whole (<= 16 MiB), key bundles streamed (<= 2 GiB): a pack
    whose bundle would be over its limit is refused, naming its files and the limit, and no
    bundle is written. Limits lowered here; a 1M-file pack's keyless bundle is ~230 MB."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from evidencepack.signing import sign
    from evidencepack.signing.keyed import KeySigner

    folder, predicate = pack
    monkeypatch.setattr(sign, "MAX_BUNDLE_BYTES", 1000)
    monkeypatch.setattr(sign, "MAX_STREAMED_BUNDLE_BYTES", 1000)
    signer = (
        _StubKeyless() if mode == "keyless" else KeySigner(ec.generate_private_key(ec.SECP256R1()))
    )
    files = len(build_statement(folder, predicate).subject)
    with pytest.raises(InputError) as raised:
        sign_pack(folder, predicate, signer)
    assert f"{files:,} files make a" in raised.value.message
    assert f"{mode} signature bundle, over the 1,000 bytes `verify` reads" in raised.value.message
    assert not (folder / BUNDLE_NAME).exists()
