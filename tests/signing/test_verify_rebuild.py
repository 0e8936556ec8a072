"""An auditor's `verify` on forged, re-signed packs: the documents must agree with each other,
and `--rebuild` recomputes the decision from the pack alone and names the first field that
differs, on a folder and on an archive. Every pack here is the real sample, built and signed."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import evidencepack.signing.verify as verify_module
from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.pack.archive import write_archive
from evidencepack.pack.manifest import manifest_bytes
from evidencepack.pack.predicate import load_predicate, source_date_epoch, write_predicate
from evidencepack.pipeline import BuildOptions, CompileOptions, build, decision_json
from evidencepack.render.html import render_html
from evidencepack.render.pdf import Attachment, render_pdf
from evidencepack.render.signing_plan import SigningPlan
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.verify import VerifyReport, format_report

from ..conftest import REPO_ROOT
from ..packs import SIGNED_SAMPLE_PASSPHRASE, SignedSample

PASSPHRASE = SIGNED_SAMPLE_PASSPHRASE.decode()
RECOMMENDATION = '\n  "recommendation": "mi325x-vllm",\n'  # decision.json's top-level field
FORGED_LINE = "decision.json: recommendation is h200-vllm; recomputed: mi325x-vllm"
SCHEMA = json.loads((REPO_ROOT / "schemas" / "verify-report.v1.schema.json").read_text())


@pytest.fixture(scope="session")
def signed(signed_sample: SignedSample) -> dict[str, Path]:
    """The session's signed sample (read only: ``_copy`` it to forge)."""
    return {"pack": signed_sample.pack, "key": signed_sample.key, "pub": signed_sample.pub}


