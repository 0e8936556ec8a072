"""`evidencepack diff` on real packs built from the sample, the stack bump and edited copies.

Expected figures are read independently from both packs' decision.json as plain JSON, never
through the models the diff itself uses.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pypdf
import pytest

from evidencepack._cli import main
from evidencepack.diff.summary import md

from ..conftest import REPO_ROOT, SAMPLE_SPEC
from ..packs import SIGNED_SAMPLE_PASSPHRASE, STACK_BUMP_SPEC, SignedSample

PASSPHRASE = SIGNED_SAMPLE_PASSPHRASE


@pytest.fixture(scope="session")
def packs(signed_sample: SignedSample, signed_stack_bump: Path) -> dict[str, Path]:
    """The sample and the stack bump, built and signed with one key once per session
    (tests/packs.py; read only); plus the public key."""
    return {
        "sample": signed_sample.pack,
        "archive": signed_sample.archive,
        "bump": signed_stack_bump,
        "key": signed_sample.pub,
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["diff", *argv])
    return code, capsys.readouterr().out


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out = run(capsys, *argv, "--json")
    document: dict[str, Any] = json.loads(out)
    schema = json.loads((REPO_ROOT / "schemas" / "diff.v1.schema.json").read_text())
    jsonschema.validate(document, schema)
    return code, document


def raw_decision(pack: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pack / "decision.json").read_text(encoding="utf-8"))
    return data


def test_a_pack_against_itself_holds_with_no_change(
    packs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = run_json(
        capsys, str(packs["sample"]), str(packs["archive"]), "--key", str(packs["key"])
    )
    assert code == 0
    assert doc["compared"]
    assert doc["identical"]
    assert doc["old"]["verified"]
    assert doc["new"]["verified"]
    assert (doc["old"]["kind"], doc["new"]["kind"]) == ("folder", "archive")
    assert doc["inputs"] == doc["checks"] == doc["stacks"] == doc["envelope"] == doc["spec"] == []
    assert doc["outcome"]["holds"]
    assert doc["outcome"]["reasons"] == []
    for candidate in doc["candidates"]:
        for figure in ("operating_point_rps", "accelerators", "cost_per_month"):
            assert candidate[figure]["absolute"] == 0
    code, text = run(capsys, str(packs["sample"]), str(packs["sample"]), "--markdown")
    assert code == 0
    assert "the decision holds: no change" in text
    assert "not verified" in text


def _figures(decision: dict[str, Any], cid: str) -> dict[str, float | None]:
    verdict = next(v for v in decision["candidates"] if v["id"] == cid)
    capacity = next(c for c in decision["capacity"] if c["candidate"] == cid)
    return {
        "operating_point_rps": capacity["operating_point_rps"],
        "accelerators": verdict["accelerators_needed"],
        "servers": verdict["servers_needed"],
        "cost_per_month": verdict["cost_per_month"],
        "cost_per_million_output_tokens": verdict["cost_per_million_output_tokens"],
        "quality_estimate": verdict["quality_estimate"],
    }


def test_the_stack_bump_lists_its_changes_with_the_right_figures(
    packs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = raw_decision(packs["sample"]), raw_decision(packs["bump"])
    code, doc = run_json(
        capsys, str(packs["sample"]), str(packs["bump"]), "--key", str(packs["key"])
    )
    assert code == 0, doc["outcome"]["reasons"]
    assert not doc["identical"]
    # Every candidate's figures, old -> new, with absolute and relative change.
    for candidate in doc["candidates"]:
        before, after = _figures(old, candidate["id"]), _figures(new, candidate["id"])
        for name, value in before.items():
            figure = candidate[name]
            assert (figure["old"], figure["new"]) == (value, after[name]), name
            if value is not None and after[name] is not None:
                assert figure["absolute"] == pytest.approx(after[name] - value)
                if value:
                    assert figure["relative"] == pytest.approx((after[name] - value) / value)
    bumped = next(c for c in doc["candidates"] if c["id"] == "mi325x-vllm")
    assert bumped["operating_point_rps"]["new"] > bumped["operating_point_rps"]["old"]
    assert bumped["cost_per_month"]["relative"] < 0
    untouched = [c for c in doc["candidates"] if c["id"] != "mi325x-vllm"]
    assert all(c["cost_per_month"]["absolute"] == 0 for c in untouched)
    # The stack: only mi325x-vllm's version (and its description) changed.
    (stack,) = doc["stacks"]
    assert stack["candidate"] == "mi325x-vllm"
    fields = {f["field"]: (f["old"], f["new"]) for f in stack["fields"]}
    assert fields["stack.version"] == ("0.9.2", "0.10.1")
    assert doc["envelope"] == []
    assert {f["field"] for f in doc["spec"]} == {"decision.date"}
    # The inputs: the old sweep and scores removed, the re-measured ones added, with digests.
    old_inputs = {f["pack_path"]: f for f in old["inputs"]}
    new_inputs = {f["pack_path"]: f for f in new["inputs"]}
    changes = {i["pack_path"]: i for i in doc["inputs"]}
    removed = {p for p, f in old_inputs.items() if p not in new_inputs}
    added = {p for p, f in new_inputs.items() if p not in old_inputs}
    assert {p for p, i in changes.items() if i["change"] == "removed"} == removed
    assert {p for p, i in changes.items() if i["change"] == "added"} == added
    assert all(old_inputs[p]["candidate"] == "mi325x-vllm" for p in removed)
    assert all(changes[p]["old_sha256"] == old_inputs[p]["sha256"] for p in removed)
    assert all(changes[p]["new_sha256"] == new_inputs[p]["sha256"] for p in added)
    assert any(p.endswith("stack-bump/mi325x-vllm/scores.jsonl") for p in added)
    assert changes["inputs/pack.yaml"]["change"] == "changed"
    # The recommendation and the chosen candidate: unchanged and still eligible.
    outcome = doc["outcome"]
    assert outcome["old_recommendation"] == old["recommendation"] == new["recommendation"]
    assert outcome["new_chosen"] == "mi325x-vllm"
    assert outcome["chosen_eligible"] is True


def test_thresholds_make_a_smaller_drift_fail(
    packs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Backwards, from the bump to the sample: the chosen candidate gets dearer and slower."""
    back = (str(packs["bump"]), str(packs["sample"]))
    code, doc = run_json(capsys, *back)
    assert code == 0
    chosen = next(c for c in doc["candidates"] if c["id"] == "mi325x-vllm")
    rise = chosen["cost_per_month"]["relative"]
    loss = -chosen["operating_point_rps"]["relative"]
    assert rise > 0.05
    assert loss > 0.05
    code, doc = run_json(capsys, *back, "--fail-on-cost-increase", "5%")
    assert code == 1
    (threshold,) = doc["outcome"]["thresholds"]
    assert threshold["breached"]
    assert threshold["change"] == pytest.approx(rise)
    assert run_json(capsys, *back, "--fail-on-cost-increase", f"{rise * 100 + 1:.1f}%")[0] == 0
    assert run_json(capsys, *back, "--fail-on-capacity-loss", "5")[0] == 1
    code, text = run(capsys, *back, "--fail-on-capacity-loss", "5", "--markdown")
    assert code == 1
    assert f"limit capacity loss 5.0%: mi325x-vllm X\\* {-loss:+.1%}, BREACHED" in text
    assert run_json(capsys, *back, "--fail-on-capacity-loss", f"{loss * 100 + 1:.1f}")[0] == 0


