"""Machine-readable check and validate output: located problem objects, JUnit XML, Markdown."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lxml import etree

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.commands.check_outputs import junit_xml, markdown
from evidencepack.core.resources import schemas_dir

from .conftest import REPO_ROOT, SAMPLE_SPEC

JUNIT_XSD = REPO_ROOT / "tests" / "junit" / "junit-10.xsd"
MI325X_SERVER = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
THREE_PROBLEMS = (
    ("  owner: ML Platform team (sample)\n", ""),
    ("peak_requests_per_s: 14", "peak_requests_per_s: 15%"),
    ("  utilisation: 0.6", "  utilisaton: 0.6"),
)


def _edit(spec: Path, *edits: tuple[str, str]) -> None:
    text = spec.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    spec.write_text(text, encoding="utf-8")


def _schema_errors(name: str, document: Any) -> list[str]:
    schema = json.loads((schemas_dir() / name).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    return [error.message for error in validator.iter_errors(document)]


def _junit_errors(path: Path) -> list[str]:
    schema = etree.XMLSchema(etree.parse(str(JUNIT_XSD)))
    ok = schema.validate(etree.parse(str(path)))
    return [] if ok else [str(error) for error in schema.error_log]


@pytest.mark.parametrize("command", ["check", "validate"])
def test_invalid_spec_prints_every_problem_located_on_stdout(
    command: str, samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, *THREE_PROBLEMS)
    assert main([command, str(spec), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert _schema_errors("validation-report.v1.schema.json", report) == []
    assert report["valid"] is False
    problems = report["problems"]
    assert [(p["line"], p["field"], p["code"]) for p in problems] == [
        (7, "decision.owner", "missing"),
        (35, "traffic.peak_requests_per_s", "float_type"),
        (38, "traffic.utilisaton", "extra_forbidden"),
    ]
    assert {p["file"] for p in problems} == {str(spec)}
    assert all(p["column"] >= 1 and p["text"].startswith(f"{spec}:") for p in problems)
    assert problems[1]["hint"] == "write a fraction without %: 15% is 0.15"
    assert problems[2]["hint"] == "did you mean 'utilisation'?"
    assert problems[2]["message"] == "unknown key"


def test_check_on_a_bad_evidence_path_reports_a_spec_rule_with_its_hint(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, ("evidence/h200-vllm/runs", "evidence/h200-vlm/runs"))
    assert main(["check", str(spec), "--json"]) == 1
    (problem,) = json.loads(capsys.readouterr().out)["problems"]
    assert problem["code"] == "spec_rule"
    assert problem["field"].endswith(".path")
    assert problem["hint"].startswith("did you mean 'evidence/h200-vllm/runs/")
    assert "evidence/h200-vlm/runs" in problem["message"]


def test_valid_spec_validate_json_matches_its_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(SAMPLE_SPEC), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert _schema_errors("validation-report.v1.schema.json", report) == []
    assert report["valid"] is True
    assert report["problems"] == []
    assert report["candidates"] == ["h200-vllm", "mi325x-vllm", "b200-trtllm"]


def test_invalid_spec_junit_and_markdown(samples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, *THREE_PROBLEMS)
    junit = samples / "junit.xml"
    assert main(["check", str(spec), "--markdown", "--junit", str(junit)]) == 1
    assert _junit_errors(junit) == []
    failures = etree.parse(str(junit)).findall(".//testcase/failure")
    assert [f.get("type") for f in failures] == ["missing", "float_type", "extra_forbidden"]
    out = capsys.readouterr().out
    assert "| traffic.utilisaton | unknown key | did you mean 'utilisation'? |" in out


def test_failed_check_junit_has_one_case_per_check_and_candidate(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, (MI325X_SERVER, MI325X_SERVER.replace("/Server", "/Offline")))
    junit = samples / "out" / "junit.xml"
    junit.parent.mkdir()
    assert main(["check", str(spec), "--junit", str(junit), "--json"]) == 1
    decision = DecisionDocument.model_validate_json(capsys.readouterr().out)
    assert _junit_errors(junit) == []
    tree = etree.parse(str(junit))
    cases = tree.findall(".//testcase")
    assert len(cases) == len(decision.checks)
    suites = [s.get("name") for s in tree.findall("testsuite")]
    assert suites == ["h200-vllm", "mi325x-vllm", "b200-trtllm", "decision"]
    c1 = tree.find(
        ".//testsuite[@name='mi325x-vllm']/testcase[@name='C1: Scenario matches traffic']"
    )
    assert c1 is not None
    failure = c1.find("failure")
    blocking = next(c for c in decision.checks if c.id == "C1" and c.candidate == "mi325x-vllm")
    assert failure is not None
    assert failure.get("message") == blocking.reason
    assert failure.get("type") == "hard check failed"
    warned = [c for c in decision.checks if c.status == "WARN"]
    assert len(tree.findall(".//testcase/system-out")) >= len(warned) > 0
    root = tree.getroot()
    fails = sum(1 for c in decision.checks if c.status == "FAIL" and c.waived is None)
    assert root.get("failures") == str(fails)
    assert root.get("tests") == str(len(cases))


def test_waived_fail_is_a_passed_case_with_the_waiver(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    _edit(spec, (MI325X_SERVER, MI325X_SERVER.replace("/Server", "/Offline")))
    spec.write_text(
        spec.read_text()
        + "\nwaivers:\n  - check: C1\n    candidate: mi325x-vllm\n    reason: accepted <b>\n"
        "    approver: A. Example\n    expires: 2027-01-31\n"
    )
    junit = samples / "junit.xml"
    assert main(["check", str(spec), "--junit", str(junit), "--markdown"]) == 0
    assert _junit_errors(junit) == []
    c1 = etree.parse(str(junit)).find(
        ".//testsuite[@name='mi325x-vllm']/testcase[@name='C1: Scenario matches traffic']"
    )
    assert c1 is not None
    assert c1.find("failure") is None
    out = c1.findtext("system-out") or ""
    assert out.startswith("FAIL: ")
    assert "waived by A. Example until 2027-01-31: accepted <b>" in out
    assert "| FAIL (waived) | C1 | mi325x-vllm |" in capsys.readouterr().out
    # A gate that allows no waiver (--no-waivers): the waived FAIL is a failure, exit 1.
    assert main(["check", str(spec), "--junit", str(junit), "--no-waivers", "--markdown"]) == 1
    assert _junit_errors(junit) == []
    c1 = etree.parse(str(junit)).find(
        ".//testsuite[@name='mi325x-vllm']/testcase[@name='C1: Scenario matches traffic']"
    )
    assert c1 is not None
    failure = c1.find("failure")
    assert failure is not None
    assert failure.get("type") == "waived failure (--no-waivers)"
    heading = capsys.readouterr().out.splitlines()[0]
    assert heading.startswith("### \u274c evidencepack check: ")
    # A failed gate is headed FAIL, with why; never a red mark beside PASS WITH WAIVERS.
    assert heading.endswith(
        ": FAIL (waived failures are not allowed by --no-waivers; "
        "the decision's verdict is PASS WITH WAIVERS)"
    ), heading


def test_markdown_and_junit_escape_every_value_from_the_pack() -> None:
    base = json.loads((REPO_ROOT / "tests" / "golden" / "sample-decision.json").read_text())
    hostile = "<script>x</script> | [link](http://e.example) `code` & *em*"
    base["summary"] = hostile
    base["checks"][0]["reason"] = hostile
    base["checks"][0]["status"] = "FAIL"
    base["candidates"][0]["id"] = hostile
    decision = DecisionDocument.model_validate(base)
    text = markdown(decision)
    assert "<script>" not in text
    # Every special character is escaped, outside the code spans md() wraps links in.
    plain = re.sub(r"`[^`]*`", "", text.replace("\\\\", "").replace("\\`", ""))
    assert not re.search(r"(?<!\\)[\[\]`*]", plain)
    assert "&lt;script&gt;x&lt;/script&gt; \\| \\[link\\]" in text
    root = etree.fromstring(junit_xml(decision))
    failure = root.find(".//failure")
    assert failure is not None
    assert failure.get("message") == hostile


def test_summary_is_appended_beside_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    assert main(["check", str(SAMPLE_SPEC), "--json", "--summary", str(summary)]) == 0
    decision = DecisionDocument.model_validate_json(capsys.readouterr().out)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n### ")
    assert text.endswith(markdown(decision) + "\n")


OUR_DOCUMENTS = (
    "validation-report.v1.schema.json",
    "build-result.v1.schema.json",
    "init-result.v1.schema.json",
    "schemas-result.v1.schema.json",
)


@pytest.mark.parametrize("name", OUR_DOCUMENTS)
def test_every_field_of_the_command_documents_is_described(name: str) -> None:
    schema = json.loads((schemas_dir() / name).read_text(encoding="utf-8"))
    shapes = {"": schema, **schema.get("$defs", {})}
    undescribed = [
        f"{shape_name}.{key}"
        for shape_name, shape in shapes.items()
        for key, prop in shape.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert schema["properties"]
    assert undescribed == []


def test_init_and_schemas_json_match_their_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence = tmp_path / "evidence"
    for candidate in ("h200-vllm", "b200-trtllm"):
        source = REPO_ROOT / "samples" / "evidence" / candidate / "scores.jsonl"
        (evidence / candidate).mkdir(parents=True)
        (evidence / candidate / "scores.jsonl").write_bytes(source.read_bytes())
    assert main(["init", str(evidence), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert _schema_errors("init-result.v1.schema.json", report) == []
    assert report["candidates"] == ["b200-trtllm", "h200-vllm"]
    assert main(["schemas", "--check", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert _schema_errors("schemas-result.v1.schema.json", report) == []
    assert set(OUR_DOCUMENTS) <= set(report["checked"])


def test_a_yaml_syntax_error_is_a_located_problem_too(
    write_spec, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_spec("apiVersion: evidencepack/v1\ndecision: [unclosed\n")
    assert main(["check", str(path), "--json"]) == 1
    (problem,) = json.loads(capsys.readouterr().out)["problems"]
    assert (problem["file"], problem["line"], problem["code"]) == (str(path), 3, "yaml_syntax")
    assert problem["field"] is None
    assert problem["message"].startswith("YAML syntax error: ")
