"""How checks map onto OSCAL findings (a real pack with a FAIL and a waiver, and a crafted
decision with verdicts and statuses this version does not write), and what the export refuses:
anything not a pack, and a pack whose records disagree with its files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.export.oscal import RESULTS_NAME, write_export
from evidencepack.export.packread import read_pack
from evidencepack.pack.layout import DECISION_NAME, MANIFEST_NAME
from evidencepack.pipeline import BuildOptions, CompileOptions, build

from .conftest import oscal_errors

# slow: builds a variant of the sample (a FAIL and a waiver) to export it
pytestmark = pytest.mark.slow

H200_SERVER = "no-round/closed/SampleVendor/8xH200-SXM-141GB_TRT/llama2-70b-99/Server"
MI325X_SERVER = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
WAIVER = """
waivers:
  - check: C1
    candidate: mi325x-vllm
    reason: Offline figure accepted for this sample
    approver: A. Example
    expires: 2027-01-31
"""


def _findings(folder: Path) -> dict[tuple[str, str | None], dict[str, Any]]:
    """Each finding by (check id, candidate), read back from its props."""
    ar = json.loads((folder / RESULTS_NAME).read_text())["assessment-results"]
    out = {}
    for finding in ar["results"][0]["findings"]:
        props = {p["name"]: p["value"] for p in finding["props"]}
        out[props["check-id"], props.get("candidate-id")] = finding
    return out


def _status(finding: dict[str, Any]) -> tuple[str, str]:
    status = finding["target"]["status"]
    return status["state"], status["reason"]


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_a_fail_and_a_waived_fail_map_as_oscal_says(
    samples: Path, tmp_path: Path, schema_1_2_3: dict[str, Any]
) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text()
    for key in (H200_SERVER, MI325X_SERVER):
        assert key in text
        text = text.replace(key, key.replace("/Server", "/Offline"))
    spec.write_text(text + WAIVER)
    build(spec, tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    assert main(["export", "oscal", str(tmp_path / "pack"), "-o", str(tmp_path / "out")]) == 0
    findings = _findings(tmp_path / "out")
    failed = findings["C1", "h200-vllm"]
    assert _status(failed) == ("not-satisfied", "fail")
    assert failed["target"]["status"]["remarks"].startswith("FAIL: ")
    waived = findings["C1", "mi325x-vllm"]
    assert _status(waived) == ("not-satisfied", "other")
    props = {p["name"]: p["value"] for p in waived["props"]}
    assert props["check-status"] == "FAIL"
    assert props["waiver-approver"] == "A. Example"
    assert props["waiver-expires"] == "2027-01-31"
    assert props["waiver-reason"] == "Offline figure accepted for this sample"
    assert waived["remarks"] == (
        "Waived: approved by A. Example, expires 2027-01-31: Offline figure accepted for this "
        "sample"
    )
    assert _status(findings["C2", "mi325x-vllm"]) == ("satisfied", "pass")
    # a WARN (the reference's looser latency limit); the round-less reference is now a note
    assert _status(findings["C1", "b200-trtllm"]) == ("not-satisfied", "other")
    assert _status(findings["PROV-MLPERF", "mi325x-vllm"]) == ("satisfied", "pass")
    results = json.loads((tmp_path / "out" / RESULTS_NAME).read_text())
    assert oscal_errors(schema_1_2_3, results) == []


def _copy(sample_pack: Path, tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(sample_pack, pack)
    return pack


def _rewrite_decision(pack: Path, edit: Any) -> None:
    """Edit decision.json and record its new digest in the manifest, as a writer would."""
    decision = json.loads((pack / DECISION_NAME).read_text())
    edit(decision)
    raw = (json.dumps(decision, indent=2, sort_keys=True) + "\n").encode()
    (pack / DECISION_NAME).write_bytes(raw)
    manifest = json.loads((pack / MANIFEST_NAME).read_text())
    manifest["decision"]["sha256"] = hashlib.sha256(raw).hexdigest()
    (pack / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def test_any_verdict_and_status_word_and_waiver_detail_export(
    sample_pack: Path, tmp_path: Path, schema_1_2_3: dict[str, Any]
) -> None:
    pack = _copy(sample_pack, tmp_path)

    def edit(decision: dict[str, Any]) -> None:
        decision["verdict"] = "PASS WITH WAIVERS"
        decision["checks"][0]["status"] = "SKIPPED"
        decision["checks"][1]["status"] = "WARN"
        decision["checks"][1]["waived"] = {
            "check": decision["checks"][1]["id"],
            "candidate": decision["checks"][1]["candidate"],
            "reason": "accepted\nfor now",
            "approver": "B. Example",
            "expires": "2027-03-01",
            "ticket": "GRC-12",  # a detail a newer pack may add: carried, not required
        }
        decision["a_field_from_a_newer_version"] = {"ignored": True}

    _rewrite_decision(pack, edit)
    # A pack written by a newer version: its documents agree with each other, so only the
    # export's own readers (read_pack) are exercised on the edited decision.
    write_export(read_pack(pack, str(pack)), tmp_path / "out", "1.2.3")
    results = json.loads((tmp_path / "out" / RESULTS_NAME).read_text())
    assert oscal_errors(schema_1_2_3, results) == []
    ar = results["assessment-results"]
    assert {
        "name": "verdict",
        "ns": "https://evidencepack.dev/ns/oscal",
        "value": "PASS WITH WAIVERS",
    } in ar["metadata"]["props"]
    first, second = ar["results"][0]["findings"][:2]
    assert _status(first) == ("not-satisfied", "other")
    assert first["target"]["status"]["remarks"].startswith("SKIPPED: ")
    assert _status(second) == ("not-satisfied", "other")
    assert (
        second["remarks"] == "Waived: approved by B. Example, expires 2027-03-01: accepted for now"
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "predicate.json: no such file (is it a pack built by evidencepack?)"),
        (lambda p: p.write_text("hello"), "not an evidence pack: give a pack folder or a .tar.gz"),
        (lambda p: None, "no such pack"),
    ],
    ids=["empty-folder", "a-text-file", "missing"],
)
def test_what_is_not_a_pack_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    target = tmp_path / "thing"
    make(target)
    assert main(["export", "oscal", str(target), "-o", str(tmp_path / "out")]) == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_damaged_archive_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "pack.tar.gz"
    archive.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    assert main(["export", "oscal", str(archive), "-o", str(tmp_path / "out")]) == 1
    assert f"{archive}: damaged archive" in capsys.readouterr().err


def _refused(pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["export", "oscal", str(pack), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "the pack does not verify" in err
    assert not (tmp_path / "out" / RESULTS_NAME).exists()
    return err


def test_an_input_that_is_not_the_one_the_manifest_lists_is_refused(
    sample_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _copy(sample_pack, tmp_path)
    manifest = json.loads((pack / MANIFEST_NAME).read_text())
    changed, missing = manifest["inputs"][3]["pack_path"], manifest["inputs"][5]["pack_path"]
    with (pack / changed).open("ab") as handle:
        handle.write(b"\n")
    (pack / missing).unlink()
    err = _refused(pack, tmp_path, capsys)
    assert f"manifest.json: inputs[3].sha256 ({changed}) is " in err
    assert f"{changed}: sha256 of the file is " in err
    assert f"{missing}: sha256 of the file is absent" in err


def test_a_decision_the_manifest_does_not_describe_is_refused(
    sample_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _copy(sample_pack, tmp_path)
    decision = pack / DECISION_NAME
    decision.write_text(decision.read_text().replace('"PASS"', '"FAIL"', 1))
    err = _refused(pack, tmp_path, capsys)
    assert "decision.json: sha256 of the file is " in err
    assert "manifest.json: decision.sha256 is " in err


def test_a_decision_missing_a_field_names_it(
    sample_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _copy(sample_pack, tmp_path)
    _rewrite_decision(pack, lambda d: d["checks"][2].pop("status"))
    err = _refused(pack, tmp_path, capsys)
    assert "decision.json: checks[2].status is absent" in err


def test_a_signed_pack_exports_the_same_and_a_changed_signed_file_is_refused(
    sample_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _copy(sample_pack, tmp_path)
    key, pub = tmp_path / "k.pem", tmp_path / "k.pub"
    assert (
        main(["keygen", "--no-passphrase", "--private-key", str(key), "--public-key", str(pub)])
        == 0
    )
    assert main(["sign", str(pack), "--key", str(key)]) == 0
    assert main(["export", "oscal", str(pack), "-o", str(tmp_path / "signed")]) == 0
    assert main(["export", "oscal", str(sample_pack), "-o", str(tmp_path / "unsigned")]) == 0
    signed, unsigned = (tmp_path / f / RESULTS_NAME for f in ("signed", "unsigned"))
    assert signed.read_bytes() == unsigned.read_bytes()
    capsys.readouterr()
    # The report is no input of the manifest: only the signed statement says what it was.
    with (pack / "report.html").open("ab") as handle:
        handle.write(b"<!-- edited -->")
    err = _refused(pack, tmp_path, capsys)
    assert "report.html: changed after signing: signed sha256 " in err


def test_export_of_an_unsigned_pack_loads_no_store_renderer_or_sigstore(
    sample_pack: Path, tmp_path: Path
) -> None:
    from ..test_startup import _imported

    imported = _imported("export", "oscal", str(sample_pack), "-o", str(tmp_path / "out"))
    # cryptography: the one pack reader is verify's (no signature is checked here)
    assert imported <= {"pydantic", "cryptography"}
    assert (tmp_path / "out" / RESULTS_NAME).is_file()


@pytest.mark.parametrize("argv", [["export", "--help"], ["export", "oscal", "--help"]])
def test_export_help_imports_no_heavy_library(argv: list[str]) -> None:
    from ..test_startup import _imported

    assert _imported(*argv) == set()
