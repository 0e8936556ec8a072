"""Keyless verification of real Sigstore bundles, offline, with the roots sigstore-python ships."""

from __future__ import annotations

import base64
import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
import sigstore

from evidencepack.errors import VerificationError
from evidencepack.pack.predicate import PREDICATE_TYPE
from evidencepack.signing.bundle import parse_bundle
from evidencepack.signing.keyless import TrustRoot, load_trust_root, verify_keyless_bundle
from evidencepack.signing.verify import KeylessPolicy, verify_file, verify_pack

_STORE = Path(sigstore.__file__).parent / "_store"
PRODUCTION_ROOT = _STORE / "https%3A%2F%2Ftuf-repo-cdn.sigstore.dev" / "trusted_root.json"
STAGING_ROOT = _STORE / "https%3A%2F%2Ftuf-repo-cdn.sigstage.dev" / "trusted_root.json"
GITHUB = "https://token.actions.githubusercontent.com"

# (artifact, bundle, root, identity, issuer, log index, integrated time or None) from
# ../shared/data/README.md and the bundles themselves.
REAL = {
    "hashedrekord-production": (
        "sigstore-python/bundle_v3_github.whl",
        "sigstore-python/bundle_v3_github.whl.sigstore",
        PRODUCTION_ROOT,
        "https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2",
        GITHUB,
        79605083,
        1710888076,
    ),
    "hashedrekord-staging": (
        "sigstore-python/bundle_v3.txt",
        "sigstore-python/bundle_v3.txt.sigstore",
        STAGING_ROOT,
        "william@yossarian.net",
        "https://github.com/login/oauth",
        25915956,
        1712085549,
    ),
    "rekor-v2-staging": (
        "sigstore-python/staging-rekor-v2.txt",
        "sigstore-python/staging-rekor-v2.txt.sigstore.json",
        STAGING_ROOT,
        "jku@goto.fi",
        "https://github.com/login/oauth",
        645,
        None,
    ),
}


def _policy(root: Path, identity: str, issuer: str) -> KeylessPolicy:
    return KeylessPolicy(identity, issuer, load_trust_root(root))


@pytest.mark.parametrize("case", sorted(REAL))
def test_real_bundle_right_identity_passes(shared_data: Path, case: str) -> None:
    artifact, bundle, root, identity, issuer, log_index, integrated = REAL[case]
    data = shared_data / "sigstore"
    report = verify_file(
        data / artifact, data / bundle, _policy(root, identity, issuer), predicate_type=None
    )
    assert report.ok, report.problems
    signer = report.signer
    assert signer is not None
    assert (signer.identity, signer.issuer, signer.log_index) == (identity, issuer, log_index)
    assert signer.signed_at is not None
    if integrated is not None:
        assert signer.time_source == "transparency_log"
        assert signer.signed_at == dt.datetime.fromtimestamp(integrated, dt.UTC)
    else:  # Rekor v2 logs no time: it comes from the RFC 3161 timestamp in the bundle
        assert signer.time_source == "timestamp_authority"


@pytest.mark.parametrize("case", sorted(REAL))
def test_real_bundle_wrong_identity_issuer_or_file_fails(
    shared_data: Path, case: str, tmp_path: Path
) -> None:
    artifact, bundle, root, identity, issuer, _, _ = REAL[case]
    data = shared_data / "sigstore"
    for who, by in ((identity + "x", issuer), (identity, "https://accounts.google.com")):
        report = verify_file(
            data / artifact, data / bundle, _policy(root, who, by), predicate_type=None
        )
        assert not report.ok
        assert report.signer is None
        # who did sign is named beside who the policy asked for
        assert f"the certificate names {identity} ({issuer})" in report.problems[0]
    changed = tmp_path / Path(artifact).name
    changed.write_bytes((data / artifact).read_bytes() + b"\n")
    report = verify_file(
        changed, data / bundle, _policy(root, identity, issuer), predicate_type=None
    )
    assert not report.ok
    # The other instance's root cannot vouch for the certificate.
    other = STAGING_ROOT if root == PRODUCTION_ROOT else PRODUCTION_ROOT
    report = verify_file(
        data / artifact, data / bundle, _policy(other, identity, issuer), predicate_type=None
    )
    assert not report.ok


DSSE_IDENTITY = (
    "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/"
    ".github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main",
    GITHUB,
)


