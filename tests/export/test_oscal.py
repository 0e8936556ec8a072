"""``evidencepack export oscal`` of the real sample pack: valid against NIST's OSCAL schemas,
every reference resolving inside the export, the pack's digests carried over, the same bytes
from the folder, the archive and a rebuild.

The schemas are NIST's (``schemas/README.md``); patterns are evaluated with the ``regex``
package because Python's ``re`` cannot compile OSCAL's ``\\p{L}`` token patterns (asserted
below, so the workaround is shown to be needed, not assumed).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.core.provenance import sha256_file
from evidencepack.export.oscal import CATALOG_NAME, RESULTS_NAME, export_oscal
from evidencepack.pack.layout import DECISION_NAME, MANIFEST_NAME, SPEC_PATH
from evidencepack.pipeline import BuildOptions, BuildResult, CompileOptions, build

from ..conftest import SAMPLE_SPEC
from .conftest import (
    SCHEMA_1_1_2,
    SCHEMA_1_1_2_SHA256,
    load_schema,
    oscal_errors,
    python_re_rejects,
)

# slow: validates the export against NIST's large OSCAL schemas; one rebuild
pytestmark = pytest.mark.slow


def _export(pack: Path, out: Path, version: str = "1.2.3") -> tuple[dict[str, Any], dict[str, Any]]:
    assert main(["export", "oscal", str(pack), "-o", str(out), "--oscal-version", version]) == 0
    results = json.loads((out / RESULTS_NAME).read_text(encoding="utf-8"))
    catalog = json.loads((out / CATALOG_NAME).read_text(encoding="utf-8"))
    return results, catalog


@pytest.fixture(scope="module")
def exported(sample_pack: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "oscal"
    _export(sample_pack, out)
    return out


def _documents(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        json.loads((folder / RESULTS_NAME).read_text(encoding="utf-8")),
        json.loads((folder / CATALOG_NAME).read_text(encoding="utf-8")),
    )


def test_python_re_cannot_compile_the_oscal_token_pattern(schema_1_2_3: dict[str, Any]) -> None:
    assert python_re_rejects(schema_1_2_3)


def test_the_sample_export_is_valid_oscal_1_2_3(
    exported: Path, schema_1_2_3: dict[str, Any]
) -> None:
    results, catalog = _documents(exported)
    assert results["assessment-results"]["metadata"]["oscal-version"] == "1.2.3"
    assert oscal_errors(schema_1_2_3, results) == []
    assert oscal_errors(schema_1_2_3, catalog) == []


def test_the_validator_rejects_what_oscal_forbids(
    exported: Path, schema_1_2_3: dict[str, Any]
) -> None:
    """The same check fails on a broken copy: it is not vacuous (token, enum, required)."""
    results, _ = _documents(exported)
    result = results["assessment-results"]["results"][0]
    result["findings"][0]["target"]["target-id"] = "1 not a token"
    result["findings"][1]["target"]["status"]["state"] = "passed"
    del result["observations"][0]["collected"]
    errors = oscal_errors(schema_1_2_3, results)
    assert any("findings/0/target/target-id" in e for e in errors)
    assert any("findings/1/target/status/state" in e for e in errors)
    assert any("observations/0" in e and "collected" in e for e in errors)


def test_the_1_1_2_export_is_valid_oscal_1_1_2(sample_pack: Path, tmp_path: Path) -> None:
    if not SCHEMA_1_1_2.is_file():
        pytest.skip(
            "NIST's OSCAL v1.1.2 assessment-results schema is not vendored (no registry "
            "reachable here ships it): see tests/export/schemas/README.md to add it"
        )
    results, _ = _export(sample_pack, tmp_path / "oscal", "1.1.2")
    assert oscal_errors(load_schema(SCHEMA_1_1_2, SCHEMA_1_1_2_SHA256), results) == []


def test_the_1_1_2_export_differs_only_in_the_declared_version(
    sample_pack: Path, exported: Path, tmp_path: Path
) -> None:
    """So the 1.2.3 validation covers its structure (the parts used are the same models)."""
    _export(sample_pack, tmp_path / "oscal", "1.1.2")
    versions = ('"oscal-version": "1.1.2"', '"oscal-version": "1.2.3"')
    digests = tuple(sha256_file(f / CATALOG_NAME) for f in (tmp_path / "oscal", exported))
    for name in (CATALOG_NAME, RESULTS_NAME):
        text = (tmp_path / "oscal" / name).read_text(encoding="utf-8")
        assert text.count(versions[0]) == 1
        # The results cite the catalog by its digest, which changes with its declared version.
        same = text.replace(*versions).replace(*digests)
        assert same == (exported / name).read_text(encoding="utf-8")


def test_one_observation_and_one_finding_per_check_result(
    exported: Path, sample_pack: Path
) -> None:
    decision = json.loads((sample_pack / DECISION_NAME).read_text())
    results, catalog = _documents(exported)
    result = results["assessment-results"]["results"][0]
    checks = decision["checks"]
    assert len(result["observations"]) == len(result["findings"]) == len(checks)
    observations = {o["uuid"]: o for o in result["observations"]}
    components = {c["uuid"]: c["title"] for c in result["local-definitions"]["components"]}
    assert sorted(components.values()) == sorted(c["id"] for c in decision["candidates"])
    objectives = {
        part["id"]: control["props"][0]["value"]
        for control in catalog["catalog"]["controls"]
        for part in control["parts"]
    }
    for check, finding in zip(checks, result["findings"], strict=True):
        assert finding["title"].startswith(f"{check['id']} {check['title']}")
        (related,) = finding["related-observations"]
        observation = observations[related["observation-uuid"]]
        # Each finding targets its check's objective in the catalog written beside it.
        assert objectives[finding["target"]["target-id"]] == check["id"]
        if check["candidate"] is None:
            assert "subjects" not in observation
        else:
            (subject,) = observation["subjects"]
            assert components[subject["subject-uuid"]] == check["candidate"]
        status = finding["target"]["status"]
        expected = {"PASS": ("satisfied", "pass"), "WARN": ("not-satisfied", "other")}
        assert (status["state"], status["reason"]) == expected[check["status"]]
    selected = result["reviewed-controls"]["control-selections"][0]["include-controls"]
    catalog_ids = [c["id"] for c in catalog["catalog"]["controls"]]
    assert [s["control-id"] for s in selected] == catalog_ids
    assert catalog_ids[:2] == ["c1", "c2"]
    assert "prov-files" in catalog_ids


def test_every_reference_resolves_and_carries_the_packs_digests(
    exported: Path, sample_pack: Path
) -> None:
    results, _ = _documents(exported)
    ar = results["assessment-results"]
    resources = {r["uuid"]: r for r in ar["back-matter"]["resources"]}
    manifest = json.loads((sample_pack / MANIFEST_NAME).read_text())
    manifest_digests = {i["pack_path"]: i["sha256"] for i in manifest["inputs"]}
    linked = {}
    for resource in resources.values():
        (rlink,) = resource["rlinks"]
        (digest,) = rlink["hashes"]
        assert digest["algorithm"] == "SHA-256"
        linked[rlink["href"]] = digest["value"]
    # Every manifest input is a resource with the manifest's digest, which is the file's.
    for path, digest in manifest_digests.items():
        assert linked[path] == digest == sha256_file(sample_pack / path)
    for name in (DECISION_NAME, MANIFEST_NAME, "report.pdf", "report.html"):
        assert linked[name] == sha256_file(sample_pack / name)
    assert linked[CATALOG_NAME] == sha256_file(exported / CATALOG_NAME)
    # import-ap: the spec, by the digest the decision was compiled from.
    spec = resources[ar["import-ap"]["href"].removeprefix("#")]
    assert spec["rlinks"][0]["href"] == SPEC_PATH
    assert spec["rlinks"][0]["hashes"][0]["value"] == manifest["spec_sha256"]
    # Each observation's evidence: the files its check cites, then decision.json.
    decision = json.loads((sample_pack / DECISION_NAME).read_text())
    observations = ar["results"][0]["observations"]
    for check, observation in zip(decision["checks"], observations, strict=True):
        hrefs = [
            resources[e["href"].removeprefix("#")]["rlinks"][0]["href"]
            for e in observation["relevant-evidence"]
        ]
        cited = list(dict.fromkeys(e["pack_path"] for e in check["evidence"] if e["pack_path"]))
        assert hrefs == [*cited, DECISION_NAME]
    assert (
        ar["metadata"]["version"]
        == "sha256:" + hashlib.sha256((sample_pack / MANIFEST_NAME).read_bytes()).hexdigest()
    )


def test_the_export_is_the_same_bytes_from_folder_archive_and_rebuild(
    sample_build: BuildResult, exported: Path, tmp_path: Path
) -> None:
    pack = sample_build.out_dir
    assert sample_build.archive is not None
    again, from_archive, rebuilt = tmp_path / "again", tmp_path / "archive", tmp_path / "rebuilt"
    _export(pack, again)
    _export(sample_build.archive, from_archive)
    # What `verify --rebuild` does: the pack's own inputs, compiled as of its decision date.
    as_of = dt_of(pack)
    build(
        pack / SPEC_PATH,
        tmp_path / "rebuilt-pack",
        BuildOptions(compile=CompileOptions(as_of=as_of)),
    )
    _export(tmp_path / "rebuilt-pack", rebuilt)
    for name in (RESULTS_NAME, CATALOG_NAME):
        expected = (exported / name).read_bytes()
        for folder in (again, from_archive, rebuilt):
            assert (folder / name).read_bytes() == expected, f"{folder.name}/{name} differs"


def dt_of(pack: Path) -> Any:
    """The pack's decision date, as `rebuild` reads it from the predicate."""
    from evidencepack.pack.predicate import load_predicate

    return load_predicate(pack).decision.as_of


