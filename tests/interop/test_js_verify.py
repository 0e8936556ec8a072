"""Interoperability: the JavaScript Sigstore client (@sigstore/verify) accepts a key-mode pack
bundle written by evidencepack, and rejects it once its payload changes.

sigstore-python cannot verify public-key bundles (sigstore/sigstore-python#1244); the JS client
can, so this is an outside check that the bundle follows the Sigstore format, not only our own
reading of it. `.ci/setup` installs the pinned client (`npm ci` in this folder)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..packs import SignedSample

HERE = Path(__file__).parent
SCRIPT = HERE / "verify-key-bundle.js"


@pytest.fixture(scope="module")
def node() -> str:
    node = shutil.which("node")
    ready = node is not None and (HERE / "node_modules" / "@sigstore" / "verify").is_dir()
    if not ready:
        message = "node and `npm ci --prefix tests/interop` are needed (.ci/setup installs them)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    assert node is not None
    return node


def _js_verify(node: str, bundle: Path, public: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node, str(SCRIPT), str(bundle), str(public)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_js_client_verifies_a_key_mode_pack_bundle(
    node: str, signed_sample: SignedSample, tmp_path: Path
) -> None:
    bundle = signed_sample.pack / "pack.sigstore.json"
    public = signed_sample.pub
    done = _js_verify(node, bundle, public)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["OK", signed_sample.signer().fingerprint]

    data = json.loads(bundle.read_text())
    payload = base64.b64decode(data["dsseEnvelope"]["payload"]).replace(b"mi325x", b"h200xx", 1)
    data["dsseEnvelope"]["payload"] = base64.b64encode(payload).decode()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    done = _js_verify(node, tampered, public)
    assert done.returncode == 1
    assert "SIGNATURE_ERROR" in done.stdout
