"""The report of the real sample pack: under 20 pages, every required part bookmarked, page 1 is
the decision, the manifest and decision travel inside the PDF, every input named in the appendix.

Built once per session from ``samples/pack.yaml`` through the whole pipeline (about 10 s).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path

import pypdf
import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.intake.records import InputFile
from evidencepack.pack.layout import MANIFEST_NAME
from evidencepack.pipeline import BuildResult
from evidencepack.render.evidence import group_inputs, listing_sha256

from ..conftest import REPO_ROOT
from .scan import scan
from .test_html import SECTIONS as REQUIRED_SECTIONS

# slow: renders the sample's 20-page PDF, and a variant with a long waiver
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def sample_pack(sample_build: BuildResult) -> BuildResult:
    """The session's unsigned sample pack (tests/packs.py; read only)."""
    return sample_build


@pytest.fixture(scope="session")
def reader(sample_pack: BuildResult) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO((sample_pack.out_dir / "report.pdf").read_bytes()))


def test_the_sample_report_stays_short_and_the_readme_says_how_long(
    reader: pypdf.PdfReader,
) -> None:
    pages = len(reader.pages)
    assert pages <= 20, f"the sample report has {pages} pages (the goal: at most 20)"
    readme = (REPO_ROOT / "docs" / "reference" / "report.md").read_text(encoding="utf-8")
    assert f"The sample report is {pages} pages" in readme
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
    """Issue 24, point 5, read from the PDF's own text: page 1 speaks to a buyer. What to rent or
    buy in whole servers and slots, the cost per year on every basis the spec states, why this
    candidate (in figures), how close the call is, the risks in sentences, who approved, the
    signer; no check code and no result key."""
    decision = sample_pack.decision
    text = " ".join(reader.pages[0].extract_text().split())
    chosen = decision.chosen
    assert chosen is not None
    assert f"RECOMMENDATION {decision.recommendation} CHOSEN IN THE SPEC {chosen} " in text
    capacity = next(c for c in decision.capacity if c.candidate == chosen)
    cost = next(c for c in decision.cost if c.candidate == chosen)
    price = decision.spec.candidate(chosen).price
    assert decision.robustness is not None
    runner_up = decision.robustness.runner_up
    assert capacity.accelerators is not None
    assert capacity.servers is not None
    assert f"What to rent or buy: {chosen} (chosen in the spec)" in text
    slots = capacity.servers * capacity.accelerators_per_server
    idle = slots - capacity.accelerators
    # billed per accelerator: the idle slots are not billed, and the page says so
    assert price.billed_per == cost.billed_per == "accelerator"
    assert (
        f"{capacity.accelerators} accelerators on {capacity.servers} servers "
        f"({slots} slots; {idle} slots idle, not billed)"
    ) in text
    assert decision.cost_bases is not None
    # rent against own: the recommendation and the runner-up on every stated basis, and the flip
    assert f"{decision.recommendation} (recommended) {runner_up} (runner-up)" in text
    for basis in decision.cost_bases.costs:
        if basis.candidate in (chosen, runner_up) and basis.per_year is not None:
            assert f"USD {basis.per_year:,.0f}" in text, basis.label
    assert (
        "Owning instead of renting, b200-trtllm would cost 147,235 USD a year against 208,770: "
        "the choice flips."
    ) in text
    assert f"source: {price.source}; quoted {price.as_of}" in text
    # why, in figures, and how close the call is
    runner = next(v for v in decision.candidates if v.id == decision.robustness.runner_up)  # type: ignore[union-attr]
    assert f"the runner-up {runner.id} would cost USD {runner.cost_per_month:,.0f}" in text
    assert "How close the call is: It holds unless" in text
    # the risks in sentences, the people who approved, the signer
    assert "Its MLPerf reference was measured under a looser latency limit than ours" in text
    # the sweep's top point over capacity is a note (in the checklist), not a page-1 risk
    assert "as the top of a load sweep should" not in text
    approval = decision.spec.approvals[0]
    assert f"Approved (as stated in the spec): {approval.name}, {approval.role}" in text
    assert "Signer: none: this build was not asked to sign" in text
    # no check code and no slash-separated result key on page 1
    for code in ("C1", "C3", "C5", "PROV-", "SLO-MET", "DECISION:", "X*"):
        assert code not in text, code
    assert not re.search(r"\w+/closed/\w+", text)
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


def test_page_one_counts_agree_with_the_candidates_table(reader: pypdf.PdfReader) -> None:
    """Page 1's "What to know" and the candidates table count the subject's findings alike;
    a finding about the decision as a whole is counted apart, not as the candidate's."""
    first = " ".join(reader.pages[0].extract_text().split())
    head = re.search(
        r"What to know about (\S+) \((\d+) failed, (\d+) warnings?, (\d+) waived"
        r"(?:; (\d+) about the decision as a whole)?",
        first,
    )
    assert head, first
    subject, _, warnings, _, general = head.groups()
    row = re.search(rf"{re.escape(subject)} .*? (\d+) warnings?\b", first.split("Candidate", 1)[1])
    assert row, first
    assert row.group(1) == warnings
    assert general == "1"  # the sample's DECISION warning (billing bases differ)


def test_page_one_stays_one_page_with_a_long_waiver(samples: Path, tmp_path: Path) -> None:
    """A waiver with a long reason (on the recommended candidate) leaves page 1 one page: its
    findings are one line each, and the footer of page 1 still carries the pack digest."""
    from evidencepack.pipeline import BuildOptions, CompileOptions, build

    spec = samples / "pack.yaml"
    reason = "accepted after review; " * 20
    spec.write_text(
        spec.read_text(encoding="utf-8") + "\nwaivers:\n  - check: C1\n    candidate: mi325x-vllm\n"
        f"    reason: {reason.strip()}\n    approver: B. Reviewer (sample), Head of Procurement\n"
        "    expires: 2027-01-31\n",
        encoding="utf-8",
    )
    built = build(spec, tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    reader = pypdf.PdfReader(io.BytesIO((built.out_dir / "report.pdf").read_bytes()))
    first = " ".join(reader.pages[0].extract_text().split())
    second = " ".join(reader.pages[1].extract_text().split())
    assert "Accepted by B. Reviewer (sample)" in first
    assert "Candidate Eligible" in first  # the candidates table is on page 1
    assert "Contents" in second.split("page 2 of", 1)[0]
    assert "Decision owner" not in second
    manifest_sha = hashlib.sha256((built.out_dir / "manifest.json").read_bytes()).hexdigest()
    assert f"packsha256:{manifest_sha}" in first.replace(" ", "")


def test_notes_are_counted_apart_from_warnings(reader: pypdf.PdfReader) -> None:
    """Issue 45, point 4: the checklist counts the findings expected by design as notes, each
    shown under its check in Appendix A, never as warnings."""
    whole = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    assert re.search(r"6 notes\s*, not warnings", whole)
    assert "(PROV-MLPERF 3, PROV-DATA 3)" in whole
    assert len(re.findall(r"\bnote no-round/closed/SampleVendor/", whole)) == 3
