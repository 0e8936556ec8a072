"""OpenSSF model signatures (OMS v1.0): real bundles made here with a local P-256 key (and the
local Sigstore instance) over a tiny generated model folder, verified offline; a spec citing one
for the envelope's model passes PROV-MODEL and links its measured figures to the signed weights,
and one for other weights, with the wrong key or of another format version fails naming why."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from evidencepack.errors import SpecError, VerificationError
from evidencepack.pipeline import BuildOptions, CompileOptions, build, check, verify_rebuild
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keyless import KeylessSigner, load_trust_root
from evidencepack.signing.oms import OMS_PREDICATE_TYPE, verify_model_signature
from evidencepack.signing.verify import KeyPolicy
from evidencepack.spec.load import load_spec
from evidencepack.spec.model_signature import ModelSignature

from ..sigstore_testing.fixtures import IDENTITY, ISSUER, WORKFLOW_REF, LocalSigstore

SAMPLE_DIGEST = "9b2d4e6f8a0c1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f"
"""The sample spec's envelope model digest (and the digest its runs declare)."""


def _model(folder: Path, seed: bytes = b"weights") -> tuple[list[dict[str, str]], str]:
    """A tiny model folder; its OMS resources (sorted by name) and root digest."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 8}\n')
    (folder / "model.safetensors").write_bytes(hashlib.sha256(seed).digest() * 64)
    resources = [
        {
            "name": p.name,
            "algorithm": "sha256",
            "digest": hashlib.sha256(p.read_bytes()).hexdigest(),
        }
        for p in sorted(folder.iterdir())
    ]
    root = hashlib.sha256(b"".join(bytes.fromhex(r["digest"]) for r in resources)).hexdigest()
    return resources, root


def _statement(
    resources: list[dict[str, str]], root: str, predicate_type: str = OMS_PREDICATE_TYPE
) -> bytes:
    """The in-toto statement model_signing 1.x writes (protobuf JSON: two-space indent)."""
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "tiny-model", "digest": {"sha256": root}}],
        "predicateType": predicate_type,
        "predicate": {
            "serialization": {
                "method": "files",
                "hash_type": "sha256",
                "allow_symlinks": False,
                "ignore_paths": ["model.sig", ".git"],
            },
            "resources": resources,
        },
    }
    return json.dumps(statement, indent=2).encode()


def _key_bundle(payload: bytes, key: ec.EllipticCurvePrivateKey) -> bytes:
    """A bundle as model_signing's key signer writes it: DSSE over the PAE, the key named by
    the sha256 of its PEM public key, no log entries."""
    kind = b"application/vnd.in-toto+json"
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
    pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    bundle = {
        "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "verificationMaterial": {
            "publicKey": {"hint": hashlib.sha256(pem).hexdigest()},
            "tlogEntries": [],
        },
        "dsseEnvelope": {
            "payload": base64.b64encode(payload).decode(),
            "payloadType": kind.decode(),
            "signatures": [
                {"sig": base64.b64encode(key.sign(pae, ec.ECDSA(hashes.SHA256()))).decode()}
            ],
        },
    }
    return json.dumps(bundle).encode()


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def test_a_key_signed_model_verifies_and_reads_as_its_manifest(tmp_path: Path) -> None:
    resources, root = _model(tmp_path / "model")
    key = ec.generate_private_key(ec.SECP256R1())
    raw = _key_bundle(_statement(resources, root), key)
    checked, manifest = verify_model_signature(raw, "model.sig", public_key=key.public_key())
    assert checked.signer.mode == "key"
    assert manifest.root_sha256 == root
    assert [f.name for f in manifest.files] == ["config.json", "model.safetensors"]
    assert manifest.names(root)
    assert not manifest.names(resources[1]["digest"])  # one file of two is not the model


def test_a_one_file_model_is_named_by_its_files_sha256(tmp_path: Path) -> None:
    resources, _ = _model(tmp_path / "model")
    one = resources[1:]
    root = hashlib.sha256(bytes.fromhex(one[0]["digest"])).hexdigest()
    key = ec.generate_private_key(ec.SECP256R1())
    _, manifest = verify_model_signature(
        _key_bundle(_statement(one, root), key), "model.sig", public_key=key.public_key()
    )
    assert manifest.names(root)
    assert manifest.names(one[0]["digest"])  # what sha256sum model.safetensors prints


def test_a_wrong_key_fails(tmp_path: Path) -> None:
    resources, root = _model(tmp_path / "model")
    raw = _key_bundle(_statement(resources, root), ec.generate_private_key(ec.SECP256R1()))
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    with pytest.raises(VerificationError, match=r"model\.sig: the signature does not verify"):
        verify_model_signature(raw, "model.sig", public_key=other)


def test_another_format_version_fails_naming_the_field(tmp_path: Path) -> None:
    resources, root = _model(tmp_path / "model")
    key = ec.generate_private_key(ec.SECP256R1())
    old = _key_bundle(_statement(resources, root, "https://model_signing/Digests/v0.1"), key)
    with pytest.raises(VerificationError) as caught:
        verify_model_signature(old, "evidence/model.sig", public_key=key.public_key())
    message = caught.value.message
    assert message.startswith("evidence/model.sig: predicateType: ")
    assert "'https://model_signing/Digests/v0.1' is not an OpenSSF model signature v1.0" in message
    assert "pre-1.0" in message


def test_a_root_digest_its_resources_do_not_hash_to_fails(tmp_path: Path) -> None:
    resources, root = _model(tmp_path / "model")
    key = ec.generate_private_key(ec.SECP256R1())
    forged = _key_bundle(_statement(resources, "0" * 64), key)
    with pytest.raises(
        VerificationError, match=rf"subject\[0\]\.digest\.sha256: 0{{64}}, .*{root}"
    ):
        verify_model_signature(forged, "model.sig", public_key=key.public_key())


def test_a_keyless_model_signature_verifies_offline(
    local_sigstore: LocalSigstore, tmp_path: Path
) -> None:
    resources, root = _model(tmp_path / "model")
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    signer = KeylessSigner(token, context=local_sigstore.signing_context())
    raw = signer.sign_payload(_statement(resources, root))
    trust = load_trust_root(local_sigstore.write_trusted_root(tmp_path / "root.json"))
    checked, manifest = verify_model_signature(
        raw, "model.sig", identity=IDENTITY, issuer=ISSUER, trust_root=trust
    )
    assert (checked.signer.identity, manifest.root_sha256) == (IDENTITY, root)
    with pytest.raises(VerificationError):
        verify_model_signature(
            raw, "model.sig", identity="https://another", issuer=ISSUER, trust_root=trust
        )


def test_a_spec_names_exactly_one_signer() -> None:
    with pytest.raises(ValueError, match="either public_key or identity"):
        ModelSignature.model_validate(
            {"path": "m.sig", "public_key": "k.pub", "identity": "a", "issuer": "b"}
        )
    with pytest.raises(ValueError, match="name the signer"):
        ModelSignature.model_validate({"path": "m.sig", "identity": "a"})


def _cite_signature(samples: Path, key: ec.EllipticCurvePrivateKey, payload: bytes) -> Path:
    """The sample spec citing ``model/model.sig`` and its public key for the envelope's model."""
    (samples / "model").mkdir(exist_ok=True)
    (samples / "model" / "model.sig").write_bytes(_key_bundle(payload, key))
    (samples / "model" / "model.pub").write_bytes(_pem(key))
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    line = f"    digest: {SAMPLE_DIGEST}\n"
    assert text.count(line) == 1
    signature = "    signature:\n      path: model/model.sig\n      public_key: model/model.pub\n"
    spec.write_text(text.replace(line, line + signature), encoding="utf-8")
    return spec


