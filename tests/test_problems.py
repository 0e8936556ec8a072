"""Problems travel as objects: made where they are found, their text composed once (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.api import validate
from evidencepack.errors import InputError, SpecError
from evidencepack.spec.load import load_spec
from evidencepack.staging.json_lines import iter_json_lines


def test_a_bad_json_line_is_a_problem_with_its_line(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"a": 1}\n\n{"a": \n')
    with pytest.raises(InputError) as info:
        list(iter_json_lines(rows, "evidence/rows.jsonl"))
    (problem,) = info.value.found
    assert (problem.file, problem.line, problem.code) == ("evidence/rows.jsonl", 3, "input")
    assert problem.message == "malformed JSON: Expecting value"  # no location inside it
    assert problem.text == info.value.message == f"evidence/rows.jsonl: line 3: {problem.message}"


def test_a_yaml_syntax_error_is_located_by_value(tmp_path: Path) -> None:
    spec = tmp_path / "pack.yaml"
    spec.write_text("version: 1\ndecision: [unclosed\n")
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    (problem,) = info.value.found
    assert (problem.file, problem.line, problem.code) == (str(spec), 3, "yaml_syntax")
    assert problem.text == info.value.problems[0]
    assert problem.text.startswith(f"{spec}:3:{problem.column}: YAML syntax error: ")


def test_a_path_problems_hint_is_handed_over_not_parsed(sample_text, write_spec) -> None:  # type: ignore[no-untyped-def]
    """The "did you mean" of a misspelt evidence path is the Problem's hint as made (never cut
    out of its text), and its text is the message and the hint joined once."""
    anchor = "      as_of: 2026-11-20\n"
    assert sample_text.count(anchor) == 1
    cited = "    evidence:\n      runs:\n        - path: runz/one.json\n"
    spec = write_spec(sample_text.replace(anchor, anchor + cited))
    (spec.parent / "runs").mkdir()
    (spec.parent / "runs" / "one.json").write_text("{}")
    report = validate(spec)
    (problem,) = [p for p in report.problems if "does not exist" in p.message]
    assert problem.code == "spec_rule"
    assert problem.line is not None
    assert str(problem.field).endswith("runs[0].path")
    assert problem.message.startswith("path 'runz/one.json' does not exist (looked for ")
    assert problem.hint == "did you mean 'runs/one.json'?"
    assert problem.text.endswith(f"{problem.message}; {problem.hint}")
