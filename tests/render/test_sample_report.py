"""The report of the real sample pack: under 20 pages, every required part bookmarked, page 1 is
the decision, the manifest and decision travel inside the PDF, every input named in the appendix.

Built once per session from ``samples/pack.yaml`` through the whole pipeline (about 10 s).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pypdf
import pytest

from evidencepack.analyze.models import DecisionDocument, InputFile
from evidencepack.pack.layout import MANIFEST_NAME
from evidencepack.pipeline import BuildOptions, BuildResult, CompileOptions, build
from evidencepack.render.evidence import group_inputs, listing_sha256

from ..conftest import SAMPLE_SPEC
from .scan import scan
from .test_html import SECTIONS as REQUIRED_SECTIONS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def sample_pack(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    out = tmp_path_factory.mktemp("sample") / "pack"
    return build(SAMPLE_SPEC, out, BuildOptions(compile=CompileOptions()))


@pytest.fixture(scope="session")
def reader(sample_pack: BuildResult) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO((sample_pack.out_dir / "report.pdf").read_bytes()))


def test_the_sample_report_has_fewer_than_20_pages(reader: pypdf.PdfReader) -> None:
    pages = len(reader.pages)
    assert pages < 20, f"the sample report has {pages} pages"
    last = " ".join(reader.pages[-1].extract_text().split())
    assert f"page {pages} of {pages}" in last


def test_every_required_section_is_bookmarked_in_order(reader: pypdf.PdfReader) -> None:
    top = [item for item in reader.outline if not isinstance(item, list)]
    titles = [str(item.title) for item in top]
    assert [t for t in titles if t in REQUIRED_SECTIONS] == list(REQUIRED_SECTIONS)
    pages = [reader.get_destination_page_number(item) for item in top]
    assert pages == sorted(pages)
    assert pages[0] == 0
    # Each candidate's capacity has its own bookmark under "Capacity at the SLO".
    nested = [
        str(t.title).strip() for item in reader.outline if isinstance(item, list) for t in item
    ]
    for candidate in ("h200-vllm", "mi325x-vllm", "b200-trtllm"):
        assert candidate in nested


def test_page_one_is_the_decision_with_digest_and_signer(
    reader: pypdf.PdfReader, sample_pack: BuildResult
) -> None:
    decision = sample_pack.decision
    text = " ".join(reader.pages[0].extract_text().split())
    assert decision.recommendation is not None
    # The label is upper-cased by the stylesheet, and so extracted.
    assert f"RECOMMENDATION {decision.recommendation} " in text
    assert decision.summary in text
    assert sample_pack.evidence_digest in text.replace(" ", "")
    assert "Signer unsigned" in text
    for verdict in decision.candidates:
        assert verdict.id in text
    # The verdict table and the parts after it: nothing of page 2 leaks onto page 1.
    assert "Contents" not in text


def test_the_pdf_carries_the_packs_manifest_and_decision(
    reader: pypdf.PdfReader, sample_pack: BuildResult
) -> None:
    folder = sample_pack.out_dir
    assert dict(reader.attachments.items()) == {
        MANIFEST_NAME: [(folder / MANIFEST_NAME).read_bytes()],
        "decision.json": [(folder / "decision.json").read_bytes()],
    }


def test_the_appendix_names_every_input_and_its_digest(sample_pack: BuildResult) -> None:
    """An auditor's path: from the embedded manifest back to the appendix, reference by
    reference, recomputing each listing digest from the per-file digests."""
    folder: Path = sample_pack.out_dir
    manifest = json.loads((folder / MANIFEST_NAME).read_bytes())
    inputs = [InputFile.model_validate(i) for i in manifest["inputs"]]
    decision = DecisionDocument.model_validate_json((folder / "decision.json").read_bytes())
    assert len(inputs) == len(decision.inputs) > 80
    html = (folder / "report.html").read_text(encoding="utf-8")
    appendix = scan(html[html.index('<section id="sec-inputs">') :]).all_text()
    groups = group_inputs(inputs, [c.id for c in decision.candidates])
    assert len(groups) < len(inputs) / 3
    for g in groups:
        assert f"A{g.number} {g.reference}" in appendix
        digest = g.files[0].sha256 if g.single else listing_sha256(g.files)
        assert digest in appendix, g.reference
        assert re.search(rf"\b{len(g.files)} files?\b", appendix)
    assert f"lists every one of the {len(inputs)} files with its own sha256" in appendix
