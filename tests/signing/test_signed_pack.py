"""The sample pack built and signed with a generated key: verify accepts it, rejects any
changed byte, added or removed file, and a rebuild from its own inputs reproduces the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.signing.keys import load_public_key
from evidencepack.signing.verify import KeyPolicy, verify_pack

from ..conftest import SAMPLE_SPEC
from ..packs import SignedSample
from ..sigstore_testing.fixtures import IDENTITY, ISSUER, WORKFLOW_REF
from ..sigstore_testing.instance import LocalSigstore
from ..sigstore_testing.server import serve


@pytest.fixture(scope="session")
def signed(signed_sample: SignedSample) -> tuple[Path, Path]:
    """The session's signed sample pack (its archive beside it) and its public key."""
    return signed_sample.pack, signed_sample.pub


def _policy(public: Path) -> KeyPolicy:
    return KeyPolicy(public_key=load_public_key(public))


def test_signed_pack_and_archive_verify(signed: tuple[Path, Path]) -> None:
    pack, public = signed
    report = verify_pack(pack, _policy(public))
    assert report.ok
    assert report.decision is not None
    assert report.decision.recommendation == "mi325x-vllm"
    # every file but its three bundles (the pack, SVR and test-result statements)
    assert (
        report.files_checked == sum(1 for p in pack.rglob("*") if p.is_file()) - 3
    )  # the three bundles
    assert verify_pack(pack.with_name("pack.tar.gz"), _policy(public)).ok
    # The report names its signer on page 1.
    assert "key sha256:" in (pack / "report.html").read_text()


# One file of every kind in the pack, the evidence as well as the rendered report.
TAMPER = (
    "report.pdf",
    "report.html",
    "decision.json",
    "manifest.json",
    "predicate.json",
    "evidence.duckdb",
    "inputs/pack.yaml",
    "inputs/evidence/mi325x-vllm/scores.jsonl",
    "inputs/evidence/h200-vllm/runs/qps_4.0/mlperf_log_detail.txt",
    "inputs/evidence/dataset/contracts-eval.jsonl",
)


@pytest.mark.parametrize("name", TAMPER)
def test_one_changed_byte_fails(signed: tuple[Path, Path], tmp_path: Path, name: str) -> None:
    pack, public = signed
    copy = tmp_path / "pack"
    shutil.copytree(pack, copy)
    target = copy / name
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    report = verify_pack(copy, _policy(public))
    assert not report.ok
    assert [c.path for c in report.changed] == [name]


def test_added_and_removed_files_fail(signed: tuple[Path, Path], tmp_path: Path) -> None:
    pack, public = signed
    copy = tmp_path / "pack"
    shutil.copytree(pack, copy)
    (copy / "inputs" / "extra.json").write_text("{}")
    (copy / "report.html").unlink()
    report = verify_pack(copy, _policy(public))
    assert not report.ok
    assert [m.path for m in report.extra] == ["inputs/extra.json"]
    assert [m.path for m in report.missing] == ["report.html"]


@pytest.mark.real_pdf  # the rebuild reproduces the rendered PDF byte for byte
def test_cli_verify_and_rebuild(
    signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack, public = signed
    assert main(["verify", str(pack), "--key", str(public), "--rebuild"]) == 0
    out = capsys.readouterr().out
    assert (
        "rebuild      OK: decision.json, manifest.json, report.html, report.pdf reproduced "
        "byte for byte" in out
    )
    assert (
        main(
            [
                "verify",
                str(pack / "report.pdf"),
                "--bundle",
                str(pack / "pack.sigstore.json"),
                "--key",
                str(public),
            ]
        )
        == 0
    )


def test_build_sign_keyless_over_loopback(
    local_sigstore: LocalSigstore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``build --sign``: the sample pack signed keyless through the real Fulcio and Rekor HTTP
    clients against a local Sigstore instance, then verified as the auditor would."""
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    out = tmp_path / "pack"
    with serve(local_sigstore) as url:
        config = tmp_path / "config.json"
        config.write_text(json.dumps(local_sigstore.trust_config_json(url, url)))
        argv = [
            "build",
            str(SAMPLE_SPEC),
            "-o",
            str(out),
            "--sign",
            "--trust-config",
            str(config),
            "--identity-token",
            token,
        ]
        assert main(argv) == 0
    assert "keyless Sigstore signature" in (out / "report.html").read_text()
    root = local_sigstore.write_trusted_root(tmp_path / "root.json")
    capsys.readouterr()
    assert (
        main(
            [
                "verify",
                str(out),
                "--cert-identity",
                IDENTITY,
                "--cert-oidc-issuer",
                ISSUER,
                "--trusted-root",
                str(root),
                "--rebuild",
            ]
        )
        == 0
    )
    report = capsys.readouterr().out
    assert report.startswith("OK: pack")
    assert "rebuild      OK" in report
    assert (
        main(
            [
                "verify",
                str(out),
                "--cert-identity",
                "https://github.com/someone/else",
                "--cert-oidc-issuer",
                ISSUER,
                "--trusted-root",
                str(root),
            ]
        )
        == 1
    )