@pytest.mark.parametrize("inside", [".", "oscal"])
def test_export_into_the_pack_itself_is_refused(
    sample_pack: Path, capsys: pytest.CaptureFixture[str], inside: str
) -> None:
    out = sample_pack / inside
    assert main(["export", "oscal", str(sample_pack), "-o", str(out)]) == 2
    assert "is inside the pack" in capsys.readouterr().err
    assert not (out / RESULTS_NAME).exists()
    assert not (sample_pack / "oscal").exists()


def test_library_and_command_line_write_the_same(
    exported: Path, sample_pack: Path, tmp_path: Path
) -> None:
    result = export_oscal(sample_pack, tmp_path, "1.2.3")
    assert result.findings == len(json.loads((sample_pack / DECISION_NAME).read_text())["checks"])
    assert result.results.read_bytes() == (exported / RESULTS_NAME).read_bytes()


def test_build_with_oscal_signs_the_export_inside_the_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, pub, pack = tmp_path / "k.pem", tmp_path / "k.pub", tmp_path / "pack"
    assert (
        main(["keygen", "--no-passphrase", "--private-key", str(key), "--public-key", str(pub)])
        == 0
    )
    assert main(["build", str(SAMPLE_SPEC), "-o", str(pack), "--key", str(key), "--oscal"]) == 0
    assert main(["verify", str(pack), "--key", str(pub)]) == 0
    statement = json.loads(
        base64.b64decode(
            json.loads((pack / "pack.sigstore.json").read_text())["dsseEnvelope"]["payload"]
        )
    )
    signed = {s["name"]: s["digest"]["sha256"] for s in statement["subject"]}
    # The report names the signing key, so this pack's export is its own: compare with that.
    assert main(["export", "oscal", str(pack), "-o", str(tmp_path / "later")]) == 0
    for name in (RESULTS_NAME, CATALOG_NAME):
        # Signed with the pack, and the same bytes `export oscal` writes of the pack later.
        assert signed[name] == sha256_file(pack / name)
        assert (pack / name).read_bytes() == (tmp_path / "later" / name).read_bytes()
    capsys.readouterr()
    # Edited after signing, verify names it.
    with (pack / RESULTS_NAME).open("ab") as handle:
        handle.write(b" ")
    assert main(["verify", str(pack), "--key", str(pub)]) == 1
    assert RESULTS_NAME in capsys.readouterr().out


