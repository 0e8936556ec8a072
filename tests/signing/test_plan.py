"""Pre-registration: ``register`` signs a spec's plan; ``check --plan`` and ``build --plan`` hold
the spec to it (check PLAN); ``verify`` checks the packed plan's signature."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.analyze.plan_check import plan_check
from evidencepack.core.provenance import sha256_file
from evidencepack.signing.keyless import KeylessSigner, load_trust_root
from evidencepack.signing.plan import plan_document, read_plan, register_plan
from evidencepack.signing.verify import KeylessPolicy, _check_signature
from evidencepack.spec.load import load_spec
from evidencepack.spec.plan import RegisteredPlan, plan_changes, plan_of

from ..sigstore_testing.fixtures import IDENTITY, ISSUER, WORKFLOW_REF
from ..sigstore_testing.instance import LocalSigstore

# slow: builds and signs the sample with a plan, over a local Sigstore instance
pytestmark = pytest.mark.slow


def _keys(tmp_path: Path, name: str) -> tuple[Path, Path]:
    key, pub = tmp_path / f"{name}.pem", tmp_path / f"{name}.pub"
    argv = ["keygen", "--no-passphrase", "--private-key", str(key), "--public-key", str(pub)]
    assert main(argv) == 0
    return key, pub


def _plan_check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["check", *argv, "--json"])
    decision = json.loads(capsys.readouterr().out)
    (plan,) = [c for c in decision["checks"] if c["id"] == "PLAN"]
    return code, plan


def test_a_raised_bar_after_registration_fails_plan(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, _ = _keys(tmp_path, "team")
    spec, plan = samples / "pack.yaml", tmp_path / "plan.sigstore.json"
    assert main(["register", str(spec), "--key", str(key), "-o", str(plan)]) == 0
    code, check = _plan_check(capsys, str(spec), "--plan", str(plan))
    assert code == 0
    # registered today, after the sample's evidence (November 2026): a visible finding
    assert check["status"] == "WARN"
    assert check["hard"] is True
    assert check["reason"].startswith("registered on ")
    assert (
        "; unchanged; but 15 run(s) or score set(s) are dated before the registration: "
        in (check["reason"])
    )
    assert "by key sha256:" in check["reason"]
    text = spec.read_text()
    spec.write_text(text.replace("threshold: 0.80", "threshold: 0.85", 1))
    code, check = _plan_check(capsys, str(spec), "--plan", str(plan))
    assert code == 1
    assert check["status"] == "FAIL"
    assert "scoring.bar.threshold: 0.8 at registration, now 0.85" in check["reason"]


def test_every_hard_change_is_named_and_a_later_candidate_is_listed(samples: Path) -> None:
    spec = load_spec(samples / "pack.yaml").spec
    plan = plan_of(spec, "0" * 64, "2026-11-01T00:00:00Z")
    assert plan_changes(plan, spec) == []
    later = spec.candidates[0].model_copy(update={"id": "gb200-dynamo"})
    changed = spec.model_copy(
        update={
            "candidates": [*spec.candidates, later],
            "objective": "fewest_accelerators",
            "slo": spec.slo.model_copy(update={"ttft_p99_ms": 900.0}),
            "traffic": spec.traffic.model_copy(update={"peak_requests_per_s": 99.0}),
        }
    )
    messages = [c.message for c in plan_changes(plan, changed)]
    assert "objective: lowest_cost_at_slo at registration, now fewest_accelerators" in messages
    assert any(m.startswith("slo.ttft_p99_ms: ") and m.endswith("now 900.0") for m in messages)
    assert any(m.startswith("traffic.peak_requests_per_s: ") for m in messages)
    assert "candidates: not registered at registration, now added gb200-dynamo" in messages
    # what is recorded but not judged (an envelope note, the governance settings) moves freely
    relaxed = spec.model_copy(update={"headroom": 0.5})
    assert plan_changes(plan, relaxed) == []
    # registered before any evidence, and unchanged: PASS, and page 1's words
    registered = RegisteredPlan(plan, "key sha256:abc", "1" * 64, b"")
    result = plan_check(spec, registered, {})
    assert result.status == "PASS"
    assert result.reason == "registered on 2026-11-01 by key sha256:abc; unchanged"
    assert result.evidence[0].pack_path == "plan.sigstore.json"


def test_a_pack_built_with_its_plan_says_so_and_verify_checks_the_plan(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, pub = _keys(tmp_path, "team")
    spec, plan = samples / "pack.yaml", tmp_path / "plan.sigstore.json"
    assert main(["register", str(spec), "--key", str(key), "-o", str(plan)]) == 0
    pack = tmp_path / "pack"
    argv = ["build", str(spec), "-o", str(pack), "--key", str(key), "--plan", str(plan)]
    assert main(argv) == 0
    assert (pack / "plan.sigstore.json").read_bytes() == plan.read_bytes()
    html = (pack / "report.html").read_text()
    assert "<strong>Plan:</strong> registered on " in html
    assert "; unchanged; but " in html
    capsys.readouterr()
    assert main(["verify", str(pack), "--key", str(pub)]) == 0
    out = capsys.readouterr().out
    assert "plan         plan.sigstore.json: registered " in out
    assert "signature verified" in out
    # a plan signed by someone else, swapped in and the pack re-signed: the decision's PLAN
    # link no longer matches the file, and the plan's signature fails the pack's key
    other_key, _ = _keys(tmp_path, "other")
    other_plan = tmp_path / "other.sigstore.json"
    assert main(["register", str(spec), "--key", str(other_key), "-o", str(other_plan)]) == 0
    (pack / "plan.sigstore.json").write_bytes(other_plan.read_bytes())
    assert main(["sign", str(pack), "--key", str(key), "--force"]) == 0
    capsys.readouterr()
    assert main(["verify", str(pack), "--key", str(pub)]) == 1
    out = capsys.readouterr().out
    assert "checks[" in out
    assert "(plan.sigstore.json)" in out


def test_a_keyless_plan_names_its_identity_and_the_log_proves_when(
    samples: Path, tmp_path: Path, local_sigstore: LocalSigstore
) -> None:
    """Registered keyless on the local Sigstore instance: who registered it is the
    certificate's identity, and verification gives the transparency log's time."""
    token = local_sigstore.identity_token(workflow_ref=WORKFLOW_REF)
    signer = KeylessSigner(token, context=local_sigstore.signing_context())
    spec = samples / "pack.yaml"
    loaded = load_spec(spec)
    now = dt.datetime.now(dt.UTC)
    plan, written = register_plan(loaded, sha256_file(spec), signer, tmp_path / "plan.json", now)
    read = read_plan(written)
    assert read.document == plan
    assert read.registered_by == f"{IDENTITY} ({ISSUER})"
    root = load_trust_root(local_sigstore.write_trusted_root(tmp_path / "trusted_root.json"))
    checked = _check_signature(read.raw, str(written), KeylessPolicy(IDENTITY, ISSUER, root))
    assert checked.signer.signed_at is not None
    assert abs((checked.signer.signed_at - now).total_seconds()) < 600
    assert plan_document(checked.payload, str(written)) == plan
