"""Fixtures: a local Sigstore instance, and packs signed keyless against it or with a key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencepack.pack.predicate import PackPredicate
from evidencepack.pack.toolchain import Toolchain
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keyless import KeylessSigner
from evidencepack.signing.keys import KeyPair, generate_keypair
from evidencepack.signing.sign import sign_pack

from ..packs import build_pack
from .instance import GITHUB_ISSUER, LocalSigstore

WORKFLOW_REF = "acme/accelerator-decisions/.github/workflows/evidence-pack.yml@refs/tags/v1.0.0"
IDENTITY = f"https://github.com/{WORKFLOW_REF}"
ISSUER = GITHUB_ISSUER


@dataclass(frozen=True)
class KeylessPack:
    folder: Path
    predicate: PackPredicate
    sigstore: LocalSigstore
    trusted_root: Path
    trust_config: Path


@dataclass(frozen=True)
class KeyPack:
    folder: Path
    predicate: PackPredicate
    keys: KeyPair


@pytest.fixture
def local_sigstore() -> LocalSigstore:
    return LocalSigstore()


@pytest.fixture
def keyless_pack(
    local_sigstore: LocalSigstore,
    tmp_path: Path,
    shared_data: Path,
    toolchain: Toolchain,
    report_files: tuple[bytes, bytes],
) -> KeylessPack:
    """The sample pack signed by the release workflow's identity on the local instance."""
    folder, predicate = build_pack(tmp_path / "keyless", shared_data, toolchain, report_files)
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    signer = KeylessSigner(token, context=local_sigstore.signing_context())
    sign_pack(folder, predicate, signer)
    return KeylessPack(
        folder=folder,
        predicate=predicate,
        sigstore=local_sigstore,
        trusted_root=local_sigstore.write_trusted_root(tmp_path / "trusted_root.json"),
        trust_config=local_sigstore.write_trust_config(tmp_path / "trust_config.json"),
    )


@pytest.fixture
def key_pack(
    tmp_path: Path, shared_data: Path, toolchain: Toolchain, report_files: tuple[bytes, bytes]
) -> KeyPack:
    """The sample pack signed with a fresh passphrase-protected key."""
    folder, predicate = build_pack(tmp_path / "keyed", shared_data, toolchain, report_files)
    keys = generate_keypair(tmp_path / "signing.key.pem", tmp_path / "signing.pub.pem", b"pw")
    sign_pack(folder, predicate, KeySigner.from_file(keys.private_key, lambda: b"pw"))
    return KeyPack(folder=folder, predicate=predicate, keys=keys)
