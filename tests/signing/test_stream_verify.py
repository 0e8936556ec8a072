"""``verify`` of a key-signed pack streamed (a bundle too big to read whole), forced here on the
sample pack by a low threshold: the same report as the whole-bundle path, in every outcome."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from evidencepack.pack.layout import BUNDLE_NAME, SVR_BUNDLE_NAME
from evidencepack.signing import stream_bundle, verify
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import (
    generate_keypair,
    key_fingerprint,
    load_private_key,
    load_public_key,
)
from evidencepack.signing.verify import KeyPolicy, VerifyReport, verify_pack

from ..sigstore_testing.fixtures import KeyPack


def _key(signed: KeyPack) -> KeyPolicy:
    return KeyPolicy(load_public_key(signed.keys.public_key))


def _both(folder: Path, policy: KeyPolicy, monkeypatch: pytest.MonkeyPatch) -> VerifyReport:
    """The pack verified whole and streamed; the streamed report, checked equal to the other."""
    whole = verify_pack(folder, policy)
    with monkeypatch.context() as patch:
        patch.setattr(verify, "STREAM_ABOVE_BYTES", 0)
        # every string over 256 bytes is read as a stream (the payloads), in 8-byte chunks
        patch.setattr(stream_bundle, "_SMALL_STRING", 256)
        patch.setattr(stream_bundle, "_CHUNK", 8)
        streamed = verify_pack(folder, policy)
    assert streamed.model_dump() == whole.model_dump()
    return streamed


def test_a_streamed_pack_passes_with_its_verdicts(
    key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _both(key_pack.folder, _key(key_pack), monkeypatch)
    assert report.ok, report.problems
    assert report.checks.verdicts == "passed"
    assert report.files_checked > 5


def test_a_changed_file_is_named(key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch) -> None:
    (key_pack.folder / "inputs" / "pack.yaml").write_bytes(b"apiVersion: changed\n")
    report = _both(key_pack.folder, _key(key_pack), monkeypatch)
    assert not report.ok
    assert [m.path for m in report.changed] == ["inputs/pack.yaml"]


def test_a_missing_and_an_extra_file_are_named(
    key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    (key_pack.folder / "report.html").unlink()
    (key_pack.folder / "inputs" / "zz-extra.txt").write_bytes(b"not signed\n")
    report = _both(key_pack.folder, _key(key_pack), monkeypatch)
    assert not report.ok
    assert [m.path for m in report.missing] == ["report.html"]
    assert [m.path for m in report.extra] == ["inputs/zz-extra.txt"]


def test_another_key_fails_the_signature(
    key_pack: KeyPack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = generate_keypair(tmp_path / "other.key.pem", tmp_path / "other.pub.pem", b"pw")
    report = _both(key_pack.folder, KeyPolicy(load_public_key(other.public_key)), monkeypatch)
    assert not report.ok
    assert report.checks.signature == "failed"
    assert "does not verify with the given public key" in report.problems[0]
    # the key given, and the key the bundle names as its signer
    assert f"(sha256:{other.fingerprint})" in report.problems[0]
    assert (
        f"the bundle names key sha256:{key_fingerprint(load_public_key(key_pack.keys.public_key))}"
        in report.problems[0]
    )


def _resign(folder: Path, name: str, keys: KeyPack, change: object) -> None:
    """Re-sign bundle ``name`` with the pack's key over its payload changed by ``change``."""
    bundle = json.loads((folder / name).read_bytes())
    statement = json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
    change(statement)  # type: ignore[operator]
    payload = json.dumps(statement, sort_keys=True, separators=(",", ":")).encode()
    signer = KeySigner(load_private_key(keys.keys.private_key, lambda: b"pw"))
    (folder / name).write_bytes(signer.sign_payload(payload))


def test_a_reordered_statement_is_refused_only_when_streamed(
    key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resign(key_pack.folder, BUNDLE_NAME, key_pack, lambda s: s["subject"].reverse())
    whole = verify_pack(key_pack.folder, _key(key_pack))
    assert whole.checks.files == "passed", whole.problems
    monkeypatch.setattr(verify, "STREAM_ABOVE_BYTES", 0)
    monkeypatch.setattr(stream_bundle, "_SMALL_STRING", 256)
    report = verify_pack(key_pack.folder, _key(key_pack))
    assert not report.ok
    assert "out of the pack's order" in report.problems[0], report.problems


def test_a_resigned_verdict_that_differs_is_named(
    key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resign(
        key_pack.folder,
        SVR_BUNDLE_NAME,
        key_pack,
        lambda s: s["predicate"]["verifiedProperties"].append("EVIDENCEPACK_FORGED"),
    )
    monkeypatch.setattr(verify, "STREAM_ABOVE_BYTES", 0)
    monkeypatch.setattr(stream_bundle, "_SMALL_STRING", 256)
    report = verify_pack(key_pack.folder, _key(key_pack))
    assert not report.ok
    svr = next(v for v in report.verdicts if v.file == SVR_BUNDLE_NAME)
    assert not svr.ok
    assert svr.problems[0].startswith(f"{key_pack.folder / SVR_BUNDLE_NAME}: the signed statement")


def test_the_bundle_scanner_reads_escapes_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Escaped characters in a small string survive 8-byte chunks; an escaped payload (valid
    JSON, but not plain base64) is refused rather than mis-hashed."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from evidencepack.errors import VerificationError

    monkeypatch.setattr(stream_bundle, "_SMALL_STRING", 256)
    monkeypatch.setattr(stream_bundle, "_CHUNK", 8)
    key = ec.generate_private_key(ec.SECP256R1())
    payload = json.dumps({"subject": ["x" * 600]}).encode()
    bundle = json.loads(KeySigner(key).sign_payload(payload))
    bundle["verificationMaterial"]["publicKey"]["hint"] = 'a"b\\c\u00e9/'
    path = tmp_path / "b.json"
    path.write_text(json.dumps(bundle))
    signed = stream_bundle.verify_streamed_key_bundle(path, "b.json", key.public_key())
    assert signed.signer.key_hint == 'a"b\\c\u00e9/'
    read = stream_bundle.streamed_payload(signed).read()
    assert read == payload
    text = json.dumps(bundle)
    assert '"payload": "eyJ' in text
    path.write_text(text.replace('"payload": "eyJ', '"payload": "\\u0065yJ'))  # an escaped "e"
    with pytest.raises(VerificationError, match="not plain base64"):
        stream_bundle.verify_streamed_key_bundle(path, "b.json", key.public_key())