def _copy(signed: dict[str, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "pack"
    shutil.copytree(signed["pack"], copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _resign(pack: Path, signed: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDENCEPACK_KEY_PASSPHRASE", PASSPHRASE)
    assert main(["sign", str(pack), "--key", str(signed["key"]), "--force"]) == 0


def _archive(pack: Path) -> Path:
    mtime = source_date_epoch(load_predicate(pack).created_at)
    return write_archive(pack, pack.with_name("forged.tar.gz"), mtime=mtime, root=pack.name)


def _verify(
    capsys: pytest.CaptureFixture[str], target: Path, pub: Path, *extra: str
) -> tuple[int, str, dict[str, Any]]:
    """`verify --json` through the CLI (exit code and document), and the text it would print."""
    capsys.readouterr()
    code = main(["verify", str(target), "--key", str(pub), *extra, "--json"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, SCHEMA)
    return code, format_report(VerifyReport.model_validate(document)), document


# slow: two verify --rebuild runs (folder and archive), each a full build of the sample
@pytest.mark.slow
def test_a_resigned_pack_recommending_another_candidate_fails_the_rebuild(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's forgery: decision.json edited to recommend h200-vllm, re-signed with the
    same key. `verify --rebuild` fails naming the field, on the folder and on the archive."""
    forged = _copy(signed, tmp_path)
    _edit(forged / "decision.json", RECOMMENDATION, RECOMMENDATION.replace("mi325x", "h200"))
    _resign(forged, signed, monkeypatch)
    capsys.readouterr()
    assert main(["verify", str(forged), "--key", str(signed["pub"])]) == 1
    assert capsys.readouterr().out.startswith("FAIL: pack ")
    for target in (forged, _archive(forged)):
        code, text, document = _verify(capsys, target, signed["pub"], "--rebuild")
        assert code == 1, target
        assert text.startswith("FAIL: "), text
        assert f"rebuild      FAIL: {FORGED_LINE}" in text
        assert "pack says" not in text
        assert document["ok"] is False
        assert document["decision"] is None  # no verdict taken from a failed pack
        assert "PASS" not in json.dumps(document["decision"])
        assert document["checks"] == {
            "signature": "passed",
            "files": "passed",
            "documents": "failed",
            # re-signed with the forged decision.json: the verdict statements say what it says
            "verdicts": "passed",
            "rebuild": "failed",
        }
        first = document["rebuild"]["differing"][0]
        assert (first["file"], first["field"]) == ("decision.json", "recommendation")
        assert (first["pack_value"], first["recomputed_value"]) == ("h200-vllm", "mi325x-vllm")


def _forge_consistently(pack: Path) -> None:
    """A careful forger: decision.json recommends h200-vllm, and manifest.json, predicate.json,
    the HTML and the PDF (with its attachments) are all made again from that decision."""
    raw = json.loads((pack / "decision.json").read_text(encoding="utf-8"))
    raw["recommendation"] = "h200-vllm"
    decision = DecisionDocument.model_validate(raw)
    dec_bytes = decision_json(decision)
    man_bytes = manifest_bytes(decision, dec_bytes)
    bundle = json.loads((pack / "pack.sigstore.json").read_text())
    hint = bundle["verificationMaterial"]["publicKey"]["hint"]
    html = render_html(
        decision,
        evidence_digest=hashlib.sha256(man_bytes).hexdigest(),
        signer=SigningPlan("key", hint),
    )
    created = load_predicate(pack).created_at
    pdf = render_pdf(
        html,
        created=dt.datetime.fromisoformat(created.replace("Z", "+00:00")),
        attachments=[
            Attachment(
                name="manifest.json",
                data=man_bytes,
                mime_type="application/json",
                description="evidence manifest: every input and the decision, by sha256",
            ),
            Attachment(
                name="decision.json",
                data=dec_bytes,
                mime_type="application/json",
                description="the complete analysis and decision",
            ),
        ],
    )
    for name, data in (
        ("decision.json", dec_bytes),
        ("manifest.json", man_bytes),
        ("report.html", html.encode()),
        ("report.pdf", pdf),
    ):
        (pack / name).write_bytes(data)
    predicate = load_predicate(pack)
    summary = predicate.decision.model_copy(update={"recommendation": "h200-vllm"})
    write_predicate(pack, predicate.model_copy(update={"decision": summary}))


# slow: renders a forged report's PDF, then a verify --rebuild (a full build)
@pytest.mark.slow
def test_a_consistent_forgery_passes_every_level_but_the_rebuild(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What each level proves: documents made again from a forged decision agree with each
    other and are signed; only the recomputation from the evidence shows the forgery."""
    forged = _copy(signed, tmp_path)
    _forge_consistently(forged)
    _resign(forged, signed, monkeypatch)
    code, text, document = _verify(capsys, forged, signed["pub"])
    assert code == 0, text
    # "pack says" is what decision.json says (signed and consistent, not recomputed).
    assert "pack says    decision contract-summariser-2026q4: recommends h200-vllm" in text
    assert document["decision"]["recommendation"] == "h200-vllm"
    assert document["checks"]["rebuild"] == "not run"
    code, text, document = _verify(capsys, forged, signed["pub"], "--rebuild")
    assert code == 1
    assert text.startswith("FAIL: ")
    assert "contradicts" not in text
    assert f"rebuild      FAIL: {FORGED_LINE}" in text
    assert document["ok"] is False
    assert document["decision"] is None
    assert document["checks"]["documents"] == "passed"


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        (
            "decision.json",
            RECOMMENDATION,
            RECOMMENDATION.replace("mi325x", "h200"),
            "decision.json: recommendation is h200-vllm; "
            "predicate.json: decision.recommendation is mi325x-vllm",
        ),
        (
            "decision.json",
            '\n  "verdict": "PASS",\n',
            '\n  "verdict": "PASS WITH WAIVERS",\n',
            "decision.json: verdict is PASS WITH WAIVERS; manifest.json: decision.verdict is PASS",
        ),
        (
            "manifest.json",
            '\n    "recommendation": "mi325x-vllm",\n',
            '\n    "recommendation": "b200-trtllm",\n',
            "decision.json: recommendation is mi325x-vllm; "
            "manifest.json: decision.recommendation is b200-trtllm",
        ),
        (
            "predicate.json",
            '\n    "chosen": "mi325x-vllm",\n',
            '\n    "chosen": "h200-vllm",\n',
            "decision.json: chosen is mi325x-vllm; predicate.json: decision.chosen is h200-vllm",
        ),
        (
            "report.html",
            'class="mono pack-digest">',
            'class="mono pack-digest">' + "0" * 64 + "<!-- -->",
            "report.html: pack digest is " + "0" * 64,
        ),
    ],
)
def test_documents_that_contradict_each_other_fail_without_rebuild(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    old: str,
    new: str,
    expected: str,
) -> None:
    forged = _copy(signed, tmp_path)
    _edit(forged / name, old, new)
    _resign(forged, signed, monkeypatch)
    code, text, document = _verify(capsys, forged, signed["pub"])
    assert code == 1
    assert text.startswith("FAIL: ")
    (line,) = [line for line in text.splitlines() if expected in line]
    assert line.startswith("  contradicts  ")
    assert document["ok"] is False
    assert document["decision"] is None
    assert document["claimed_decision_id"] == "contract-summariser-2026q4"
    assert document["checks"]["documents"] == "failed"
    assert document["checks"]["files"] == "passed"
    said = [
        f"{c['document']}: {c['field']} is {c['value']}; "
        f"{c['other']}: {c['other_field']} is {c['other_value']}"
        for c in document["contradictions"]
    ]
    assert any(expected in line for line in said), said


# slow: a verify --rebuild: a full build of the sample
@pytest.mark.slow
def test_the_untouched_pack_passes_every_level_from_its_archive(
    signed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = _archive(_copy(signed, tmp_path))
    code, text, document = _verify(capsys, archive, signed["pub"], "--rebuild")
    assert code == 0, text
    assert text.startswith("OK: archive ")
    assert document["ok"] is True
    assert set(document["checks"].values()) == {"passed"}
    assert document["rebuild"]["compared"] == [
        "decision.json",
        "manifest.json",
        "report.html",
        "report.pdf",
    ]
    assert document["decision"]["recommendation"] == "mi325x-vllm"


# slow: builds and signs a variant of the sample
@pytest.mark.slow
def test_a_pack_whose_spec_cites_paths_outside_it_does_not_rebuild(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], signed: dict[str, Path]
) -> None:
    """Built with --allow-outside-paths, the pack's spec still names the outside path: the
    rebuild reads only the pack, so it refuses, naming the line and the path."""
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.move(samples / "evidence/dataset/contracts-eval.jsonl", outside / "contracts-eval.jsonl")
    spec = samples / "pack.yaml"
    _edit(
        spec,
        "path: evidence/dataset/contracts-eval.jsonl",
        "path: ../outside/contracts-eval.jsonl",
    )
    signer = KeySigner.from_file(signed["key"], lambda: PASSPHRASE.encode())
    options = BuildOptions(compile=CompileOptions(allow_outside=True))
    build(spec, tmp_path / "pack", options, signer)
    code, text, document = _verify(capsys, tmp_path / "pack", signed["pub"], "--rebuild")
    assert code == 1
    assert text.startswith("FAIL: ")
    assert "cites 1 path(s) outside the pack" in text
    assert "inputs/pack.yaml:24:" in text
    assert "dataset.path: '../outside/contracts-eval.jsonl' is outside the pack" in text
    assert document["checks"]["rebuild"] == "failed"
    assert document["rebuild"]["compared"] == []
    assert str(tmp_path) not in "".join(document["rebuild"]["problems"])


def test_text_from_the_pack_reaches_the_terminal_visibly(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bidi override and a terminal escape written into decision.json's summary are shown
    as escapes in the contradiction, never raw."""
    forged = _copy(signed, tmp_path)
    _edit(
        forged / "decision.json",
        '\n  "summary": "Recommend ',
        '\n  "summary": "\\u202e\\u001b[2J',
    )
    _resign(forged, signed, monkeypatch)
    capsys.readouterr()
    assert main(["verify", str(forged), "--key", str(signed["pub"])]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "predicate.json: decision.summary" in line]
    assert line.startswith("  contradicts  decision.json: summary is \\u202e\\u001b[2J")
    for char in ("\u202e", "\x1b"):
        assert char not in out


# slow: a verify --rebuild: a full build of the sample
@pytest.mark.slow
def test_the_rebuild_reads_the_verified_copy_not_the_folder_again(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Right after verification hashes the pack, the folder's spec is changed (a dearer
    MI325X, another recommendation): the rebuild recomputes from the bytes verified."""
    pack = _copy(signed, tmp_path)
    spec = pack / "inputs" / "pack.yaml"
    real_hash = verify_module.hash_files
    swapped: list[bool] = []

    def hash_then_swap(files: dict[str, Path]) -> dict[str, str]:
        digests = real_hash(files)
        if not swapped:
            _edit(spec, "per_accelerator_hour: 2.90", "per_accelerator_hour: 5.00")
            swapped.append(True)
        return digests

    monkeypatch.setattr(verify_module, "hash_files", hash_then_swap)
    code, text, document = _verify(capsys, pack, signed["pub"], "--rebuild")
    assert swapped
    assert "per_accelerator_hour: 5.00" in spec.read_text(encoding="utf-8")
    assert code == 0, text
    assert document["checks"]["rebuild"] == "passed"
    assert document["rebuild"]["differing"] == []


def test_a_lone_file_that_fails_carries_no_verdict(
    signed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = tmp_path / "report.pdf"
    data = bytearray((signed["pack"] / "report.pdf").read_bytes())
    data[len(data) // 2] ^= 0x01
    pdf.write_bytes(bytes(data))
    bundle = ["--bundle", str(signed["pack"] / "pack.sigstore.json")]
    code, text, document = _verify(capsys, pdf, signed["pub"], *bundle)
    assert code == 1
    assert document["ok"] is False
    assert document["decision"] is None
    assert document["checks"] == {
        "signature": "passed",
        "files": "failed",
        "documents": "not run",
        "verdicts": "not run",
        "rebuild": "not run",
    }
    assert "pack says" not in text
    code, text, document = _verify(capsys, signed["pack"] / "report.pdf", signed["pub"], *bundle)
    assert code == 0
    assert document["decision"]["verdict"] == "PASS"


def test_a_forged_decision_is_rebuilt_once(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the rendered reports name the signer: when decision.json differs, a second rebuild
    rendered for no signer (the fallback for a pack built unsigned, then signed) would differ
    too, and is not made. The fallback itself: hostile/test_plugins.py."""
    import evidencepack.pipeline as pipeline

    forged = _copy(signed, tmp_path)
    _edit(forged / "decision.json", RECOMMENDATION, RECOMMENDATION.replace("mi325x", "h200"))
    plans: list[object] = []
    real = pipeline._rebuilt

    def counted(*args: Any) -> Any:
        plans.append(args[3])
        return real(*args)

    monkeypatch.setattr(pipeline, "_rebuilt", counted)
    outcome = pipeline.rebuild(forged)
    assert not outcome.ok
    assert [d.file for d in outcome.differing][:1] == ["decision.json"]
    assert len(plans) == 1  # before: twice, the second for no signer
    assert plans[0] is not None  # the signed pack's signer line
