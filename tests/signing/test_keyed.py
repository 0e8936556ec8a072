"""Key-based bundles: verified by our own code, including a real one from model-transparency."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from evidencepack.errors import VerificationError
from evidencepack.signing.bundle import parse_bundle
from evidencepack.signing.keyed import KeySigner, verify_key_bundle
from evidencepack.signing.keys import generate_keypair, key_fingerprint, load_public_key


def _model_transparency(shared_data: Path) -> tuple[bytes, Path]:
    data = shared_data / "sigstore" / "model-transparency"
    raw = (data / "v1.1.0-elliptic-key" / "model.sig").read_bytes()
    return raw, data / "keys" / "certificate" / "signing-key-pub.pem"


def test_real_key_signed_bundle_verifies(shared_data: Path) -> None:
    """model-transparency signed this bundle with a P-384 key (ECDSA over the DSSE PAE, no log):
    the same format evidencepack writes, so the same verifier must accept it."""
    raw, public = _model_transparency(shared_data)
    bundle = parse_bundle(raw, "model.sig")
    assert bundle.mode == "key"
    checked = verify_key_bundle(bundle, load_public_key(public))
    assert checked.payload is not None
    statement = json.loads(checked.payload)
    assert statement["subject"][0]["name"] == "v1.1.0-elliptic-key"
    # The hint is an unauthenticated label: model-transparency hashes the key's PEM, we hash its
    # DER, so the report shows both and trusts neither.
    key = load_public_key(public)
    pem = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert checked.signer.key_hint == hashlib.sha256(pem).hexdigest()
    assert checked.signer.key_fingerprint == key_fingerprint(key)
    assert checked.signer.key_fingerprint != checked.signer.key_hint


def test_real_key_bundle_fails_with_another_key_or_payload(
    shared_data: Path, tmp_path: Path
) -> None:
    raw, _ = _model_transparency(shared_data)
    other = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    with pytest.raises(VerificationError, match="does not verify with the given public key"):
        verify_key_bundle(parse_bundle(raw, "model.sig"), load_public_key(other.public_key))
    data = json.loads(raw)
    payload = base64.b64decode(data["dsseEnvelope"]["payload"])
    data["dsseEnvelope"]["payload"] = base64.b64encode(payload.replace(b"signme-1", b"signme-3"))
    data["dsseEnvelope"]["payload"] = data["dsseEnvelope"]["payload"].decode()
    _, public = _model_transparency(shared_data)
    with pytest.raises(VerificationError, match="does not verify"):
        verify_key_bundle(parse_bundle(json.dumps(data).encode(), "x"), load_public_key(public))


def test_our_key_bundle_round_trips_and_refuses_two_signatures(tmp_path: Path) -> None:
    pair = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub.pem", None)
    signer = KeySigner.from_file(pair.private_key, lambda: b"")
    raw = signer.sign_payload(b'{"_type":"https://in-toto.io/Statement/v1"}')
    checked = verify_key_bundle(parse_bundle(raw, "b"), load_public_key(pair.public_key))
    assert checked.payload == b'{"_type":"https://in-toto.io/Statement/v1"}'
    assert checked.signer.key_fingerprint == checked.signer.key_hint == pair.fingerprint
    data = json.loads(raw)
    data["dsseEnvelope"]["signatures"].append(data["dsseEnvelope"]["signatures"][0])
    with pytest.raises(VerificationError, match="exactly one DSSE signature, found 2"):
        verify_key_bundle(
            parse_bundle(json.dumps(data).encode(), "b"), load_public_key(pair.public_key)
        )
