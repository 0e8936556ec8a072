"""One pack, one answer: ``verify``, ``diff``, ``warehouse add`` and ``export oscal`` open a pack
with the same reader (``signing.open_pack``), so each tampered pack below fails all four, and
the untouched sample passes all four."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.open_pack import open_pack
from evidencepack.signing.sign import sign_pack_detailed
from evidencepack.signing.verify import KeyPolicy

from ..packs import SignedSample

# slow: each tampered pack goes through verify, diff, warehouse add and export
pytestmark = pytest.mark.slow

INPUT = "inputs/evidence/h200-vllm/runs/qps_4.0/run.json"


@dataclass(frozen=True)
class Keys:
    """The sample's key and another one a forger holds."""

    sample: SignedSample
    other_private: Path
    other_public: Path

    def resign(self, pack: Path) -> None:
        signer = KeySigner.from_file(self.other_private, lambda: None)
        sign_pack_detailed(pack, None, signer, force=True)


@pytest.fixture(scope="module")
def keys(signed_sample: SignedSample, tmp_path_factory: pytest.TempPathFactory) -> Keys:
    folder = tmp_path_factory.mktemp("forger")
    pair = generate_keypair(folder / "other.pem", folder / "other.pub", None)
    return Keys(signed_sample, pair.private_key, pair.public_key)


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    i = data.index(b" ")
    data[i] = ord("\t")
    path.write_bytes(bytes(data))


def _edit_json(path: Path, edit: Callable[[dict[str, object]], None]) -> None:
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")


def _recommend_h200(document: dict[str, object]) -> None:
    document["recommendation"] = "h200-vllm"


def _relink(document: dict[str, object]) -> None:
    checks = document["checks"]
    assert isinstance(checks, list)
    checks[0]["evidence"][0]["file_sha256"] = "0" * 64


# Each case: what it does to a copy of the signed sample, whether the forger re-signs it with
# their own key (and the commands are given the forger's public key), and a text the verify
# output must hold.
Tamper = Callable[[Path], None]
CASES: dict[str, tuple[Tamper, bool, str]] = {
    "input-byte-resigned": (lambda p: _flip_byte(p / INPUT), True, f"({INPUT}) is "),
    "input-byte": (lambda p: _flip_byte(p / INPUT), False, f"{INPUT}  expected"),
    "decision-edited-resigned": (
        lambda p: _edit_json(p / "decision.json", _recommend_h200),
        True,
        "recommendation is h200-vllm",
    ),
    "evidence-link-resigned": (
        lambda p: _edit_json(p / "decision.json", _relink),
        True,
        "checks[0].evidence[0].file_sha256",
    ),
    "manifest-edited": (
        lambda p: (p / "manifest.json").write_text((p / "manifest.json").read_text() + " "),
        False,
        "manifest.json",
    ),
    "input-deleted": (lambda p: (p / INPUT).unlink(), False, "missing"),
    "input-deleted-resigned": (
        lambda p: (p / INPUT).unlink(),
        True,
        "sha256 of the file is absent",
    ),
    "extra-file": (lambda p: (p / "inputs" / "note.txt").write_text("x"), False, "extra"),
    "bundle-deleted": (lambda p: (p / "pack.sigstore.json").unlink(), False, "pack.sigstore.json"),
    "other-signer": (lambda p: None, True, "sha256:"),
    "report-edited": (
        lambda p: (p / "report.html").write_bytes((p / "report.html").read_bytes() + b"<!-- -->"),
        False,
        "report.html",
    ),
    "predicate-edited": (
        lambda p: (p / "predicate.json").write_text((p / "predicate.json").read_text() + " "),
        False,
        "predicate.json",
    ),
    "verdict-statement-deleted": (
        lambda p: (p / "svr.sigstore.json").unlink(),
        False,
        "svr.sigstore.json",
    ),
}


