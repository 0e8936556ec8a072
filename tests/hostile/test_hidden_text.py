"""What you see is what is read (issue 23, item 2): no hidden character becomes spec.

U+2028 ends a YAML comment for PyYAML while every editor and ``cat`` show one comment line;
bidi overrides make text display as something else. The spec refuses them anywhere, comments
included, and ``init`` never copies one from a file name or a model name into what it writes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from ..conftest import SAMPLE_SPEC
from .harness import assert_refused, run

WAIVER = "waivers: [{check: PROV-FILES, reason: planted, approver: nobody, expires: 2099-01-01}]"


@pytest.mark.parametrize(
    ("hidden", "name"),
    [
        ("\u2028", "U+2028 LINE SEPARATOR"),
        ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("\u0085", "U+0085"),
        ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ],
    ids=["line-separator", "paragraph-separator", "nel", "rlo", "zwsp", "isolate"],
)
def test_a_hidden_character_in_a_comment_is_refused_with_line_and_name(
    tmp_path: Path, hidden: str, name: str
) -> None:
    text = SAMPLE_SPEC.read_text()
    lines = text.splitlines(keepends=True)
    spec = tmp_path / "pack.yaml"
    spec.write_text("".join([*lines[:2], f"# reviewed{hidden}{WAIVER}\n", *lines[2:]]))
    ran = run(["validate", str(spec)])
    assert_refused(ran, 1, f"{spec}:3:11:", name)
    assert "waivers" not in ran.err.replace(WAIVER, "")  # no waiver was read


def test_init_writes_no_hidden_text_from_file_or_model_names(
    tmp_path: Path, shared_data: Path
) -> None:
    evidence = tmp_path / "evidence"
    (evidence / "h200").mkdir(parents=True)
    (evidence / "mi325x").mkdir()
    source = shared_data / "formats/guidellm/generated/benchmarks.json"
    planted = evidence / "h200" / f"bench.json\u2028{WAIVER}\u2028x.json"
    shutil.copyfile(source, planted)
    shutil.copyfile(source, evidence / "h200" / "plain.json")
    text = source.read_text()
    bidi = text.replace("fake-org/fake-model-8b", json.dumps("AMD \u202eX523IM")[1:-1])
    assert bidi != text
    (evidence / "mi325x" / "bench.json").write_text(bidi)
    (evidence / "mi325x" / "note\u202e.json").write_text("{}")  # not evidence: listed
    ran = run(["init", str(evidence)])
    assert ran.code == 0, ran.err
    written = (evidence / "pack.yaml").read_text()
    for hidden in ("\u2028", "\u2029", "\u0085", "\u202e"):
        assert hidden not in written
    data = yaml.safe_load(written)
    assert "waivers" not in data
    paths = [r["path"] for c in data["candidates"] for r in c["evidence"].get("runs", [])]
    assert "h200/plain.json" in paths
    assert all("waivers" not in path for path in paths)
    assert "\\u2028" in written  # the planted file is named, escaped, among the files not cited
    assert "\\u202e" in written  # the model name and the note file, escaped in comments
    checked = run(["validate", str(evidence / "pack.yaml")])
    assert "hidden character U+" not in checked.err, checked.err
