"""`diff` compares what it verified, refuses packs of other decisions, and its text and
Markdown say what failed and carry no mention, link, markup or hidden character from a pack."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evidencepack.signing.verify as verify_module
from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.diff.compare import compare
from evidencepack.diff.models import PackSide
from evidencepack.diff.summary import format_markdown, format_text
from evidencepack.pack.manifest import manifest_bytes
from evidencepack.pipeline import decision_json

from ..packs import SIGNED_SAMPLE_PASSPHRASE, SignedSample

PASSPHRASE = SIGNED_SAMPLE_PASSPHRASE.decode()
HIDDEN = ("\u202e", "\u200b", "\u2028", "\x1b")


@pytest.fixture(scope="session")
def signed(signed_sample: SignedSample) -> dict[str, Path]:
    """The session's signed sample (read only: copy it to change it)."""
    return {"pack": signed_sample.pack, "key": signed_sample.key, "pub": signed_sample.pub}


def _decision(pack: Path) -> DecisionDocument:
    return DecisionDocument.model_validate_json((pack / "decision.json").read_bytes())


def _diff_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["diff", *argv, "--json"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, document


def test_a_decision_swapped_after_verification_is_never_read(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Right after NEW's files are hashed (in the reader's private copy), NEW's decision.json
    and manifest.json are replaced by a consistent pair recommending h200-vllm: the diff still
    compares the verified decision."""
    new = tmp_path / "new"
    shutil.copytree(signed["pack"], new)
    original = (new / "decision.json").read_bytes()
    forged = _decision(new).model_copy(update={"recommendation": "h200-vllm"})
    forged_bytes = decision_json(forged)
    real_hash: Callable[[dict[str, Path]], dict[str, str]] = verify_module.hash_files
    swapped: list[Path] = []
    hashed: list[Path] = []  # OLD's copy is hashed first, then NEW's

    def hash_then_swap(files: dict[str, Path]) -> dict[str, str]:
        digests = real_hash(files)
        decision = files.get("decision.json")
        if decision is not None:
            hashed.append(decision)
        if decision is not None and len(hashed) == 2 and not swapped:
            (new / "decision.json").write_bytes(forged_bytes)
            (new / "manifest.json").write_bytes(manifest_bytes(forged, forged_bytes))
            swapped.append(decision)
        return digests

    monkeypatch.setattr(verify_module, "hash_files", hash_then_swap)
    code, doc = _diff_json(capsys, str(signed["pack"]), str(new), "--key", str(signed["pub"]))
    assert swapped, "the swap hook never ran"
    assert (new / "decision.json").read_bytes() == forged_bytes  # the folder holds the forgery
    assert code == 0, doc
    assert doc["new"]["verified"] is True
    assert doc["new"]["recommendation"] == "mi325x-vllm"
    assert doc["outcome"]["new_recommendation"] == "mi325x-vllm"
    assert doc["new"]["decision_sha256"] == hashlib.sha256(original).hexdigest()
    assert doc["identical"]


def test_diff_and_verify_agree_on_a_resigned_edited_pack(
    signed: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """decision.json edited and the pack re-signed: verify fails it, and so does diff (it is
    not compared, and the problem names both documents), rather than "could not run"."""
    new = tmp_path / "new"
    shutil.copytree(signed["pack"], new)
    path = new / "decision.json"
    line = '\n  "recommendation": "mi325x-vllm",\n'  # the top-level field only
    text = path.read_text()
    assert text.count(line) == 1
    path.write_text(text.replace(line, line.replace("mi325x", "h200")))
    monkeypatch.setenv("EVIDENCEPACK_KEY_PASSPHRASE", PASSPHRASE)
    assert main(["sign", str(new), "--key", str(signed["key"]), "--force"]) == 0
    assert main(["verify", str(new), "--key", str(signed["pub"])]) == 1
    code, doc = _diff_json(capsys, str(signed["pack"]), str(new), "--key", str(signed["pub"]))
    assert code == 1
    assert not doc["compared"]
    assert doc["not_compared_because"] == "verification failed"
    assert any(
        "decision.json: recommendation is h200-vllm; predicate.json" in p for p in doc["problems"]
    ), doc["problems"]


def test_packs_of_different_decisions_are_compared_only_when_asked(
    signed: dict[str, Path], samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count("id: contract-summariser-2026q4") == 1
    spec.write_text(text.replace("id: contract-summariser-2026q4", "id: another-decision"))
    code, doc = _diff_json(capsys, str(signed["pack"]), str(spec))
    assert code == 1
    assert not doc["compared"]
    assert doc["not_compared_because"] == "different decisions"
    assert doc["outcome"] is None
    assert "--allow-other-decision" in doc["problems"][0]
    capsys.readouterr()
    assert main(["diff", str(signed["pack"]), str(spec), "--markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        "### evidencepack diff: NOT COMPARED: the packs are of different decisions "
        "(contract-summariser-2026q4, another-decision)"
    )
    assert "holds" not in out
    code, doc = _diff_json(capsys, str(signed["pack"]), str(spec), "--allow-other-decision")
    assert doc["compared"]
    assert doc["other_decision"] is True
    assert code == 0  # the same recommendation, the same chosen candidate, still eligible
    capsys.readouterr()
    main(["diff", str(signed["pack"]), str(spec), "--allow-other-decision"])
    head = capsys.readouterr().out.splitlines()[0]
    assert head == (
        "evidencepack diff: the decision holds (different decisions compared as asked: "
        "contract-summariser-2026q4 -> another-decision)"
    )


def _side(source: str = "pack") -> PackSide:
    return PackSide(source=source, kind="folder", verified=False, verification="not verified")


def test_a_failing_diff_of_identical_packs_says_it_failed(signed: dict[str, Path]) -> None:
    """Both packs the same, but the chosen candidate is not eligible in either: the diff fails
    (exit 1), and its headline says so instead of "the decision holds: no change (FAIL)"."""
    decision = _decision(signed["pack"])
    chosen = decision.chosen
    failing = decision.model_copy(
        update={
            "candidates": tuple(
                v.model_copy(update={"eligible": False}) if v.id == chosen else v
                for v in decision.candidates
            )
        }
    )
    doc = compare(failing, failing, _side(), _side())
    assert doc.identical
    assert doc.outcome is not None
    assert not doc.outcome.holds
    markdown = format_markdown(doc)
    assert markdown.startswith("### evidencepack diff: the decision does NOT hold (no change")
    assert markdown.splitlines()[0].endswith("(FAIL)")
    assert "holds: no change" not in markdown
    assert format_text(doc).startswith("evidencepack diff: the decision does NOT hold")


def test_markdown_and_text_carry_no_mention_link_markup_or_hidden_character(
    signed: dict[str, Path],
) -> None:
    decision = _decision(signed["pack"])
    hostile = (
        "ping @octocat and @acme/release-team, mail ops@example.com, see "
        "https://evil.example/x?a=1|b and www.evil.example, <script>alert(1)</script> "
        "**bold** [l](http://y) AMD \u202eX523IM a\u200bb c\u2028d \x1b[31mred"
    )
    check = decision.checks[0]
    changed = decision.model_copy(
        update={
            "checks": (
                check.model_copy(update={"status": "FAIL", "reason": hostile}),
                *decision.checks[1:],
            )
        }
    )
    doc = compare(decision, changed, _side(), _side("new\u202e pack @octocat"))
    markdown, text = format_markdown(doc), format_text(doc)
    for output in (markdown, text):
        for char in HIDDEN:
            assert char not in output, (char, output)
        assert "\\u202e" in output
    # Mentions, e-mail addresses and URLs only inside code spans (GitHub neither notifies
    # nor links there); no raw HTML, no link or emphasis markup.
    assert re.search(r"(?<!`)@octocat", markdown) is None
    assert re.search(r"(?<!`)@acme/release-team", markdown) is None
    for token in (
        "`@octocat`",
        "`@acme/release-team`",
        "`ops@example.com`",
        "`https://evil.example/x?a=1`",
        "`www.evil.example`",
        "`http://y`",
    ):
        assert token in markdown, token
    assert re.search(r"(?<!`)https?://", markdown) is None
    assert "<script>" not in markdown
    assert "&lt;script&gt;" in markdown
    assert "**bold**" not in markdown


def test_errors_quote_paths_with_hidden_characters_visibly(
    signed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "new\u202ekcap"
    capsys.readouterr()
    assert main(["diff", str(signed["pack"]), str(missing)]) == 2
    assert main(["verify", str(missing), "--key", str(signed["pub"])]) == 1
    err = capsys.readouterr().err
    assert "\u202e" not in err
    assert err.count("new\\u202ekcap") == 2