def test_export_never_overwrites_without_force(
    sample_pack: Path, exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Another pack's export in the folder: refused without --force, left as it was.
    out = tmp_path / "grc"
    out.mkdir()
    earlier = (exported / RESULTS_NAME).read_bytes().replace(b"satisfied", b"SATISFIED", 1)
    (out / RESULTS_NAME).write_bytes(earlier)
    (out / CATALOG_NAME).write_bytes((exported / CATALOG_NAME).read_bytes())
    assert main(["export", "oscal", str(sample_pack), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: is not empty ({RESULTS_NAME}, {CATALOG_NAME})" in err
    assert "--force" in err
    assert (out / RESULTS_NAME).read_bytes() == earlier
    # --force replaces an earlier export (and only that).
    assert main(["export", "oscal", str(sample_pack), "-o", str(out), "--force"]) == 0
    assert (out / RESULTS_NAME).read_bytes() == (exported / RESULTS_NAME).read_bytes()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.txt", b"mine"),  # a file an export does not write
        (RESULTS_NAME, b'{"catalog": {}}'),  # the right name, the wrong document
        (CATALOG_NAME, b"not json"),
    ],
)
def test_force_replaces_only_an_export_it_recognises(
    sample_pack: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
) -> None:
    out = tmp_path / "mixed"
    out.mkdir()
    (out / name).write_bytes(content)
    assert main(["export", "oscal", str(sample_pack), "-o", str(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert "--force replaces only an earlier OSCAL export" in err
    assert f"also holds {name}" in err
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert (out / name).read_bytes() == content