def test_a_price_change_that_flips_the_recommendation_fails(
    packs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NEW as a spec: the sample with the MI325X at 5.00 USD/h, built for the diff (9 MI325X
    then cost 32,850 USD a month, more than the B200's whole server at 32,120)."""
    shutil.copytree(REPO_ROOT / "samples" / "evidence", tmp_path / "evidence")
    text = SAMPLE_SPEC.read_text(encoding="utf-8")
    assert text.count("per_accelerator_hour: 2.90") == 1
    spec = tmp_path / "pack.yaml"
    spec.write_text(text.replace("per_accelerator_hour: 2.90", "per_accelerator_hour: 5.00"))
    code, doc = run_json(capsys, str(packs["sample"]), str(spec))
    assert code == 1
    assert doc["new"]["kind"] == "spec"
    assert not doc["new"]["verified"]
    outcome = doc["outcome"]
    assert outcome["old_recommendation"] == "mi325x-vllm"
    assert outcome["new_recommendation"] not in (None, "mi325x-vllm")
    assert outcome["reasons"][0].startswith("the recommendation changed")
    (stack,) = doc["stacks"]
    assert [(f["field"], f["old"], f["new"]) for f in stack["fields"]] == [
        ("price.per_accelerator_hour", "2.9", "5.0")
    ]
    chosen = next(c for c in doc["candidates"] if c["id"] == "mi325x-vllm")
    assert chosen["cost_per_month"]["relative"] == pytest.approx(5.0 / 2.9 - 1)
    assert [i["pack_path"] for i in doc["inputs"]] == ["inputs/pack.yaml"]
    # DECISION warned in the old pack (the mixed billing bases); in the new the chosen
    # candidate is no longer the recommendation and the spec records no chosen_reason: FAIL
    (decision,) = [c for c in doc["checks"] if c["id"] == "DECISION"]
    assert (decision["old_status"], decision["new_status"]) == ("WARN", "FAIL")
    assert "the spec records no chosen_reason" in decision["new_reason"]


def test_a_tampered_pack_fails_verification_and_nothing_is_compared(
    packs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = tmp_path / "tampered"
    shutil.copytree(packs["sample"], tampered)
    path = tampered / "decision.json"
    path.write_text(path.read_text().replace('"mi325x-vllm"', '"h200-vllm"', 1))
    key = str(packs["key"])
    code, doc = run_json(capsys, str(packs["sample"]), str(tampered), "--key", key)
    assert code == 1
    assert not doc["compared"]
    assert doc["outcome"] is None
    assert doc["candidates"] == doc["inputs"] == doc["checks"] == []
    assert doc["new"]["verified"] is False
    assert doc["new"]["decision_id"] is None
    assert any("decision.json" in p for p in doc["problems"])
    code, text = run(capsys, str(tampered), str(packs["sample"]), "--key", key)
    assert code == 1
    assert "NOT COMPARED" in text
    assert "decision.json: changed after signing" in text
    # Unverified (no key), the edit is still caught: decision.json no longer matches manifest.json.
    assert main(["diff", str(packs["sample"]), str(tampered)]) == 3
    assert "disagree with its records" in capsys.readouterr().err


def test_change_note_renders_and_signs_like_a_pack(
    packs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    note = tmp_path / "note"
    code, _ = run(capsys, str(packs["sample"]), str(packs["bump"]), "--report", str(note))
    assert code == 0
    html = (note / "change-note.html").read_text(encoding="utf-8")
    assert "Does the decision hold?" in html
    assert "0.9.2 \u2192 0.10.1" in html
    pdf = (note / "change-note.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-")
    reader = pypdf.PdfReader(note / "change-note.pdf")
    assert 1 <= len(reader.pages) <= 2
    assert json.loads(reader.attachments["diff.json"][0]) == json.loads(
        (note / "diff.json").read_text()
    )
    assert (note / "inputs" / "pack.yaml").read_bytes() == STACK_BUMP_SPEC.read_bytes()
    # Deterministic, and an existing OUTDIR is replaced only with --force.
    assert main(["diff", str(packs["sample"]), str(packs["bump"]), "--report", str(note)]) == 2
    again = tmp_path / "again"
    run(capsys, str(packs["sample"]), str(packs["bump"]), "--report", str(again))
    for name in ("change-note.html", "change-note.pdf", "diff.json", "predicate.json"):
        assert (again / name).read_bytes() == (note / name).read_bytes(), name
    # Signed and verified with the pack commands.
    monkeypatch.setenv("EVIDENCEPACK_KEY_PASSPHRASE", PASSPHRASE.decode())
    assert main(["sign", str(note), "--key", str(packs["key"].with_name("key.pem"))]) == 0
    assert main(["verify", str(note), "--key", str(packs["key"])]) == 0
    (note / "change-note.html").write_text(html.replace("holds", "fails"))
    assert main(["verify", str(note), "--key", str(packs["key"])]) == 1


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--fail-on-cost-increase", "ten"], 2),
        (["--fail-on-capacity-loss", "-5%"], 2),
        (["--json", "--markdown"], 2),
        (["--cert-identity", "someone"], 2),
        (["--trusted-root", "root.json"], 2),
    ],
)
def test_usage_errors(
    packs: dict[str, Path], argv: list[str], code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(packs["sample"]), str(packs["sample"]), *argv]) == code
    assert "error" in capsys.readouterr().err


def test_old_must_be_a_pack_and_paths_must_exist(
    packs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(SAMPLE_SPEC), str(packs["sample"])]) == 2
    assert "OLD must be a built pack" in capsys.readouterr().err
    assert main(["diff", str(packs["sample"]), str(tmp_path / "nowhere")]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["diff", str(packs["sample"]), str(empty)]) == 3
    assert "is it a pack built by evidencepack?" in capsys.readouterr().err


