"""Compact evidence: listing digests sha256sum agrees with, inputs grouped by spec reference,
evidence lists deduplicated and shortened by their common folder."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from evidencepack.analyze.models import EvidenceLink
from evidencepack.core.provenance import sha256_file
from evidencepack.intake.records import InputFile
from evidencepack.render.evidence import (
    evidence_list,
    group_inputs,
    listing,
    listing_sha256,
    split_common_folder,
)

from . import fixture


def _input(
    pack_path: str,
    spec_path: str,
    role: str = "runs",
    candidate: str | None = "a",
    **extra: object,
) -> InputFile:
    return InputFile.model_validate(
        {
            "pack_path": pack_path,
            "spec_path": spec_path,
            "role": role,
            "candidate": candidate,
            "sha256": hashlib.sha256(pack_path.encode()).hexdigest(),
            "size_bytes": 100,
            **extra,
        }
    )


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum not installed")
def test_listing_is_what_sha256sum_prints_in_the_pack(tmp_path: Path) -> None:
    folder = tmp_path / "inputs" / "runs" / "qps_2.0"
    folder.mkdir(parents=True)
    # Names whose order differs between byte order and a case-insensitive sort.
    for name, text in (("user.conf", "a"), ("B.txt", "b"), ("mlperf_log_detail.txt", "c")):
        (folder / name).write_text(text)
    files = [
        InputFile(
            pack_path=p.relative_to(tmp_path).as_posix(),
            spec_path="runs/qps_2.0",
            role="runs",
            sha256=sha256_file(p),
            size_bytes=p.stat().st_size,
        )
        for p in sorted(folder.iterdir(), reverse=True)
    ]
    paths = sorted((f.pack_path for f in files), key=str.encode)
    printed = subprocess.run(
        ["sha256sum", "--", *paths], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert listing(files) == printed
    assert listing_sha256(files) == hashlib.sha256(printed.encode()).hexdigest()
    assert printed.splitlines()[0].endswith("inputs/runs/qps_2.0/B.txt")


def test_split_common_folder() -> None:
    assert split_common_folder(["ev/a/runs/q1", "ev/a/runs/q2"]) == ("ev/a/runs/", ("q1", "q2"))
    assert split_common_folder(["ev/a/runs/q1", "ev/a/scores.jsonl"]) == (
        "ev/a/",
        ("runs/q1", "scores.jsonl"),
    )
    # Never a whole id: the last segment stays even when one id is the others' folder.
    assert split_common_folder(["ev/a", "ev/a/b"]) == ("ev/", ("a", "a/b"))
    # Nothing to take off: a single id, no shared folder, a shared name that is not a folder.
    assert split_common_folder(["ev/a/runs/q1"]) == ("", ("ev/a/runs/q1",))
    assert split_common_folder(["spec", "ev/a/runs/q1"]) == ("", ("spec", "ev/a/runs/q1"))
    assert split_common_folder(["runs-a/x", "runs-b/x"]) == ("", ("runs-a/x", "runs-b/x"))
    assert split_common_folder([]) == ("", ())


def test_inputs_group_by_reference_shared_first_then_candidates_by_role() -> None:
    inputs = [
        _input("inputs/mlperf/x/systems/s.json", "mlperf", "mlperf", "b", format="mlperf-system"),
        _input(
            "inputs/mlperf/x/results/detail.txt",
            "mlperf",
            "mlperf",
            "b",
            format="mlperf-detail",
            tool="mlperf-loadgen",
            tool_version="6.0.17",
        ),
        _input("inputs/mlperf/y/systems/t.json", "mlperf", "mlperf", "a"),
        _input("inputs/b/scores.jsonl", "b/scores.jsonl", "scores", "b"),
        _input("inputs/b/runs/q1/user.conf", "b/runs/q1", "runs", "b"),
        _input(
            "inputs/b/runs/q1/mlperf_log_detail.txt",
            "b/runs/q1",
            "runs",
            "b",
            format="mlperf-loadgen-detail",
            tool="mlperf-loadgen",
            tool_version="6.0.17",
            warnings=("LoadGen judged the run INVALID",),
        ),
        _input("inputs/a/runs/q1/user.conf", "a/runs/q1", "runs", "a"),
        _input("inputs/data.jsonl", "data.jsonl", "dataset", None),
        _input("inputs/pack.yaml", "pack.yaml", "spec", None),
    ]
    groups = group_inputs(inputs, ["a", "b"])
    assert [(g.number, g.reference, g.role, g.candidate) for g in groups] == [
        (1, "pack.yaml", "spec", None),
        (2, "data.jsonl", "dataset", None),
        (3, "a/runs/q1", "runs", "a"),
        (4, "mlperf", "mlperf", "a"),
        (5, "b/runs/q1", "runs", "b"),
        (6, "b/scores.jsonl", "scores", "b"),
        (7, "mlperf", "mlperf", "b"),
    ]
    # Every input is in exactly one group.
    assert sorted(f.pack_path for g in groups for f in g.files) == sorted(
        i.pack_path for i in inputs
    )
    spec, run, mlperf = groups[0], groups[4], groups[6]
    assert spec.single
    assert spec.sha256 == inputs[-1].sha256
    assert spec.names == ("inputs/pack.yaml",)
    assert not run.single
    assert run.sha256 == listing_sha256(run.files) != run.files[0].sha256
    assert (run.folder, run.shown_folder) == ("inputs/b/runs/q1/", "")
    assert run.names == ("mlperf_log_detail.txt", "user.conf")
    assert run.size_bytes == 200
    assert run.warnings == (("mlperf_log_detail.txt", "LoadGen judged the run INVALID"),)
    assert run.formats == ("mlperf-loadgen-detail",)
    assert run.tools == ("mlperf-loadgen 6.0.17",)
    # A reference shared by candidates: each candidate's files under the folder they share.
    assert mlperf.shown_folder == "inputs/mlperf/x/"
    assert mlperf.names == ("results/detail.txt", "systems/s.json")
    assert mlperf.formats == ("mlperf-detail", "mlperf-system")


def test_inputs_of_a_candidate_the_decision_does_not_list_come_last() -> None:
    inputs = [
        _input("inputs/z/run.json", "z/run.json", "runs", "zz"),
        _input("inputs/a/run.json", "a/run.json", "runs", "a"),
    ]
    assert [g.candidate for g in group_inputs(inputs, ["a"])] == ["a", "zz"]


def test_evidence_list_dedupes_fills_digests_and_links_to_the_appendix() -> None:
    sha = hashlib.sha256(b"detail").hexdigest()
    links = [
        EvidenceLink(row="ev/h200/runs/qps_2.0", pack_path="inputs/ev/h200/runs/qps_2.0/d.txt"),
        EvidenceLink(row="ev/h200/runs/qps_3.0", file_sha256=sha),
        EvidenceLink(row="ev/h200/runs/qps_2.0", pack_path="inputs/ev/h200/runs/qps_2.0/d.txt"),
        EvidenceLink(row="ev/h200/scores.jsonl", pack_path="inputs/not-an-input.jsonl"),
    ]
    digest = hashlib.sha256(b"run 2.0").hexdigest()
    ev = evidence_list(
        links,
        {"inputs/ev/h200/runs/qps_2.0/d.txt": digest},
        {"inputs/ev/h200/runs/qps_2.0/d.txt": 7},
    )
    assert ev.folder == "ev/h200/"
    assert [(i.label, i.row, i.sha256, i.group) for i in ev.items] == [
        ("runs/qps_2.0", "ev/h200/runs/qps_2.0", digest, 7),
        ("runs/qps_3.0", "ev/h200/runs/qps_3.0", sha, None),
        ("scores.jsonl", "ev/h200/scores.jsonl", None, None),
    ]
    assert evidence_list([], {}, {}).items == ()


def test_fixture_inputs_group_mlperf_results_by_folder() -> None:
    doc = fixture.decision()
    groups = group_inputs(doc.inputs, [c.id for c in doc.candidates])
    multi = [g for g in groups if not g.single]
    assert [g.reference for g in multi] == [f"mlperf/{r['key']}" for r in fixture.REFERENCES]
    assert all(len(g.files) == 2 for g in multi)
    assert sum(len(g.files) for g in groups) == len(doc.inputs)
