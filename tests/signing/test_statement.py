"""The manifest: one subject per pack file, a strict versioned predicate, stable signed bytes."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
import pytest

from evidencepack.core.provenance import sha256_file
from evidencepack.core.resources import schemas_dir
from evidencepack.errors import InputError, VerificationError
from evidencepack.pack.layout import BUNDLE_NAME, PREDICATE_NAME, pack_path_problem, scan_pack
from evidencepack.pack.predicate import (
    PREDICATE_TYPE,
    PackPredicate,
    load_predicate,
    source_date_epoch,
    write_predicate,
)
from evidencepack.signing.statement import (
    STATEMENT_TYPE,
    build_statement,
    parse_statement,
    read_signed_statement,
    statement_bytes,
)

Pack = tuple[Path, PackPredicate]


def _files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_one_subject_per_file_sorted_with_digests(pack: Pack) -> None:
    folder, predicate = pack
    (folder / BUNDLE_NAME).write_text("{}")  # an old bundle is never a subject of the new one
    statement = build_statement(folder, predicate)
    names = [s.name for s in statement.subject]
    assert names == sorted(names)
    assert names == [n for n in _files_under(folder) if n != BUNDLE_NAME]
    assert "inputs/loadgen/llama2-70b_Server_perf/mlperf_log_summary.txt" in names
    assert PREDICATE_NAME in names
    for subject in statement.subject:
        assert subject.digest.sha256 == sha256_file(folder / subject.name)
    data = json.loads(statement_bytes(statement))
    assert data["_type"] == STATEMENT_TYPE
    assert data["predicateType"] == PREDICATE_TYPE
    assert data["predicate"]["spec"] == {
        "pack_path": "inputs/pack.yaml",
        "sha256": sha256_file(folder / "inputs/pack.yaml"),
    }


def test_statement_bytes_are_stable_and_round_trip(pack: Pack) -> None:
    folder, predicate = pack
    first = statement_bytes(build_statement(folder, predicate))
    assert statement_bytes(build_statement(folder, predicate)) == first
    assert first == json.dumps(json.loads(first), sort_keys=True, separators=(",", ":")).encode()
    assert statement_bytes(parse_statement(first)) == first
    (folder / "report.html").write_bytes(b"<p>changed</p>")
    assert statement_bytes(build_statement(folder, predicate)) != first


def test_statement_matches_its_json_schema(pack: Pack) -> None:
    folder, predicate = pack
    schema = json.loads((schemas_dir() / "pack-statement.v1.schema.json").read_text())
    data = json.loads(statement_bytes(build_statement(folder, predicate)))
    jsonschema.Draft202012Validator(schema).validate(data)
    data["subject"][0]["digest"]["sha256"] = "ABC"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(data)
    del data["_type"]
    with pytest.raises(VerificationError, match=r"statement: _type: Field required"):
        parse_statement(json.dumps(data).encode())


def test_refuses_symlinks_and_special_files(pack: Pack) -> None:
    folder, predicate = pack
    (folder / "link.pdf").symlink_to(folder / "report.pdf")
    (folder / "linked-inputs").symlink_to(folder / "inputs", target_is_directory=True)
    os.mkfifo(folder / "pipe")
    with pytest.raises(InputError) as info:
        build_statement(folder, predicate)
    assert sorted(info.value.problems) == [
        "link.pdf: symbolic link (packs hold regular files only)",
        "linked-inputs: symbolic link (packs hold regular files only)",
        "pipe: not a regular file",
    ]


def test_refuses_names_that_are_not_utf8(pack: Pack) -> None:
    folder, predicate = pack
    with open(os.fsencode(folder) + b"/bad\xffname", "wb") as handle:
        handle.write(b"x")
    with pytest.raises(InputError) as info:
        build_statement(folder, predicate)
    assert "file name is not UTF-8" in info.value.problems[0]


def test_refuses_an_empty_pack_and_a_missing_folder(tmp_path: Path, pack: Pack) -> None:
    _, predicate = pack
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no files"):
        build_statement(tmp_path / "empty", predicate)
    with pytest.raises(InputError, match="not a folder"):
        scan_pack(tmp_path / "nope")


def test_predicate_must_match_the_pack(pack: Pack) -> None:
    folder, predicate = pack
    (folder / "inputs/pack.yaml").write_text("apiVersion: evidencepack/v1\n")
    wrong_rendered = predicate.model_copy(update={"rendered": ("report.html", "report.docx")})
    with pytest.raises(InputError) as info:
        build_statement(folder, wrong_rendered)
    problems = info.value.problems
    assert problems[0].startswith("predicate.spec.sha256: inputs/pack.yaml has sha256 ")
    assert problems[1] == "predicate.rendered[1]: report.docx is not a file of the pack"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("report.pdf", None),
        ("inputs/runs/a b.json", None),
        ("../report.pdf", "path is not normalised"),
        ("inputs/../../x", "path is not normalised"),
        ("/etc/passwd", "absolute path"),
        ("C:/x", "absolute path"),
        ("a//b", "path is not normalised"),
        ("./a", "path is not normalised"),
        ("a\\b", "backslash in path"),
        ("a\nb", "control character in path"),
        ("", "empty path"),
    ],
)
def test_pack_paths(name: str, problem: str | None) -> None:
    found = pack_path_problem(name)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(problem)


@pytest.mark.parametrize(
    ("created_at", "ok"),
    [
        ("2026-11-30", True),
        ("2026-11-30T10:00:00Z", True),
        ("2026-11-30T10:00:00.5+01:00", True),
        ("2026-11-30T10:00:00", False),  # no offset: ambiguous
        ("30/11/2026", False),
        ("2026-02-30", False),
    ],
)
def test_created_at_must_be_rfc3339(pack: Pack, created_at: str, ok: bool) -> None:
    _, predicate = pack
    data = predicate.model_dump(mode="json") | {"created_at": created_at}
    if ok:
        assert PackPredicate.model_validate(data).created_at == created_at
    else:
        with pytest.raises(pydantic.ValidationError, match="created_at"):
            PackPredicate.model_validate(data)


def test_source_date_epoch_comes_from_created_at() -> None:
    assert source_date_epoch("2026-11-30") == 1795996800
    assert source_date_epoch("1970-01-02") == 86400
    assert source_date_epoch("1970-01-01T01:00:00+01:00") == 0


def test_duplicate_subjects_and_a_bundle_subject_are_rejected(pack: Pack) -> None:
    folder, predicate = pack
    data = json.loads(statement_bytes(build_statement(folder, predicate)))
    data["subject"].append(data["subject"][0])
    with pytest.raises(VerificationError, match="duplicate subject names: decision.json"):
        parse_statement(json.dumps(data).encode())
    data["subject"][-1] = {"name": BUNDLE_NAME, "digest": {"sha256": "0" * 64}}
    with pytest.raises(VerificationError, match="cannot be a subject of itself"):
        parse_statement(json.dumps(data).encode())
    data["subject"][-1] = {"name": "../escape", "digest": {"sha256": "0" * 64}}
    with pytest.raises(VerificationError, match=r"statement: subject\[\d+\]\.name: Value error"):
        parse_statement(json.dumps(data).encode())


def test_predicate_file_round_trips_and_bad_ones_name_the_json_path(pack: Pack) -> None:
    folder, predicate = pack
    assert load_predicate(folder) == predicate
    text = (folder / PREDICATE_NAME).read_text()
    assert text.endswith("\n")
    assert json.loads(text)["decision"]["verdict"] == "PASS"
    data = json.loads(text)
    data["decision"]["verdict"] = "MAYBE"
    data["extra"] = 1
    (folder / PREDICATE_NAME).write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        load_predicate(folder)
    assert sorted(info.value.problems) == [
        f"{folder / PREDICATE_NAME}: decision.verdict: Input should be 'PASS', "
        "'PASS WITH WAIVERS' or 'FAIL'",
        f"{folder / PREDICATE_NAME}: extra: Extra inputs are not permitted",
    ]
    (folder / PREDICATE_NAME).unlink()
    with pytest.raises(InputError, match="no such file; packs built by"):
        load_predicate(folder)
    write_predicate(folder, predicate)
    assert load_predicate(folder) == predicate


def _bad_statements(good: dict[str, Any]) -> dict[str, Any]:
    """Each way a signed statement's subjects (or head) can be wrong, by name."""

    def with_subject(index: int, subject: object) -> dict[str, Any]:
        data = copy.deepcopy(good)
        data["subject"][index] = subject
        return data

    first = good["subject"][0]
    sha = first["digest"]["sha256"]
    return {
        "duplicate": {**good, "subject": [*good["subject"], first]},
        "bundle": with_subject(-1, {"name": BUNDLE_NAME, "digest": {"sha256": sha}}),
        "escape": with_subject(1, {"name": "../escape", "digest": {"sha256": sha}}),
        "absolute": with_subject(1, {"name": "/etc/passwd", "digest": {"sha256": sha}}),
        "upper-hex": with_subject(2, {"name": first["name"] + "x", "digest": {"sha256": "A" * 64}}),
        "newline": with_subject(2, {"name": "x", "digest": {"sha256": "a" * 64 + "\n"}}),
        "short": with_subject(0, {"name": "x", "digest": {"sha256": "a" * 63}}),
        "name-not-str": with_subject(0, {"name": 7, "digest": {"sha256": sha}}),
        "extra-key": with_subject(0, {**first, "size": 1}),
        "extra-digest": with_subject(0, {"name": "x", "digest": {"sha256": sha, "md5": "0"}}),
        "not-an-object": with_subject(0, ["x", sha]),
        "no-subjects": {**good, "subject": []},
        "subjects-not-a-list": {**good, "subject": {"x": sha}},
        "no-type": {k: v for k, v in good.items() if k != "_type"},
        "other-predicate": {**good, "predicateType": "https://example.com/other/v1"},
        "bad-predicate": {**good, "predicate": {**good["predicate"], "tool": 1}},
    }


def test_the_light_reader_of_a_signed_statement_agrees_with_the_model(pack: Pack) -> None:
    """verify reads the subjects as one dict, not a model per subject (issue 29: 1.4 KiB per pack
    file): the same predicate and digests on a good statement, the same error on every bad one."""
    folder, predicate = pack
    payload = statement_bytes(build_statement(folder, predicate))
    light, full = read_signed_statement(payload), parse_statement(payload)
    assert light.predicate == full.predicate
    assert light.predicate_type == full.predicate_type
    assert light.digests() == full.digests()
    assert len(light.digests()) == len(full.subject) > 3
    for name, data in {**_bad_statements(json.loads(payload)), "not-json": None}.items():
        bad = b"{not json" if data is None else json.dumps(data).encode()
        with pytest.raises(VerificationError) as model_error:
            parse_statement(bad)
        with pytest.raises(VerificationError) as light_error:
            read_signed_statement(bad)
        assert light_error.value.message == model_error.value.message, name
        assert light_error.value.problems == model_error.value.problems, name
