"""``diff`` needs only the two decisions: each pack folder is checked where it lies (as
``verify`` checks it, no private copy), and each document is validated once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.pipeline import BuildResult


def _no_copy(*_args: object) -> tuple[str, ...]:
    raise AssertionError("diff copied a pack folder")


def test_diff_reads_both_folders_in_place_and_validates_each_decision_once(
    sample_build: BuildResult, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = sample_build.out_dir
    monkeypatch.setattr("evidencepack.signing.verify.copy_pack", _no_copy)
    validated: list[int] = []
    original = DecisionDocument.model_validate_json

    def counting(raw: Any, *args: Any, **kwargs: Any) -> DecisionDocument:
        validated.append(len(raw))
        return original(raw, *args, **kwargs)

    monkeypatch.setattr(DecisionDocument, "model_validate_json", counting)
    assert main(["diff", str(pack), str(pack), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["compared"] is True
    assert len(validated) == 2  # one per side: the pack reader's, not again by diff


def test_a_pack_whose_decision_disagrees_is_still_refused_in_place(
    sample_build: BuildResult,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(sample_build.out_dir, pack)
    decision = json.loads((pack / "decision.json").read_text(encoding="utf-8"))
    decision["recommendation"] = "someone-else"
    (pack / "decision.json").write_text(json.dumps(decision), encoding="utf-8")
    monkeypatch.setattr("evidencepack.signing.verify.copy_pack", _no_copy)
    code = main(["diff", str(sample_build.out_dir), str(pack)])
    said = capsys.readouterr()
    assert code == 3, said
    assert "disagree with its records" in said.err + said.out
