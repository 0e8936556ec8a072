"""The pack spec: the sample validates; each kind of mistake is reported with file:line:col."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from evidencepack._cli import main
from evidencepack.errors import InputError, SpecError
from evidencepack.spec import located
from evidencepack.spec.load import load_spec

from .conftest import SAMPLE_SPEC


def _problems(path: Path, **kwargs: bool) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(path, **kwargs)
    return list(info.value.problems)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_sample_spec_validates() -> None:
    loaded = load_spec(SAMPLE_SPEC)
    spec = loaded.spec
    assert spec.api_version == "evidencepack/v1"
    assert [c.id for c in spec.candidates] == ["h200-vllm", "mi325x-vllm", "b200-trtllm"]
    assert spec.traffic.pattern == "interactive"
    assert spec.envelope.precision == "fp8"
    assert spec.chosen == "mi325x-vllm"
    assert main(["validate", str(SAMPLE_SPEC)]) == 0


def test_misspelt_key_names_line_column_and_suggestion(sample_text, write_spec, capsys) -> None:
    text = sample_text.replace("  ttft_p99_ms: 2000", "  ttft_p99ms: 2000")
    path = write_spec(text)
    line = _line_of(text, "ttft_p99ms")
    problems = _problems(path)
    assert f"{path}:{line}:3: slo.ttft_p99ms: unknown key; did you mean 'ttft_p99_ms'?" in problems
    # The missing correct key is reported in the same run: every problem at once.
    assert any("slo.ttft_p99_ms: required field is missing" in p for p in problems)
    assert main(["validate", str(path)]) == 1
    assert f"{path}:{line}:3: slo.ttft_p99ms" in capsys.readouterr().err


def test_duplicate_key_is_rejected(sample_text, write_spec) -> None:
    text = sample_text.replace(
        "  max_error_rate: 0.01", "  max_error_rate: 0.01\n  max_error_rate: 0.5"
    )
    path = write_spec(text)
    line = _line_of(text, "max_error_rate: 0.5")
    first = _line_of(text, "max_error_rate: 0.01")
    assert _problems(path) == [
        f"{path}:{line}:3: slo.max_error_rate: duplicate key (first defined at line {first})"
    ]
    assert main(["validate", str(path)]) == 1


def test_wrong_type_names_field(sample_text, write_spec) -> None:
    text = sample_text.replace("peak_requests_per_s: 14", "peak_requests_per_s: lots")
    path = write_spec(text)
    line = _line_of(text, "peak_requests_per_s: lots")
    (problem,) = _problems(path)
    assert problem.startswith(f"{path}:{line}:24: traffic.peak_requests_per_s: ")
    assert "valid number" in problem
    assert main(["validate", str(path)]) == 1


def test_unquoted_version_gets_a_hint(sample_text, write_spec) -> None:
    path = write_spec(sample_text.replace('version: "2026.11"', "version: 2026.11"))
    (problem,) = _problems(path)
    assert "dataset.version" in problem
    assert "quote the value" in problem


def test_missing_required_field_points_at_parent(sample_text, write_spec) -> None:
    text = sample_text.replace("  owner: ML Platform team (sample)\n", "")
    path = write_spec(text)
    line = _line_of(text, "  id: contract-summariser-2026q4")
    assert _problems(path) == [f"{path}:{line}:3: decision.owner: required field is missing"]
    assert main(["validate", str(path)]) == 1


def _with_run(sample_text: str, run_path: str) -> str:
    # The second candidate's price block ends with its quote date.
    anchor = "      as_of: 2026-11-20\n"
    assert sample_text.count(anchor) == 1
    return sample_text.replace(
        anchor, anchor + f"    evidence:\n      runs:\n        - path: {run_path}\n"
    )


def test_path_outside_folder_is_refused(sample_text, write_spec, tmp_path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text("{}")
    text = _with_run(sample_text, f"../{outside.name}")
    path = write_spec(text)
    line = _line_of(text, f"- path: ../{outside.name}")
    (problem,) = _problems(path)
    assert problem.startswith(f"{path}:{line}:17: candidates[1].evidence.runs[0].path: ")
    assert "outside the spec's folder" in problem
    assert main(["validate", str(path)]) == 1
    # The explicit flag permits it.
    assert load_spec(path, allow_outside=True).resolve(f"../{outside.name}") == outside.resolve()
    assert main(["validate", "--allow-outside-paths", str(path)]) == 0


def test_symlink_escaping_the_folder_is_refused(sample_text, write_spec, tmp_path) -> None:
    target = tmp_path.parent / f"{tmp_path.name}-secret.json"
    target.write_text("{}")
    os.symlink(target, tmp_path / "innocent.json")
    path = write_spec(_with_run(sample_text, "innocent.json"))
    (problem,) = _problems(path)
    assert "candidates[1].evidence.runs[0].path" in problem
    assert "outside the spec's folder" in problem


def test_missing_evidence_file_and_semantic_rules(sample_text, write_spec) -> None:
    text = _with_run(sample_text, "runs/none.json").replace("chosen: mi325x-vllm", "chosen: tpu")
    text = text.replace("accelerators_per_replica: 2", "accelerators_per_replica: 16")
    path = write_spec(text)
    problems = _problems(path)
    assert len(problems) == 3
    assert any(
        "candidates[0].hardware.accelerators_per_replica: 16 accelerators" in p for p in problems
    )
    assert any("runs[0].path: path 'runs/none.json' does not exist" in p for p in problems)
    assert any("chosen: 'tpu' is not a candidate id" in p for p in problems)


def test_yaml_syntax_error_has_position(write_spec) -> None:
    path = write_spec("apiVersion: evidencepack/v1\ndecision: [unclosed\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert f"{path}:3:1: YAML syntax error" in info.value.message


def test_unsafe_yaml_tags_are_refused(sample_text, write_spec) -> None:
    path = write_spec(
        sample_text.replace(
            "owner: ML Platform team (sample)", "owner: !!python/object/apply:os.system ['true']"
        )
    )
    (problem,) = _problems(path)
    assert "decision.owner" in problem
    assert (
        "the YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed" in problem
    )


def test_validate_json_lists_every_problem(sample_text, write_spec, capsys) -> None:
    import json

    text = sample_text.replace("  ttft_p99_ms: 2000", "  ttft_p99ms: 2000").replace(
        "peak_requests_per_s: 14", "peak_requests_per_s: -3"
    )
    path = write_spec(text)
    assert main(["validate", "--json", str(path)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False
    assert len(out["problems"]) == 3


def test_percent_and_day_first_date_get_the_expected_form(sample_text, write_spec) -> None:
    text = sample_text.replace("utilisation: 0.6", "utilisation: 15%").replace(
        "date: 2026-11-30\n", "date: 31/10/2026\n", 1
    )
    path = write_spec(text)
    problems = _problems(path)
    assert len(problems) == 2, problems
    utilisation = next(p for p in problems if "traffic.utilisation" in p)
    assert utilisation.startswith(f"{path}:{_line_of(text, 'utilisation: 15%')}:")
    assert utilisation.endswith("; write a fraction without %: 15% is 0.15")
    date = next(p for p in problems if "decision.date" in p)
    assert date.endswith("; write the date as YYYY-MM-DD (2026-10-31)")


def test_ambiguous_date_offers_both_readings(sample_text, write_spec) -> None:
    path = write_spec(sample_text.replace("date: 2026-11-30\n", "date: 03/04/2026\n", 1))
    (problem,) = _problems(path)
    assert problem.endswith("write the date as YYYY-MM-DD (2026-03-04 or 2026-04-03?)")


def test_misspelt_evidence_path_gets_did_you_mean(tmp_path: Path) -> None:
    spec = tmp_path / "samples" / "pack.yaml"
    shutil.copytree(SAMPLE_SPEC.parent, spec.parent, ignore=shutil.ignore_patterns("generate"))
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace("evidence/h200-vllm/runs/qps_3.0", "evidence/h200-vlm/runs/qps_3.0")
    )
    (problem,) = _problems(spec)
    assert "runs[1].path: path 'evidence/h200-vlm/runs/qps_3.0' does not exist" in problem
    assert problem.endswith("did you mean 'evidence/h200-vllm/runs/qps_3.0'?")


def test_path_problems_come_in_the_same_pass_as_the_rest(sample_text, write_spec) -> None:
    """A missing field and a missing evidence file are reported together, in line order."""
    text = _with_run(sample_text, "runs/none.json").replace(
        "  owner: ML Platform team (sample)\n", ""
    )
    path = write_spec(text)
    problems = _problems(path)
    assert len(problems) == 2, problems
    assert "decision.owner: required field is missing" in problems[0]
    assert "runs[0].path: path 'runs/none.json' does not exist" in problems[1]


def test_unknown_chosen_comes_with_type_errors_in_one_pass(sample_text, write_spec) -> None:
    text = sample_text.replace("chosen: mi325x-vllm", "chosen: tpu").replace(
        "peak_requests_per_s: 14", "peak_requests_per_s: lots"
    )
    problems = _problems(write_spec(text))
    assert len(problems) == 2, problems
    assert "traffic.peak_requests_per_s" in problems[0]
    assert "chosen: 'tpu' is not a candidate id" in problems[1]


_ODD_YAML = {
    "anchors.yaml": "a: &x {b: [1, 2.5, null, true]}\nc: *x\nd: 2026-12-05\ne: 'quoted: yes'\n",
    "crlf.yaml": 'a: 1\r\nb:\r\n  - x\r\n  - "\\u00e9t\\u00e9"\r\n',
    "block.yaml": "text: |\n  two\n  lines\nfolded: >\n  one\n  line\nkey with space: 0x1F\n",
    "unicode.yaml": "\ufeffname: caf\u00e9 \u2014 \u6f22\u5b57\n",
}
_BAD_YAML = {
    "unclosed.yaml": "a: [1, 2\nb: 3\n",
    "indent.yaml": "a:\n  b: 1\n c: 2\n",
    "two-docs.yaml": "a: 1\n---\nb: 2\n",
    "tab.yaml": "a:\n\tb: 1\n",
    "duplicate.yaml": "a: 1\na: 2\n",
    "tagged.yaml": "a: !!python/object:os.system {}\n",
    "noncharacter.yaml": "a: x\ufffey\n",
}


def _located(path: Path) -> object:
    try:
        doc = located.load_located(path)
    except InputError as exc:
        return ("error", str(exc), list(exc.problems))
    return (doc.data, doc.value_positions, doc.key_positions)


def test_libyamls_parse_is_pyyamls_to_the_position_and_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spec is parsed by libyaml where PyYAML has it; the values, every node's line and
    column, and every message are those of PyYAML's own parser."""
    assert located._FAST_LOADER is not yaml.SafeLoader  # the wheel ships libyaml
    paths = sorted(SAMPLE_SPEC.parent.glob("*.yaml"))
    for name, text in {**_ODD_YAML, **_BAD_YAML}.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
        paths.append(tmp_path / name)
    fast = [_located(p) for p in paths]
    monkeypatch.setattr(located, "_FAST_LOADER", yaml.SafeLoader)
    assert fast == [_located(p) for p in paths]
    errors = [f for f in fast if isinstance(f, tuple) and f[0] == "error"]
    assert len(errors) == len(_BAD_YAML)
    assert any("YAML syntax error" in str(e) for e in errors)
