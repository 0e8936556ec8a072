"""The declared Python API: ``evidencepack.__all__``, imported lazily, doing what commands do."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import evidencepack
from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.errors import InvalidRequest, SpecError

from .conftest import REPO_ROOT, SAMPLE_SPEC

HEAVY = ("duckdb", "numpy", "weasyprint", "sigstore", "pydantic", "jinja2", "cryptography", "yaml")


def _modules_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


def test_check_reads_the_spec_before_the_compile_pipeline(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text("apiVersion: evidencepack/v1\n", encoding="utf-8")
    code = (
        "import evidencepack\n"
        f"try:\n    evidencepack.check({str(tmp_path / 'pack.yaml')!r})\n"
        "except evidencepack.SpecError as exc:\n    print(len(exc.problems), file=sys.stderr)\n"
    )
    modules = {m.split(".")[0] for m in _modules_after(code)}
    assert "pydantic" in modules  # the spec was validated
    assert not modules & {"duckdb", "numpy", "weasyprint", "sigstore"}


def test_all_names_resolve_and_are_documented() -> None:
    names = [n for n in evidencepack.__all__ if n != "__version__"]
    assert set(names) == set(evidencepack._API)
    assert set(names) <= set(dir(evidencepack))
    importlib.import_module("evidencepack.diff.run")  # sets evidencepack.diff: no API clash

    for name in names:
        value = getattr(evidencepack, name)
        assert value.__doc__, name
        assert not isinstance(value, type(evidencepack)), f"{name} is shadowed by a module"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = evidencepack.nope  # type: ignore[attr-defined]


def test_check_returns_the_decision_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    decision = evidencepack.check(str(SAMPLE_SPEC))
    assert isinstance(decision, DecisionDocument)
    assert main(["check", str(SAMPLE_SPEC), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(
        decision.model_dump_json(by_alias=True)
    )


def test_validate_returns_located_problems_and_load_spec_raises(write_spec, sample_text) -> None:
    path = write_spec(sample_text.replace("pattern: interactive", "pattern: bursty", 1))
    report = evidencepack.validate(path)
    assert not report.valid
    (problem,) = report.problems
    assert (problem.field, problem.code, problem.file) == (
        "traffic.pattern",
        "literal_error",
        str(path),
    )
    with pytest.raises(SpecError) as info:
        evidencepack.load_spec(path)
    assert info.value.problems == (problem.text,)
    assert evidencepack.validate(SAMPLE_SPEC).valid


def test_read_input_reads_one_file() -> None:
    scores = REPO_ROOT / "samples" / "evidence" / "b200-trtllm" / "scores.jsonl"
    parsed = evidencepack.read_input(scores)
    assert parsed.kind == "scores"
    assert parsed.score_sets


@pytest.fixture(scope="module")
def signed_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample built and signed through the API with a fresh passphrase-protected key."""
    from evidencepack.signing.keys import generate_keypair

    work = tmp_path_factory.mktemp("api")
    generate_keypair(work / "key.pem", work / "pub.pem", b"api-passphrase")
    samples = work / "samples"
    shutil.copytree(REPO_ROOT / "samples", samples, ignore=shutil.ignore_patterns("generate"))
    signer = evidencepack.SignerSpec(key=work / "key.pem", passphrase="api-passphrase")
    built = evidencepack.build(
        samples / "pack.yaml",
        work / "pack",
        evidencepack.BuildOptions(signer=signer, archive=True),
    )
    assert built.signed
    assert built.archive == work / "pack.tar.gz"
    return work


def test_build_verify_and_diff_through_the_api(signed_pack: Path) -> None:
    pack = signed_pack / "pack"
    policy = evidencepack.VerifyPolicy(key=signed_pack / "pub.pem")
    report = evidencepack.verify(pack, policy)
    assert report.ok
    assert evidencepack.verify(signed_pack / "pack.tar.gz", policy).ok
    one_file = evidencepack.VerifyOptions(bundle=pack / "pack.sigstore.json")
    assert evidencepack.verify(pack / "report.pdf", policy, one_file).matched_subjects == (
        "report.pdf",
    )
    result = evidencepack.diff_packs(
        signed_pack / "pack.tar.gz", signed_pack / "samples" / "pack.yaml"
    )
    assert result.holds
    (pack / "report.html").write_text("changed", encoding="utf-8")
    assert not evidencepack.verify(pack, policy).ok
    with pytest.raises(InvalidRequest, match="say who must have signed: cert_identity and "):
        evidencepack.VerifyPolicy()


def test_api_reference_documents_every_api_name(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(REPO_ROOT / ".ci" / "api-docs"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "evidencepack.html").read_text(encoding="utf-8")
    for name in evidencepack.__all__:
        assert f'id="{name}"' in page, name
    first_line = evidencepack.check.__doc__.split("\n")[0]  # type: ignore[union-attr]
    assert first_line.split(":")[0] in page
    documented = sorted(p.name for p in tmp_path.glob("evidencepack/*.html"))
    assert documented == ["plugins.html"], "internal modules are not documented"
    from evidencepack import plugins

    page = (tmp_path / "evidencepack" / "plugins.html").read_text(encoding="utf-8")
    for name in plugins.__all__:
        assert f'id="{name}"' in page, name


def test_a_signer_of_your_own_signs_through_the_api(signed_pack: Path, tmp_path: Path) -> None:
    """``SignerSpec(custom=...)``: any object with ``mode`` and ``sign_payload`` (an HSM, a KMS)
    signs the pack as it is, and the pack verifies against that signer's key."""
    import tarfile

    from evidencepack.plugins import PackSigner
    from evidencepack.signing.keyed import KeySigner

    with tarfile.open(signed_pack / "pack.tar.gz") as archive:  # as built, whatever ran before
        archive.extractall(tmp_path, filter="data")
    pack = tmp_path / "pack"
    inner = KeySigner.from_file(signed_pack / "key.pem", lambda: b"api-passphrase")
    payloads: list[bytes] = []

    class Hsm:
        mode = "key"

        def sign_payload(self, payload: bytes) -> bytes:
            payloads.append(payload)
            return inner.sign_payload(payload)

    custom: PackSigner = Hsm()
    signed = evidencepack.sign(pack, evidencepack.SignerSpec(custom=custom), force=True)
    assert signed.mode == "key"
    assert signed.key_fingerprint
    assert payloads  # the pack's statement (and the verdicts') went through it
    assert evidencepack.verify(pack, evidencepack.VerifyPolicy(key=signed_pack / "pub.pem")).ok
    with pytest.raises(InvalidRequest, match="custom signs by itself"):
        evidencepack.SignerSpec(custom=custom, key=signed_pack / "key.pem")
