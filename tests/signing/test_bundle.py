"""Bundle parsing: what a malformed or oversized bundle is told, and the DSSE PAE."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import VerificationError
from evidencepack.signing.bundle import MAX_BUNDLE_BYTES, pae, parse_bundle, read_bundle


def test_pae_matches_the_dsse_spec_example() -> None:
    # secure-systems-lab/dsse protocol.md, "Test vectors".
    assert (
        pae("http://example.com/HelloWorld", b"hello world")
        == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_real_bundles_parse_into_their_parts(shared_data: Path) -> None:
    data = shared_data / "sigstore"
    keyless = parse_bundle(
        (data / "model-transparency/v1.1.0-sigstore/model.sig").read_bytes(), "s"
    )
    assert (keyless.mode, keyless.log_index, keyless.integrated_time) == (
        "keyless",
        598151086,
        1760062340,
    )
    assert keyless.payload_type == "application/vnd.in-toto+json"
    keyed = parse_bundle(
        (data / "model-transparency/v1.1.0-elliptic-key/model.sig").read_bytes(), "k"
    )
    assert (keyed.mode, keyed.log_index, len(keyed.signatures)) == ("key", None, 1)
    direct = parse_bundle((data / "sigstore-python/bundle_v3.txt.sigstore").read_bytes(), "d")
    assert (direct.mode, direct.is_dsse) == ("keyless", False)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b.pop("mediaType"), "mediaType"),
        (lambda b: b.update(mediaType="application/json"), "mediaType"),
        (lambda b: b.update(messageSignature={"signature": "AAAA"}), "Exactly one of"),
        (
            lambda b: b["verificationMaterial"].update(certificate={"rawBytes": "AAAA"}),
            "Exactly one",
        ),
        (lambda b: b.update(extra=1), "extra"),
    ],
)
def test_malformed_bundles_are_verification_errors(
    shared_data: Path, mutate: object, message: str
) -> None:
    raw = (shared_data / "sigstore/model-transparency/v1.1.0-elliptic-key/model.sig").read_bytes()
    data = json.loads(raw)
    mutate(data)  # type: ignore[operator]
    with pytest.raises(VerificationError, match=f"b.json: not a Sigstore bundle: .*{message}"):
        parse_bundle(json.dumps(data).encode(), "b.json")


def test_oversized_and_missing_bundles(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_BUNDLE_BYTES + 1)
    with pytest.raises(
        VerificationError, match="over the limit of 16777216 bytes for a Sigstore bundle"
    ):
        read_bundle(big)
    with pytest.raises(VerificationError, match="no such bundle"):
        read_bundle(tmp_path / "missing.json")
