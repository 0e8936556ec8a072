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
from evidencepack.render.formatting import money

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
    # Each candidate's detail has its own bookmark under "Appendix A: per-candidate detail".
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
    assert "Signer: none: this build was not asked to sign" in text
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


def test_page_one_carries_what_procurement_signs(
    reader: pypdf.PdfReader, sample_pack: BuildResult
) -> None:
    """Issue 13, point 7, read from the PDF's own text: the recommendation and the chosen
    candidate; what to buy in whole units; cost per month, year and 1M output tokens; the
    findings that stand, counted, one line each; the price's source and date; signer and verify."""
    decision = sample_pack.decision
    text = " ".join(reader.pages[0].extract_text().split())
    chosen = decision.chosen
    assert chosen is not None
    assert f"RECOMMENDATION {decision.recommendation} CHOSEN IN THE SPEC {chosen} " in text
    cost = next(c for c in decision.cost if c.candidate == chosen)
    capacity = next(c for c in decision.capacity if c.candidate == chosen)
    price = decision.spec.candidate(chosen).price
    assert capacity.accelerators is not None
    # The sample bills the MI325X per accelerator: the spec's rule is on the page.
    assert price.billed_per == cost.billed_per == "accelerator"
    assert f"What to buy: {chosen} (chosen in the spec)" in text
    assert f"{capacity.accelerators} \u00d7 AMD Instinct MI325X 256GB HBM3E" in text
    assert "billed one accelerator at a time as the spec states" in text
    assert f"no idle slot is paid; they fill {capacity.servers} server(s) of 8" in text
    assert (
        f"{money(cost.per_month, 'USD')} per month \u00b7 {money(cost.per_year, 'USD')} per year "
        f"\u00b7 {money(cost.per_million_output_tokens, 'USD')} per 1M output tokens"
    ) in text
    assert cost.per_year == pytest.approx(cost.per_month * 12)
    assert f"source: {price.source}; quoted {price.as_of}" in text
    # Whole servers for the others: the idle slots are counted in the comparison.
    for other in decision.cost:
        if other.billed_per == "server" and other.idle_accelerators:
            cap = next(c for c in decision.capacity if c.candidate == other.candidate)
            assert (
                f"{cap.servers} \u00d7 8 {cap.accelerators} needed, {other.idle_accelerators} idle"
                in text
            )
            assert money(other.per_year, "USD") in text
    # The findings that stand for the chosen candidate and the decision, one line each.
    standing = [
        c
        for c in decision.checks
        if c.candidate in (None, chosen) and (c.status != "PASS" or c.waived is not None)
    ]
    warnings = sum(1 for c in standing if c.status == "WARN" and c.waived is None)
    assert warnings > 0
    others = sum(
        1
        for c in decision.checks
        if c.candidate not in (None, chosen) and (c.status != "PASS" or c.waived is not None)
    )
    assert (
        f"for {chosen} and the decision: 0 failed, {warnings} warnings, 0 waived; "
        f"{others} more on the other candidates"
    ) in text
    for check in standing:
        who = f" {check.candidate}" if check.candidate else ""
        assert f"WARN {check.id}{who}: {check.reason[:40]}" in text
    # "Failed checks: none" never stands beside warnings.
    assert "none" not in text.split("Candidate Eligible", 1)[1].split("Pack digest", 1)[0]
    assert "warnings: C1" in text
    # Signer and how to verify, in one line.
    assert "Signer: none: this build was not asked to sign" in text
    assert (
        "Verify: evidencepack verify PACK --key PUBLIC_KEY.pem; see How to verify this pack" in text
    )
    # No raw exponent anywhere in the report.
    whole = " ".join(page.extract_text() for page in reader.pages)
    assert not re.search(r"\d[eE][+-]\d", whole)


def test_contents_state_the_appendix_pages(reader: pypdf.PdfReader) -> None:
    """Issue 14, point 5: the per-candidate detail is an appendix whose pages page 2 states."""
    contents = " ".join(reader.pages[1].extract_text().split())
    found = re.search(r"Appendix A, pages (\d+)\u2013(\d+)", contents)
    assert found, contents
    first, last = int(found[1]), int(found[2])
    top = {str(i.title): i for i in reader.outline if not isinstance(i, list)}
    assert reader.get_destination_page_number(top["Appendix A: per-candidate detail"]) + 1 == first
    appendix_b = reader.get_destination_page_number(top["Appendix B: inputs"]) + 1
    assert first < last <= appendix_b
    assert "End of Appendix A." in reader.pages[last - 1].extract_text()