def _measure_the_signed_model(samples: Path, root: str) -> None:
    """Make the sample's envelope, declared runs and recorded scores be of the model ``root``
    (the private copy's files only)."""
    for path in [samples / "pack.yaml", *sorted((samples / "evidence").rglob("*.jsonl"))]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(SAMPLE_DIGEST, root), encoding="utf-8")


def test_a_spec_citing_the_envelopes_signed_weights_passes_and_links_the_claims(
    samples: Path, tmp_path: Path
) -> None:
    resources, root = _model(tmp_path / "model")
    key = ec.generate_private_key(ec.SECP256R1())
    spec = _cite_signature(samples, key, _statement(resources, root))
    _measure_the_signed_model(samples, root)
    decision = check(spec, CompileOptions())
    prov = [c for c in decision.checks if c.id == "PROV-MODEL"]
    assert prov
    assert all(c.status == "PASS" for c in prov), [c.reason for c in prov]
    assert all(f"model/model.sig root digest {root} over 2 file(s)" in c.reason for c in prov)
    signed = {f.pack_path: f for f in decision.inputs if f.role == "model"}
    assert sorted(signed) == ["inputs/model/model.pub", "inputs/model/model.sig"]
    measured = [c for c in decision.claims if c.kind == "measured"]
    assert measured
    for claim in measured:
        assert claim.evidence[-1].row == "model-signature", claim.id
        assert claim.evidence[-1].file_sha256 == signed["inputs/model/model.sig"].sha256
    assert all(
        e.row != "model-signature"
        for c in decision.claims
        if c.kind != "measured"
        for e in c.evidence
    )