def test_real_dsse_bundle_on_rekor_v2(shared_data: Path) -> None:
    """A staging DSSE bundle (Rekor v2, RFC 3161 time): right identity passes, wrong identity,
    wrong issuer and a changed payload fail. Its statement is SLSA provenance, not a pack."""
    data = shared_data / "sigstore" / "sigstore-python"
    raw = (data / "a.dsse.staging-rekor-v2.txt.sigstore.json").read_bytes()
    root = load_trust_root(STAGING_ROOT)
    checked = verify_keyless_bundle(
        parse_bundle(raw, "a.dsse"),
        identity=DSSE_IDENTITY[0],
        issuer=DSSE_IDENTITY[1],
        trust_root=root,
    )
    assert checked.signer.time_source == "timestamp_authority"
    assert checked.signer.log_index == 4026478
    assert checked.payload is not None
    assert b'"predicateType":"https://slsa.dev/provenance/v1"' in checked.payload
    for identity, issuer in (
        (DSSE_IDENTITY[0] + "x", DSSE_IDENTITY[1]),
        (DSSE_IDENTITY[0], "https://accounts.google.com"),
    ):
        with pytest.raises(VerificationError):
            verify_keyless_bundle(
                parse_bundle(raw, "a.dsse"), identity=identity, issuer=issuer, trust_root=root
            )
    bundle_json = json.loads(raw)
    payload = base64.b64decode(bundle_json["dsseEnvelope"]["payload"])
    assert b'"name":"a.txt"' in payload
    bundle_json["dsseEnvelope"]["payload"] = base64.b64encode(
        payload.replace(b'"name":"a.txt"', b'"name":"b.txt"')
    ).decode()
    tampered = json.dumps(bundle_json).encode()
    with pytest.raises(VerificationError):
        verify_keyless_bundle(
            parse_bundle(tampered, "a.dsse"),
            identity=DSSE_IDENTITY[0],
            issuer=DSSE_IDENTITY[1],
            trust_root=root,
        )
    # The .txt beside it is not the statement's subject (that is another "a.txt"), and the
    # statement is not an evidencepack one: verify_file says both.
    policy = KeylessPolicy(*DSSE_IDENTITY, root)
    bundle = data / "a.dsse.staging-rekor-v2.txt.sigstore.json"
    report = verify_file(data / "a.dsse.staging-rekor-v2.txt", bundle, policy, predicate_type=None)
    assert report.problems[0].endswith("is not a subject of the signed statement")
    report = verify_file(data / "a.dsse.staging-rekor-v2.txt", bundle, policy)
    assert report.problems == (
        f"predicate type 'https://slsa.dev/provenance/v1', expected '{PREDICATE_TYPE}'",
    )


def test_a_bundle_that_signs_a_file_directly_is_not_a_pack(shared_data: Path) -> None:
    data = shared_data / "sigstore" / "sigstore-python"
    _, _, _, identity, issuer, _, _ = REAL["hashedrekord-production"]
    report = verify_file(
        data / "bundle_v3_github.whl",
        data / "bundle_v3_github.whl.sigstore",
        _policy(PRODUCTION_ROOT, identity, issuer),
    )
    assert report.problems == (
        f"{data / 'bundle_v3_github.whl.sigstore'}: signs the file directly, not an evidencepack "
        "statement",
    )


MODEL_IDENTITY = ("stefanb@us.ibm.com", "https://sigstore.verify.ibm.com/oauth2")


def test_model_transparency_dsse_bundle(shared_data: Path, tmp_path: Path) -> None:
    """A production DSSE bundle over a folder (model-transparency): the signature and identity
    verify; as a pack it fails, because its statement is not an evidencepack statement."""
    folder = shared_data / "sigstore" / "model-transparency" / "v1.1.0-sigstore"
    bundle = parse_bundle((folder / "model.sig").read_bytes(), "model.sig")
    root = load_trust_root(PRODUCTION_ROOT)
    checked = verify_keyless_bundle(
        bundle, identity=MODEL_IDENTITY[0], issuer=MODEL_IDENTITY[1], trust_root=root
    )
    assert checked.payload is not None
    assert b'"predicateType": "https://model_signing/signature/v1.0"' in checked.payload
    assert checked.signer.log_index == 598151086
    with pytest.raises(VerificationError, match="SANs do not match"):
        verify_keyless_bundle(
            bundle, identity="someone@else", issuer=MODEL_IDENTITY[1], trust_root=root
        )
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    report = verify_pack(copy, KeylessPolicy(*MODEL_IDENTITY, root), bundle=copy / "model.sig")
    assert not report.ok
    assert report.problems == (
        "the signed statement has predicateType 'https://model_signing/signature/v1.0', "
        "not 'https://evidencepack.dev/pack/v1': it is not an evidence pack",
    )


def test_cached_root_offline(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--offline without --trusted-root: sigstore-python's cached (here: shipped) root, no TUF."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    root = load_trust_root(staging=True, offline=True)
    assert isinstance(root, TrustRoot)
    assert (root.info.source, root.info.refreshed, root.info.path) == ("staging", False, None)
    artifact, bundle, _, identity, issuer, _, _ = REAL["hashedrekord-staging"]
    data = shared_data / "sigstore"
    policy = KeylessPolicy(identity, issuer, root)
    assert verify_file(data / artifact, data / bundle, policy, predicate_type=None).ok
    assert any((tmp_path / "cache").rglob("trusted_root.json"))


def test_a_malformed_trusted_root_is_an_input_error(tmp_path: Path) -> None:
    from evidencepack.errors import CouldNotRun, InputError

    (tmp_path / "root.json").write_text('{"mediaType": "nope"}')
    with pytest.raises(InputError, match="not a Sigstore trusted root"):
        load_trust_root(tmp_path / "root.json")
    with pytest.raises(CouldNotRun, match="cannot read the trusted root"):
        load_trust_root(tmp_path / "missing.json")