def test_an_inconsistent_pack_could_not_be_compared(
    packs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(packs["sample"], broken)
    (broken / "decision.json").write_text('{"apiVersion": "evidencepack/decision/v1"}')
    assert main(["diff", str(packs["sample"]), str(broken)]) == 3
    err = capsys.readouterr().err
    # unverified, the pack's signed statement still names decision.json's digest
    assert "decision.json: changed after signing: signed sha256 " in err
    shutil.copytree(packs["sample"], broken, dirs_exist_ok=True)
    (broken / "decision.json").write_text((broken / "decision.json").read_text() + "\n")
    assert main(["diff", str(packs["sample"]), str(broken)]) == 3
    assert "decision.json: changed after signing" in capsys.readouterr().err


def test_markdown_cells_cannot_carry_markup() -> None:
    cell = md("a|b <script>x</script> [link](http://x) `code` *em*\nnext")
    assert "|" not in cell.replace("\\|", "")
    assert "<" not in cell
    assert ">" not in cell
    assert "\n" not in cell
    for special in "[]`*":
        assert f"\\{special}" in cell


README = REPO_ROOT / "docs" / "reference" / "diff.md"  # the page holding the example
README_START, README_END = "<!-- diff-example:start -->\n", "<!-- diff-example:end -->\n"


def test_readme_shows_the_stack_bump_markdown(
    packs: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    update_goldens: bool,
) -> None:
    """The docs' example (docs/reference/diff.md) is this command's output, run where the two
    packs sit."""
    monkeypatch.chdir(packs["sample"].parent)
    code, out = run(capsys, "pack", "pack-stack-bump", "--markdown")
    assert code == 0
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(README_START, 1)
    shown, tail = rest.split(README_END, 1)
    if update_goldens and shown != out:
        README.write_text(head + README_START + out + README_END + tail, encoding="utf-8")
        return
    assert shown == out, "run pytest --update-goldens to refresh the docs' diff example"


def test_a_spec_that_does_not_build_could_not_run(
    packs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "pack.yaml"
    spec.write_text(SAMPLE_SPEC.read_text(encoding="utf-8").replace("headroom:", "headrom:"))
    assert main(["diff", str(packs["sample"]), str(spec)]) == 3
    err = capsys.readouterr().err
    assert "the spec does not build" in err
    assert "headrom" in err