def _verdicts(pack: Path, pub: Path, work: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    """Each command's exit code on ``pack`` with ``pub``, and verify's output."""
    key = ["--key", str(pub)]
    codes = {
        "verify": main(["verify", str(pack), *key]),
    }
    said = capsys.readouterr().out
    codes["diff"] = main(["diff", str(pack), str(pack), *key])
    codes["warehouse add"] = main(
        ["warehouse", "add", str(pack), "--warehouse", str(work / "wh"), *key]
    )
    codes["export oscal"] = main(["export", "oscal", str(pack), "-o", str(work / "oscal"), *key])
    capsys.readouterr()
    return {"codes": codes, "verify": said}


def test_the_untouched_sample_passes_all_four(
    keys: Keys, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = _verdicts(keys.sample.pack, keys.sample.pub, tmp_path, capsys)
    assert set(seen["codes"].values()) == {0}, seen


@pytest.mark.parametrize("case", list(CASES))
def test_a_tampered_pack_gets_the_same_verdict_from_every_command(
    case: str, keys: Keys, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper, resign, expected = CASES[case]
    pack = tmp_path / "pack"
    shutil.copytree(keys.sample.pack, pack)
    tamper(pack)
    if resign:
        keys.resign(pack)
    pub = keys.other_public if resign and case != "other-signer" else keys.sample.pub
    seen = _verdicts(pack, pub, tmp_path, capsys)
    assert seen["codes"] == dict.fromkeys(seen["codes"], 1), seen
    assert expected in seen["verify"], seen["verify"]
    assert not (tmp_path / "oscal").exists()


def test_the_forged_pack_names_the_file_and_both_digests(keys: Keys, tmp_path: Path) -> None:
    """An input changed by one byte and the pack re-signed with another key: open_pack (with
    the forger's key, whose signature holds) names manifest.json's digest and the file's."""
    pack = tmp_path / "pack"
    shutil.copytree(keys.sample.pack, pack)
    recorded = next(
        i["sha256"]
        for i in json.loads((pack / "manifest.json").read_text())["inputs"]
        if i["pack_path"] == INPUT
    )
    _flip_byte(pack / INPUT)
    keys.resign(pack)
    from evidencepack.signing.keys import load_public_key

    with open_pack(pack, KeyPolicy(load_public_key(keys.other_public))) as opened:
        assert not opened.ok
        assert opened.report.checks.signature == "passed"
        assert opened.folder is None
        assert opened.predicate is None
        (problem,) = [p for p in opened.problems if INPUT in p]
    import hashlib

    actual = hashlib.sha256((pack / INPUT).read_bytes()).hexdigest()
    assert recorded in problem
    assert actual in problem
    assert problem.startswith("manifest.json: inputs[")


def test_opened_without_a_policy_everything_but_the_signature_is_checked(keys: Keys) -> None:
    with open_pack(keys.sample.archive, None) as opened:
        assert opened.ok
        assert opened.report.checks.signature == "not run"
        assert not opened.signature_checked
        assert opened.decision is not None
        assert opened.manifest is not None
        assert opened.decision.decision_id == opened.manifest.decision.decision_id
        assert opened.predicate is not None
        assert opened.evidence_digest is not None
        assert opened.folder is not None
        assert (opened.folder / "decision.json").is_file()


def test_verify_of_the_sample_is_short_and_counts_the_verdict_properties(
    keys: Keys, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(keys.sample.archive), "--key", str(keys.sample.pub)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert len(lines) <= 20, text
    assert max(len(line) for line in lines) < 200, text
    assert "EVIDENCEPACK_CANDIDATE_" not in text
    assert "properties (" in text
    assert " files passed, " in text
    assert (
        main(["verify", str(keys.sample.archive), "--key", str(keys.sample.pub), "--verbose"]) == 0
    )
    verbose = capsys.readouterr().out
    assert "EVIDENCEPACK_CANDIDATE_" in verbose
    assert "agree with each other" in verbose


_WITHOUT = """
import sys
from importlib.abc import MetaPathFinder

class Absent(MetaPathFinder):
    # the smallest install that verifies: none of these is installed
    names = {"weasyprint", "duckdb", "jinja2", "numpy", "zstandard", "packaging", "pyhanko"}

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)")
        return None

sys.meta_path.insert(0, Absent())
from evidencepack._cli import main
code = main(sys.argv[1:])
print("EXIT", code)
print("LOADED", sorted({m.split(".")[0] for m in sys.modules} & Absent.names))
"""


def test_verify_runs_without_weasyprint_or_duckdb_installed(keys: Keys) -> None:
    """``verify`` (no ``--rebuild``) of the sample's archive needs neither the renderer nor the
    store: with WeasyPrint, DuckDB, jinja2, numpy and the other build-only libraries made
    unimportable, it still verifies, and loads none of them."""
    import subprocess
    import sys

    argv = ["verify", str(keys.sample.archive), "--key", str(keys.sample.pub)]
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT, *argv], capture_output=True, text=True, check=False
    )
    assert "EXIT 0" in done.stdout, done.stdout + done.stderr
    assert "LOADED []" in done.stdout
    assert done.stdout.startswith("OK: archive ")


def test_a_failed_rebuild_names_the_first_input_read_differently() -> None:
    from evidencepack.signing.rebuild_compare import input_cause

    def manifest(**reading: object) -> bytes:
        entry = {"pack_path": "inputs/b.json", "sha256": "b" * 64, "tool_version": "0.6.1"}
        first = {"pack_path": "inputs/a.json", "sha256": "a" * 64, "tool_version": "1"}
        return json.dumps({"inputs": [first, {**entry, **reading}]}).encode()

    assert input_cause(manifest(), manifest(tool_version="0.7.0")) == (
        "the first input read differently: inputs/b.json (tool_version 0.6.1; recomputed: 0.7.0)"
    )
    assert input_cause(manifest(), manifest()).startswith("every input was read with the same")
    assert input_cause(manifest(), b"{}").endswith("(not read by the rebuild)")
