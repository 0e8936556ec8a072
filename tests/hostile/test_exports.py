"""Exports and verdict statements attacked (issue 42): Markdown and HTML from the spec never
reach OSCAL markup fields live; candidate ids that are one name in the verdict statements are
refused at validation; a forged or foreign-signed pack is not exported as held."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.sign import sign_pack_detailed

from ..conftest import SAMPLE_SPEC
from ..packs import SignedSample
from .harness import assert_refused, run

HOSTILE = "Which [click](javascript:alert(1)) <script>alert(2)</script> ![x](http://e.st/p.png)"


def _samples(tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(
            SAMPLE_SPEC.parent, tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
        )
    )


def _markup(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("title", "description", "remarks") and isinstance(value, str):
                yield value
            else:
                yield from _markup(value)
    elif isinstance(node, list):
        for value in node:
            yield from _markup(value)


def test_spec_markdown_and_html_reach_oscal_markup_escaped(tmp_path: Path) -> None:
    samples = _samples(tmp_path)
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = "  question: >-\n"
    assert anchor in text
    spec.write_text(text.replace(anchor, f"  question: >-\n    {HOSTILE}\n"), encoding="utf-8")
    built = run(["build", str(spec), "-o", str(tmp_path / "pack")])
    assert built.code in (0, 1), built.err
    out = tmp_path / "oscal"
    ran = run(["export", "oscal", str(tmp_path / "pack"), "-o", str(out)])
    assert ran.code == 0, ran.err
    results = json.loads((out / "assessment-results.json").read_text(encoding="utf-8"))
    fields = list(_markup(results))
    assert any("javascript:alert" in f for f in fields)  # the question is there, shown
    live = re.compile(r"(?<!\\)(<script|\[click(?!\\)\]|!(?!\\)\[x)")
    for field in fields:
        assert not live.search(field), field


def test_candidate_ids_that_are_one_verdict_name_are_refused(tmp_path: Path) -> None:
    samples = _samples(tmp_path)
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    assert "  - id: b200-trtllm\n" in text
    spec.write_text(text.replace("  - id: b200-trtllm\n", "  - id: MI325X_VLLM\n"))
    ran = run(["validate", str(spec)])
    assert_refused(ran, 1, "'MI325X_VLLM' and 'mi325x-vllm' are one name", f"{spec}:")


def test_export_of_a_forged_re_signed_pack_is_refused_under_the_policy(
    tmp_path: Path, signed_sample: SignedSample
) -> None:
    """A pack whose decision was forged (the recommendation flipped) and re-signed with the
    attacker's key is refused (exit 1, nothing written), with the trusted key or without; a pack
    only re-signed by someone else is refused under the trusted key, and exported without one
    only with the word that its signature was not checked."""
    attacker = generate_keypair(tmp_path / "attacker.pem", tmp_path / "attacker.pub", None)
    forged = Path(shutil.copytree(signed_sample.pack, tmp_path / "forged"))
    decision = json.loads((forged / "decision.json").read_text(encoding="utf-8"))
    decision["recommendation"] = "b200-trtllm"
    (forged / "decision.json").write_text(json.dumps(decision, indent=2) + "\n", encoding="utf-8")
    manifest = json.loads((forged / "manifest.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256((forged / "decision.json").read_bytes()).hexdigest()
    manifest["decision"]["sha256"] = digest
    (forged / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    resigned = Path(shutil.copytree(signed_sample.pack, tmp_path / "resigned"))
    for pack in (forged, resigned):
        sign_pack_detailed(pack, None, KeySigner.from_file(attacker.private_key), force=True)
    out = tmp_path / "oscal"
    trusted = ["--key", str(signed_sample.pub)]
    for pack, key in ((forged, trusted), (forged, []), (resigned, trusted)):
        ran = run(["export", "oscal", str(pack), "-o", str(out), *key])
        assert_refused(ran, 1, "nothing was exported")
        assert not out.exists()
    ran = run(["export", "oscal", str(resigned), "-o", str(out)])
    assert ran.code == 0, ran.err
    assert "signature NOT checked" in ran.out, ran.out