def test_a_signature_for_other_weights_fails_naming_both_digests(
    samples: Path, tmp_path: Path
) -> None:
    resources, root = _model(tmp_path / "model")
    key = ec.generate_private_key(ec.SECP256R1())
    spec = _cite_signature(samples, key, _statement(resources, root))
    decision = check(spec, CompileOptions())
    prov = [c for c in decision.checks if c.id == "PROV-MODEL"]
    assert prov
    assert all(c.status == "FAIL" for c in prov)
    for result in prov:
        assert f"model/model.sig signs other weights: its root digest is {root}" in result.reason
        assert f"the envelope's model digest is {SAMPLE_DIGEST}" in result.reason
    assert decision.verdict == "FAIL"
    assert all(e.row != "model-signature" for c in decision.claims for e in c.evidence)


def test_a_spec_whose_model_signature_has_another_key_fails(samples: Path, tmp_path: Path) -> None:
    resources, root = _model(tmp_path / "model")
    spec = _cite_signature(
        samples, ec.generate_private_key(ec.SECP256R1()), _statement(resources, root)
    )
    (samples / "model" / "model.pub").write_bytes(_pem(ec.generate_private_key(ec.SECP256R1())))
    _measure_the_signed_model(samples, root)
    decision = check(spec, CompileOptions())
    prov = [c for c in decision.checks if c.id == "PROV-MODEL"]
    assert all(c.status == "FAIL" for c in prov)
    assert all(
        "model/model.sig: the signature does not verify with the given public key" in c.reason
        for c in prov
    )


def test_a_spec_citing_a_keyless_model_signature_verifies_it_offline(
    samples: Path, tmp_path: Path, local_sigstore: LocalSigstore
) -> None:
    resources, root = _model(tmp_path / "model")
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    signer = KeylessSigner(token, context=local_sigstore.signing_context())
    (samples / "model").mkdir()
    (samples / "model" / "model.sig").write_bytes(signer.sign_payload(_statement(resources, root)))
    local_sigstore.write_trusted_root(samples / "model" / "trusted_root.json")
    _measure_the_signed_model(samples, root)
    spec = samples / "pack.yaml"
    line = f"    digest: {root}\n"
    keyless = (
        "    signature:\n      path: model/model.sig\n"
        f"      identity: {IDENTITY}\n      issuer: {ISSUER}\n"
        "      trusted_root: model/trusted_root.json\n"
    )
    text = spec.read_text(encoding="utf-8")
    assert text.count(line) == 1
    spec.write_text(text.replace(line, line + keyless), encoding="utf-8")
    decision = check(spec, CompileOptions())
    prov = [c for c in decision.checks if c.id == "PROV-MODEL"]
    assert prov
    assert all(c.status == "PASS" for c in prov), [c.reason for c in prov]
    assert all(f"weights signed by {IDENTITY} (issuer {ISSUER})" in c.reason for c in prov)


# slow: a build and a verify --rebuild of the sample citing a model signature
@pytest.mark.slow
def test_a_pack_citing_a_model_signature_verifies_and_rebuilds(
    samples: Path, tmp_path: Path
) -> None:
    """The bundle and key travel in the pack's inputs/: `verify --rebuild` re-checks the model
    signature from the pack alone and reproduces the decision."""
    resources, root = _model(tmp_path / "model")
    spec = _cite_signature(
        samples, ec.generate_private_key(ec.SECP256R1()), _statement(resources, root)
    )
    _measure_the_signed_model(samples, root)
    signing = ec.generate_private_key(ec.SECP256R1())
    build(spec, tmp_path / "pack", BuildOptions(compile=CompileOptions()), KeySigner(signing))
    assert (tmp_path / "pack" / "inputs" / "model" / "model.sig").is_file()
    report = verify_rebuild(tmp_path / "pack", KeyPolicy(signing.public_key()))
    assert report.ok, (report.problems, report.rebuild)
    assert report.checks.rebuild == report.checks.verdicts == "passed"


def test_a_missing_model_signature_file_is_a_located_spec_error(samples: Path) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    line = f"    digest: {SAMPLE_DIGEST}\n"
    cited = "    signature:\n      path: model/model.sig\n      public_key: model/model.pub\n"
    spec.write_text(text.replace(line, line + cited), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    problems = "\n".join(caught.value.problems)
    assert "envelope.model.signature.path: " in problems
    assert "envelope.model.signature.public_key: " in problems
