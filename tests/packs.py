"""Sample packs for the tests: the real sample built once per session (unsigned), and once per
run (signed with a passphrase-protected key: tests/run_once.py), and hand-made unsigned packs
from real files for the signing tests.

A hand-made pack here is what ``evidencepack build`` will leave: the spec and real input files
under ``inputs/``, a decision JSON, a report rendered by WeasyPrint, and ``predicate.json``.

A build of the sample costs seconds (compile, HTML, PDF/A); the session-scoped builds are read by
many tests in many modules, which must never change them: a test that tampers with a pack works
on a copy (``shutil.copytree``). Each checks at the end of the session that no file in it changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencepack import __version__
from evidencepack.core.provenance import sha256_file
from evidencepack.pack.predicate import (
    DecisionSummary,
    PackPredicate,
    SpecRef,
    ToolInfo,
    write_predicate,
)
from evidencepack.pack.toolchain import Toolchain, rendering_toolchain
from evidencepack.pipeline import BuildOptions, BuildResult, CompileOptions, build
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair
from evidencepack.spec.load import load_spec

from .conftest import SAMPLE_SPEC
from .run_once import made_once, run_folder

# Real inputs, copied (content only: the shared copies are read-only) into each pack.
REAL_INPUTS = {
    "inputs/loadgen/llama2-70b_Server_perf/mlperf_log_summary.txt": (
        "loadgen/llama2-70b_Server_perf/mlperf_log_summary.txt"
    ),
    "inputs/loadgen/llama2-70b_Server_perf/mlperf_log_detail.txt": (
        "loadgen/llama2-70b_Server_perf/mlperf_log_detail.txt"
    ),
    "inputs/runs/guidellm/benchmarks.json": "formats/guidellm/generated/benchmarks.json",
}

_REPORT_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="dcterms.created" content="{created}"><meta name="dcterms.modified" content="{created}">
<style>body {{ font-family: "DejaVu Sans"; }}</style></head>
<body><h1>{title}</h1><p>{question}</p></body></html>
"""


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    return rendering_toolchain()


@pytest.fixture(scope="session")
def report_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """The sample spec's title page as HTML and as a PDF rendered once by WeasyPrint."""
    import weasyprint

    spec = load_spec(SAMPLE_SPEC).spec
    html = _REPORT_HTML.format(
        title=f"Evidence pack {spec.decision.id}",
        question=spec.decision.question,
        created=spec.decision.date.isoformat(),
    )
    pdf = weasyprint.HTML(string=html).write_pdf(pdf_variant="pdf/a-3b")
    assert isinstance(pdf, bytes)
    return html.encode(), pdf


def predicate_for(pack: Path, toolchain: Toolchain) -> PackPredicate:
    spec = load_spec(SAMPLE_SPEC).spec  # the copy's evidence paths resolve only in samples/
    return PackPredicate(
        tool=ToolInfo(version=__version__),
        spec=SpecRef(pack_path="inputs/pack.yaml", sha256=sha256_file(pack / "inputs/pack.yaml")),
        decision=DecisionSummary(
            decision_id=spec.decision.id,
            question=spec.decision.question,
            as_of=spec.decision.date,
            recommendation=spec.chosen,
            chosen=spec.chosen,
            verdict="PASS",
        ),
        toolchain=toolchain,
        created_at=spec.decision.date.isoformat(),
        rendered=("report.html", "report.pdf"),
    )


def build_pack(
    folder: Path, shared_data: Path, toolchain: Toolchain, report: tuple[bytes, bytes]
) -> tuple[Path, PackPredicate]:
    """An unsigned pack in ``folder`` with its predicate written to predicate.json."""
    (folder / "inputs").mkdir(parents=True)
    shutil.copyfile(SAMPLE_SPEC, folder / "inputs" / "pack.yaml")
    for target, source in REAL_INPUTS.items():
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_data / source, folder / target)
    spec = load_spec(SAMPLE_SPEC).spec
    predicate = predicate_for(folder, toolchain)
    # The one-line decision as decision.json states it, so that the documents agree.
    decision = {
        **predicate.decision.model_dump(mode="json"),
        "spec_sha256": predicate.spec.sha256,
        "tool_version": predicate.tool.version,
        "candidates": [c.id for c in spec.candidates],
    }
    (folder / "decision.json").write_text(json.dumps(decision, indent=2, sort_keys=True) + "\n")
    (folder / "report.html").write_bytes(report[0])
    (folder / "report.pdf").write_bytes(report[1])
    write_predicate(folder, predicate)
    return folder, predicate


