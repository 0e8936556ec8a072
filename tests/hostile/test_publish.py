"""Publishing touches only what this build created (issue 23, item 1).

A publish journal beside OUTDIR is a file anyone can commit into a CI checkout; a folder named
like a temporary can be the user's; a project folder can hold files called ``manifest.json``
and ``predicate.json``. None of them may make a build delete or move anything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidencepack.pack.predicate import load_predicate
from evidencepack.pack.publish import PACK_MARKERS, staging_dir
from evidencepack.pipeline import BuildResult, replaceable_pack
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.sign import sign_pack

from ..conftest import REPO_ROOT
from .harness import assert_refused, run, snapshot

SAMPLES = REPO_ROOT / "samples"
"""The sample spec and its evidence: a spec that validates, so ``build`` reaches OUTDIR (its
journal is recovered, or refused, before anything is compiled)."""


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A CI checkout (spec, OUTDIR's parent) beside the user's own files; returns (spec, out)."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    spec = checkout / "pack.yaml"
    shutil.copyfile(SAMPLES / "pack.yaml", spec)
    shutil.copytree(SAMPLES / "evidence", checkout / "evidence")
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim/thesis.tex").write_text("five years of work")
    (tmp_path / "victim.txt").write_text("notes")
    return spec, checkout / "pack"


@pytest.mark.parametrize(
    "journal",
    [
        {"staging": "nothing", "archive": None, "old": "../victim", "old_archive": "../victim.txt"},
        {"staging": "../victim", "archive": None, "old": "x.old", "old_archive": "x.tar.gz.old"},
        {"staging": "ABSOLUTE", "archive": "../victim.txt", "old": "../victim", "old_archive": "a"},
    ],
    ids=["deletes-outside", "moves-outside-in", "absolute"],
)
def test_a_planted_journal_moves_and_deletes_nothing(
    tmp_path: Path, journal: dict[str, str | None]
) -> None:
    spec, out = _checkout(tmp_path)
    planted = out.with_name(".pack.publish.json")
    # an absolute name, but only ever of the test's own folder (the old code moved it in)
    absolute = {k: str(tmp_path / "victim") if v == "ABSOLUTE" else v for k, v in journal.items()}
    planted.write_text(json.dumps(absolute))
    before = snapshot(tmp_path)
    ran = run(["build", str(spec), "-o", str(out)])
    assert_refused(ran, 3, str(planted), "nothing was moved or deleted")
    assert snapshot(tmp_path) == before
    assert (tmp_path / "victim").is_dir()
    assert not out.exists()


def test_a_journal_copied_from_another_folder_is_refused(tmp_path: Path) -> None:
    """A journal of this version, naming a real work folder, but written for another parent
    folder (copied or planted): its identity does not match, so nothing moves."""
    spec, out = _checkout(tmp_path)
    work_id = "0" * 32
    work = out.parent / f".pack.{_dead_pid()}-{work_id}.tmp"
    (work / "pack").mkdir(parents=True)
    (work / "pack/planted.txt").write_text("planted")
    journal = {
        "apiVersion": "evidencepack/publish/v2",
        "id": work_id,
        "pid": int(work.name.split(".")[2].split("-")[0]),
        "out": "pack",
        "parent": [1, 2],
        "work": [1, 3],
        "replaces": None,
        "replaces_archive": None,
        "archive": False,
    }
    out.with_name(".pack.publish.json").write_text(json.dumps(journal))
    before = snapshot(tmp_path)
    ran = run(["build", str(spec), "-o", str(out)])
    assert_refused(ran, 3, ".pack.publish.json", "not written for")
    assert snapshot(tmp_path) == before
    assert not out.exists()


def test_a_user_folder_named_like_a_temporary_is_kept(tmp_path: Path) -> None:
    """Only a work folder this tool made (its marker inside) and whose process is dead is
    removed; a user's folder that merely matches the name pattern stays."""
    out = tmp_path / "pack"
    pid = _dead_pid()
    mine = [tmp_path / f".pack.{pid}-abc123.tmp", tmp_path / f".pack.{pid}-{'a' * 32}.tmp"]
    for folder in mine:
        folder.mkdir()
        (folder / "draft.md").write_text("mine")
    (tmp_path / f".pack.{pid}-abc123.tar.gz.tmp").write_text("mine too")
    stale = subprocess.run(  # a build that died: its work folder, marker included, stays behind
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from evidencepack.pack.publish import "
            "staging_dir; print(staging_dir(Path(sys.argv[1])))",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    dead_work = Path(stale.stdout.strip()).parent
    assert dead_work.is_dir()
    before = snapshot(tmp_path)
    staging = staging_dir(out)
    assert not dead_work.exists()  # the dead build's own work folder is cleaned ...
    shutil.rmtree(staging.parent)
    assert snapshot(tmp_path) == {k: v for k, v in before.items() if dead_work.name not in k}
    assert all(folder.is_dir() for folder in mine)  # ... the user's folders are not


@pytest.fixture(scope="session")
def real_pack(sample_build: BuildResult) -> Path:
    """The sample built into a real pack, once per session (tests/packs.py; read only)."""
    return sample_build.out_dir


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ("copied", "holds files no pack of it lists: src/background.js"),
        ("empty", "not an evidencepack pack"),
    ],
)
def test_force_refuses_a_project_folder_holding_pack_file_names(
    tmp_path: Path, samples: Path, real_pack: Path, files: str, message: str
) -> None:
    project = tmp_path / "extension"
    (project / "src").mkdir(parents=True)
    (project / "src/background.js").write_text("chrome.runtime.onInstalled.addListener(() => {});")
    for name in ("manifest.json", "predicate.json"):
        if files == "copied":
            shutil.copyfile(real_pack / name, project / name)
        else:
            (project / name).write_text("{}")
    before = snapshot(tmp_path)
    ran = run(["build", str(samples / "pack.yaml"), "-o", str(project), "--force"])
    assert_refused(ran, 2, str(project), message, "--force replaces only")
    assert snapshot(tmp_path) == before


def test_force_replaces_a_pack_only_while_it_verifies(tmp_path: Path, real_pack: Path) -> None:
    copy = tmp_path / "pack"
    shutil.copytree(real_pack, copy)
    assert replaceable_pack(copy, PACK_MARKERS) is None
    (copy / "notes.txt").write_text("a user's notes, dropped into the pack folder")
    assert "notes.txt" in str(replaceable_pack(copy, PACK_MARKERS))
    os.remove(copy / "notes.txt")
    spec = copy / "inputs/pack.yaml"
    spec.write_text(spec.read_text() + "# edited\n")
    assert "differ from its own manifest: inputs/pack.yaml" in str(
        replaceable_pack(copy, PACK_MARKERS)
    )


def test_force_replaces_a_signed_pack_only_while_its_statement_agrees(
    tmp_path: Path, real_pack: Path
) -> None:
    copy = tmp_path / "pack"
    shutil.copytree(real_pack, copy)
    keys = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub", None)
    sign_pack(copy, load_predicate(copy), KeySigner.from_file(keys.private_key, lambda: None))
    assert replaceable_pack(copy, PACK_MARKERS) is None
    (copy / "report.html").write_text("<p>not the signed report</p>")  # no manifest pins it
    assert "signed statement" in str(replaceable_pack(copy, PACK_MARKERS))
