"""The verdict statements (SVR and test result) beside a pack's own: built and signed with the
real sample, checked by `verify`, and refused when one outcome in them is changed and re-signed,
when one is missing, or when another key signed it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evidencepack._cli import main
from evidencepack.pack.layout import (
    BUNDLE_NAME,
    STORE_NAME,
    SVR_BUNDLE_NAME,
    TEST_RESULT_BUNDLE_NAME,
)
from evidencepack.pipeline import BuildOptions, CompileOptions, build
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair, load_public_key
from evidencepack.signing.statement import Statement
from evidencepack.signing.verdicts import (
    SVR_PREDICATE_TYPE,
    TEST_RESULT_PREDICATE_TYPE,
    payload_bytes,
    verdict_payloads,
)
from evidencepack.signing.verify import KeyPolicy, format_report, verify_pack

from ..conftest import REPO_ROOT, SAMPLE_SPEC
from ..packs import SIGNED_SAMPLE_PASSPHRASE, SignedSample

PASSPHRASE = SIGNED_SAMPLE_PASSPHRASE
SCHEMA = json.loads((REPO_ROOT / "schemas" / "verify-report.v1.schema.json").read_text())


def _build(folder: Path, key: Path) -> Path:
    signer = KeySigner.from_file(key, lambda: PASSPHRASE)
    build(SAMPLE_SPEC, folder / "pack", BuildOptions(compile=CompileOptions()), signer)
    return folder / "pack"


@pytest.fixture(scope="session")
def signed(signed_sample: SignedSample) -> dict[str, Path]:
    """The session's signed sample (read only: ``_copy`` it to change it)."""
    return {"pack": signed_sample.pack, "key": signed_sample.key, "pub": signed_sample.pub}


def _payload(bundle: Path) -> dict[str, Any]:
    envelope = json.loads(bundle.read_text())["dsseEnvelope"]
    result: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return result


def _policy(signed: dict[str, Path]) -> KeyPolicy:
    return KeyPolicy(load_public_key(signed["pub"]))


def _copy(signed: dict[str, Path], tmp_path: Path) -> Path:
    shutil.copytree(signed["pack"], tmp_path / "pack")
    return tmp_path / "pack"


def _resign(bundle: Path, statement: dict[str, Any], key: Path) -> None:
    """What a careless tool holding the key would do: edit the statement and sign it again."""
    signer = KeySigner.from_file(key, lambda: PASSPHRASE)
    bundle.write_bytes(signer.sign_payload(payload_bytes(statement)))