def another_pack(
    folder: Path, shared_data: Path, like: Path, toolchain: Toolchain
) -> tuple[Path, PackPredicate]:
    """A second pack: same inputs and HTML as the pack in ``like``, another PDF."""
    html = (like / "report.html").read_bytes()
    return build_pack(folder, shared_data, toolchain, (html, b"%PDF-1.7 another report"))


@pytest.fixture
def pack(
    tmp_path: Path, shared_data: Path, toolchain: Toolchain, report_files: tuple[bytes, bytes]
) -> tuple[Path, PackPredicate]:
    return build_pack(tmp_path / "pack", shared_data, toolchain, report_files)


def _tree_digests(root: Path, *, besides: str = "") -> dict[str, str]:
    """Every file under ``root`` (relative name) with its SHA-256; none under ``root/besides``
    (another shared pack that sits beside this one and is checked on its own)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not (besides and p.relative_to(root).parts[0] == besides)
    }


def _assert_unchanged(root: Path, before: dict[str, str], *, besides: str = "") -> None:
    """Fail if a file under ``root`` was changed, added or removed since ``before``."""
    now = _tree_digests(root, besides=besides)
    assert now == before, f"a test changed the shared pack in {root}: copy it first"


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BuildResult]:
    """The sample spec built into an unsigned pack, with its archive, once per session.

    Read only: copy it to change it."""
    out = tmp_path_factory.mktemp("sample-unsigned") / "pack"
    result = build(SAMPLE_SPEC, out, BuildOptions(compile=CompileOptions()), archive=True)
    before = _tree_digests(out.parent)
    yield result
    _assert_unchanged(out.parent, before)


SIGNED_SAMPLE_PASSPHRASE = b"signed sample passphrase"


@dataclass(frozen=True)
class SignedSample:
    """The sample built and signed with a passphrase-protected key (``SIGNED_SAMPLE_PASSPHRASE``),
    with its archive ``pack.tar.gz`` beside it. Read only: copy it to change it."""

    pack: Path
    archive: Path
    key: Path
    pub: Path

    def signer(self) -> KeySigner:
        """A signer holding the pack's key (to sign a copy again, or another pack)."""
        return KeySigner.from_file(self.key, lambda: SIGNED_SAMPLE_PASSPHRASE)


@pytest.fixture(scope="session")
def signed_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SignedSample]:
    """The sample, built and key-signed once per run (see ``SignedSample``, tests/run_once.py)."""
    folder = run_folder("sample-signed", tmp_path_factory)
    sample = SignedSample(
        folder / "pack", folder / "pack.tar.gz", folder / "key.pem", folder / "key.pub"
    )
    with made_once("sample-signed", folder) as make:
        if make:
            folder.mkdir(parents=True, exist_ok=True)
            keys = generate_keypair(sample.key, sample.pub, SIGNED_SAMPLE_PASSPHRASE)
            signer = KeySigner.from_file(keys.private_key, lambda: SIGNED_SAMPLE_PASSPHRASE)
            options = BuildOptions(compile=CompileOptions())
            result = build(SAMPLE_SPEC, sample.pack, options, signer, archive=True)
            assert (result.out_dir, result.archive) == (sample.pack, sample.archive)
    before = _tree_digests(folder, besides=STACK_BUMP_NAME)
    yield sample
    _assert_unchanged(folder, before, besides=STACK_BUMP_NAME)


STACK_BUMP_SPEC = SAMPLE_SPEC.with_name("pack-stack-bump.yaml")
STACK_BUMP_NAME = "pack-stack-bump"


@pytest.fixture(scope="session")
def signed_stack_bump(signed_sample: SignedSample) -> Iterator[Path]:
    """samples/pack-stack-bump.yaml (the sample after a runtime upgrade) built once per run
    and signed with the signed sample's key, into ``pack-stack-bump`` beside its ``pack`` (as
    the docs' diff example has them). Read only: copy it to change it."""
    out = signed_sample.pack.with_name(STACK_BUMP_NAME)
    with made_once(STACK_BUMP_NAME, out) as make:
        if make:
            options = BuildOptions(compile=CompileOptions())
            build(STACK_BUMP_SPEC, out, options, signed_sample.signer())
    before = _tree_digests(out)
    yield out
    _assert_unchanged(out, before)