def test_the_sample_carries_both_statements_and_verify_checks_them(
    signed: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack = signed["pack"]
    decision = json.loads((pack / "decision.json").read_text())
    own = _payload(pack / BUNDLE_NAME)
    own_payload = base64.b64decode(
        json.loads((pack / BUNDLE_NAME).read_text())["dsseEnvelope"]["payload"]
    )
    svr = _payload(pack / SVR_BUNDLE_NAME)
    tests = _payload(pack / TEST_RESULT_BUNDLE_NAME)
    assert svr["predicateType"] == SVR_PREDICATE_TYPE
    assert tests["predicateType"] == TEST_RESULT_PREDICATE_TYPE
    assert svr["subject"] == tests["subject"] == own["subject"]
    predicate = svr["predicate"]
    assert predicate["timeCreated"] == f"{decision['as_of']}T00:00:00Z"
    assert predicate["policy"] == {
        "name": "inputs/pack.yaml",
        "digest": {"sha256": decision["spec_sha256"]},
    }
    attested = predicate["inputAttestations"][0]["digest"]["sha256"]
    assert attested == hashlib.sha256(own_payload).hexdigest()
    verdict = decision["verdict"].replace(" ", "_")
    assert f"EVIDENCEPACK_DECISION_{verdict}" in predicate["verifiedProperties"]
    # one property and one test per check result, each with the outcome decision.json gives it
    checks = [c for c in decision["checks"] if c["candidate"] is not None]
    first = checks[0]
    candidate = first["candidate"].upper().replace("-", "_")
    check = first["id"].replace("-", "_")
    assert (
        f"EVIDENCEPACK_CANDIDATE_{candidate}_{check}_{first['status']}"
        in (predicate["verifiedProperties"])
    )
    named = tests["predicate"]["passedTests"] + tests["predicate"]["warnedTests"]
    named += tests["predicate"]["failedTests"]
    assert sorted(named) == sorted(
        f"{c['candidate']}/{c['id']}" if c["candidate"] else c["id"] for c in decision["checks"]
    )
    assert tests["predicate"]["configuration"] == [predicate["policy"]]

    report = verify_pack(pack, _policy(signed))
    assert report.ok, report.problems
    assert report.checks.verdicts == "passed"
    assert [v.file for v in report.verdicts] == [SVR_BUNDLE_NAME, TEST_RESULT_BUNDLE_NAME]
    assert report.verdicts[1].says == (tests["predicate"]["result"],)
    text = format_report(report)
    assert f"{SVR_BUNDLE_NAME}: same signer, same files, as decision.json" in text
    capsys.readouterr()
    assert main(["verify", str(pack), "--key", str(signed["pub"]), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, SCHEMA)
    assert document["checks"]["verdicts"] == "passed"


def test_one_outcome_changed_in_the_svr_and_resigned_fails(
    signed: dict[str, Path], tmp_path: Path
) -> None:
    pack = _copy(signed, tmp_path)
    svr = _payload(pack / SVR_BUNDLE_NAME)
    properties = svr["predicate"]["verifiedProperties"]
    passed = next(
        p for p in properties if p.startswith("EVIDENCEPACK_CANDIDATE_") and p.endswith("_PASS")
    )
    properties[properties.index(passed)] = passed.removesuffix("_PASS") + "_FAIL"
    _resign(pack / SVR_BUNDLE_NAME, svr, signed["key"])
    report = verify_pack(pack, _policy(signed))
    assert not report.ok
    assert report.checks.verdicts == "failed"
    assert report.decision is None
    (problem,) = report.verdicts[0].problems
    assert problem.startswith(f"{pack / SVR_BUNDLE_NAME}: predicate.verifiedProperties[")
    assert passed.removesuffix("_PASS") + "_FAIL" in problem
    assert report.verdicts[1].ok
    assert "says otherwise than decision.json" in format_report(report)


def test_one_outcome_changed_in_the_test_result_and_resigned_fails(
    signed: dict[str, Path], tmp_path: Path
) -> None:
    pack = _copy(signed, tmp_path)
    statement = _payload(pack / TEST_RESULT_BUNDLE_NAME)
    predicate = statement["predicate"]
    moved = predicate["passedTests"].pop(0)
    predicate["failedTests"].append(moved)
    _resign(pack / TEST_RESULT_BUNDLE_NAME, statement, signed["key"])
    report = verify_pack(pack, _policy(signed))
    assert not report.ok
    (problem,) = report.verdicts[1].problems
    # the first differing field in key order: the test now listed as failed
    assert f"{TEST_RESULT_BUNDLE_NAME}: predicate.failedTests[0] is {moved}; " in problem


def test_a_verdict_over_other_subjects_fails(signed: dict[str, Path], tmp_path: Path) -> None:
    pack = _copy(signed, tmp_path)
    statement = _payload(pack / SVR_BUNDLE_NAME)
    statement["subject"] = statement["subject"][:-1]
    _resign(pack / SVR_BUNDLE_NAME, statement, signed["key"])
    report = verify_pack(pack, _policy(signed))
    assert not report.ok
    assert "subject[" in report.verdicts[0].problems[0]


def test_a_missing_verdict_statement_fails(signed: dict[str, Path], tmp_path: Path) -> None:
    pack = _copy(signed, tmp_path)
    (pack / TEST_RESULT_BUNDLE_NAME).unlink()
    report = verify_pack(pack, _policy(signed))
    assert not report.ok
    assert report.verdicts[0].ok
    (problem,) = report.verdicts[1].problems
    assert problem.startswith(f"{pack / TEST_RESULT_BUNDLE_NAME}: missing")


def test_a_pack_signed_before_verdict_statements_verifies_and_says_so(
    signed: dict[str, Path], tmp_path: Path
) -> None:
    """A pack signed by an evidencepack that wrote no verdict statements carries neither: its
    own signature covers decision.json, so it verifies, and the report says they are absent
    (one of the two alone still fails, above)."""
    pack = _copy(signed, tmp_path)
    (pack / SVR_BUNDLE_NAME).unlink()
    (pack / TEST_RESULT_BUNDLE_NAME).unlink()
    report = verify_pack(pack, _policy(signed))
    assert report.ok
    assert report.checks.verdicts == "absent"
    assert report.verdicts == ()
    assert "no verdict statements" in format_report(report)


def test_a_verdict_signed_with_another_key_fails(signed: dict[str, Path], tmp_path: Path) -> None:
    pack = _copy(signed, tmp_path)
    generate_keypair(tmp_path / "other.pem", tmp_path / "other.pub", PASSPHRASE)
    _resign(pack / SVR_BUNDLE_NAME, _payload(pack / SVR_BUNDLE_NAME), tmp_path / "other.pem")
    report = verify_pack(pack, _policy(signed))
    assert not report.ok
    assert "does not verify with the given public key" in report.verdicts[0].problems[0]


# slow: a second signed build of the sample, to compare its statements
@pytest.mark.slow
def test_two_signed_builds_sign_the_same_verdicts(signed: dict[str, Path], tmp_path: Path) -> None:
    """timeCreated is the decision's date, never the wall clock, and nothing else varies: a
    second build signs the same statements, but for the store's digest (``evidence.duckdb`` is
    not byte-reproducible), hence the pack statement's digest the SVR attests."""
    again = _build(tmp_path, signed["key"])

    def stable(pack: Path, name: str) -> dict[str, Any]:
        statement = _payload(pack / name)
        statement["subject"] = [s for s in statement["subject"] if s["name"] != STORE_NAME]
        statement["predicate"].pop("inputAttestations", None)
        return statement

    for name in (SVR_BUNDLE_NAME, TEST_RESULT_BUNDLE_NAME):
        assert payload_bytes(stable(signed["pack"], name)) == payload_bytes(stable(again, name))
    # the signed bytes are exactly the statement recomputed from decision.json and the pack's
    pack = signed["pack"]
    own = _payload(pack / BUNDLE_NAME)
    raw = base64.b64decode(json.loads((pack / BUNDLE_NAME).read_text())["dsseEnvelope"]["payload"])
    recomputed = verdict_payloads(
        Statement.model_validate(own), raw, json.loads((pack / "decision.json").read_text())
    )
    for name, payload in recomputed.items():
        signed_payload = json.loads((pack / name).read_text())["dsseEnvelope"]["payload"]
        assert base64.b64decode(signed_payload) == payload, name


def _readme_gate() -> str:
    readme = (REPO_ROOT / "docs" / "reference" / "signing.md").read_text(encoding="utf-8")
    start = readme.index("## Verdict statements: the decision for policy engines")
    match = re.search(r"```python\n(.*?)```", readme[start:], re.S)
    assert match, "docs/reference/signing.md's policy-engine example is gone"
    return match.group(1)


def test_the_readme_policy_engine_reads_the_svr(signed: dict[str, Path], tmp_path: Path) -> None:
    """The docs' release gate (docs/reference/signing.md), run as written: it allows the sample,
    and blocks an SVR that no longer lists the decision's PASS."""
    gate = tmp_path / "gate.py"
    gate.write_text(_readme_gate(), encoding="utf-8")

    def run(bundle: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(gate), str(bundle)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )

    allowed = run(signed["pack"] / SVR_BUNDLE_NAME)
    assert (allowed.returncode, allowed.stdout) == (0, "release allowed\n"), allowed.stderr
    statement = _payload(signed["pack"] / SVR_BUNDLE_NAME)
    statement["predicate"]["verifiedProperties"].remove("EVIDENCEPACK_DECISION_PASS")
    _resign(tmp_path / "svr.sigstore.json", statement, signed["key"])
    blocked = run(tmp_path / "svr.sigstore.json")
    assert blocked.returncode == 1
    assert blocked.stdout == "release blocked: ['EVIDENCEPACK_DECISION_PASS']\n"
