"""The report HTML: golden file, self-contained, page 1 is the decision, figures cite claims."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import jinja2
import pytest

from evidencepack.errors import RenderError
from evidencepack.render import html as render_html_module
from evidencepack.render.evidence import listing_sha256
from evidencepack.render.html import build_view, render_html
from evidencepack.render.signing_plan import SigningPlan

from . import fixture
from .scan import assert_names_keyless_signer, bad_attributes, scan

GOLDEN = Path(__file__).parent / "golden" / "report.html"


@pytest.fixture(scope="module")
def report() -> str:
    return render_html(
        fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=fixture.SIGNER
    )


def test_matches_the_golden_file(report: str, update_goldens: bool) -> None:
    if update_goldens:
        GOLDEN.write_text(report, encoding="utf-8")
    assert GOLDEN.is_file(), "no golden file yet: run pytest tests/render --update-goldens"
    assert report == GOLDEN.read_text(encoding="utf-8"), (
        "the rendered report differs from tests/render/golden/report.html; if the change is "
        "intended, rewrite it with --update-goldens and review the diff"
    )


def test_is_self_contained_with_a_restrictive_csp(report: str) -> None:
    parsed = scan(report)
    names = parsed.names()
    assert "script" not in names
    for tag in ("img", "link", "iframe", "object", "embed", "base", "form", "input"):
        assert tag not in names, tag
    assert names.count("style") == 1
    assert "url(" not in "".join(parsed.style_text)
    assert "@import" not in "".join(parsed.style_text)
    csp = [
        dict(attrs)
        for tag, attrs in parsed.tags
        if tag == "meta" and dict(attrs).get("http-equiv") == "Content-Security-Policy"
    ]
    assert csp == [
        {
            "http-equiv": "Content-Security-Policy",
            "content": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
            "form-action 'none'",
        }
    ]
    assert bad_attributes(parsed) == []
    # Every internal link lands on an element of the report.
    ids = {dict(a)["id"] for _, a in parsed.tags if "id" in dict(a)}
    hrefs = {dict(a)["href"] for _, a in parsed.tags if "href" in dict(a)}
    assert hrefs
    assert {(h or "").removeprefix("#") for h in hrefs} <= ids


def test_page_one_is_the_decision(report: str) -> None:
    doc = fixture.decision()
    first = report[report.index('<section id="sec-decision"') : report.index('id="sec-contents"')]
    text = scan(first).all_text()
    assert "Which accelerator configuration should serve" in text
    assert "Recommendation mi325x-vllm" in text
    assert "agrees with the recommendation" in text
    # Page 1 names the pack by a short digest (the whole one is in the footer and in "How to
    # verify this pack"), so a long page 1 never pushes it onto page 2.
    assert f"Pack {fixture.EVIDENCE_DIGEST[:16]}\u2026 (sha256 of the evidence manifest)" in text
    assert f'data-pack-digest="{fixture.EVIDENCE_DIGEST}"' in report
    assert fixture.SIGNER.line in text
    for verdict in doc.candidates:
        assert verdict.id in text
    # What to rent or buy in whole servers and slots, what it costs, where the price comes from.
    assert (
        "What to rent or buy: mi325x-vllm (chosen in the spec) Size 5 accelerators on 1 server "
        "(8 slots; 3 slots idle, not billed) of AMD Instinct MI325X 256GB HBM3E"
    ) in text
    assert "Cost per year USD 127,020.00 a year" in text
    assert "USD 2.90 per accelerator-hour; source: quote Q-17 (fixture); quoted 2026-11-20" in text
    # What to know, counted, in sentences: no check code on page 1.
    assert "What to know about mi325x-vllm (0 failed, 0 warnings, 1 waived; 6 more" in text
    assert "Accepted by A. Example (sample) until 2027-03-31" in text
    assert "Approved (as stated in the spec): A. Example (sample), Head of ML Platform" in text
    assert f"Signer: {fixture.SIGNER.line}. Verify: evidencepack verify PACK --key" in text
    # The verdict table: eligibility, size, $ per 1M tokens, month, year, quality, findings
    # counted in words.
    assert (
        "mi325x-vllm AMD Instinct MI325X 256GB HBM3E vllm 0.9.2 fp8 yes 5 on 1 server 3 of 8 "
        "slots idle, not billed USD 1.30 USD 10,585.00 USD 127,020.00"
    ) in text
    assert (
        "b200-trtllm NVIDIA B200-SXM-180GB tensorrt-llm 0.21.0 fp8 no 2 on 1 server 6 of 8 "
        "slots idle, paid USD 1.01 USD 32,120.00 USD 385,440.00"
    ) in text
    assert "below the bar 80.0% 2 failed 3 warnings" in text
    assert "87.5% [83.9%, 90.4%] lower bound 83.9% meets the bar 80.0% 1 waived" in text
    for code in ("C5", "SLO-QUALITY", "PROV-", "C1 "):
        assert code not in text, code
    assert "none" not in text.split("Candidate Eligible", 1)[1]


def test_unsigned_build_says_so() -> None:
    html = render_html(fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)
    text = scan(html).all_text()
    assert "Signer: none: this build was not asked to sign" in text
    assert "Signed" not in text
    assert "evidencepack verify pack/ --key PUBLIC_KEY.pem" in text


def test_keyless_build_names_the_certificates_identity_and_issuer() -> None:
    """Page 1, the evidence-capture row, the signature section and the verify box name the
    identity and issuer; the verify commands carry them, quoted for a shell."""
    identity = "https://github.com/acme/decisions/.github/workflows/pack.yml@refs/tags/v2"
    issuer = "https://token.actions.githubusercontent.com"
    plan = SigningPlan("keyless", identity=identity, issuer=issuer)
    html = render_html(fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=plan)
    assert_names_keyless_signer(html, identity, issuer)
    options = f"--cert-identity {identity} --cert-oidc-issuer {issuer}"
    verify = scan(html[html.index('<section id="sec-verify"') :]).all_text()
    assert f"evidencepack verify report.pdf --bundle pack.sigstore.json {options}" in verify
    assert f"sigstore verify identity --bundle pack.sigstore.json {options} report.pdf" in verify
    assert "IDENTITY" not in verify
    assert "--key" not in verify


def test_a_hostile_signer_identity_is_text_not_markup() -> None:
    """The identity and issuer come from an OIDC token: markup in them is escaped, shell
    metacharacters quoted, and control or bidi characters never reach a report."""
    identity = '"<script>alert(1)</script>$(id)"@example.com'
    issuer = "https://idp.example/'><img src=x>"
    plan = SigningPlan("keyless", identity=identity, issuer=issuer)
    html = render_html(fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=plan)
    assert "<script>" not in html
    assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    verify = scan(html[html.index('<section id="sec-verify"') :]).all_text()
    quoted = f"--cert-identity {shlex.quote(identity)} --cert-oidc-issuer {shlex.quote(issuer)}"
    assert shlex.split(quoted) == ["--cert-identity", identity, "--cert-oidc-issuer", issuer]
    assert f"evidencepack verify pack/ {quoted}" in verify
    for bad in ("a\u202eb@example.com", "a@example.com\nOK: pack"):
        with pytest.raises(ValueError, match="unprintable"):
            SigningPlan("keyless", identity=bad, issuer=issuer)
    with pytest.raises(ValueError, match="names the identity and the issuer"):
        SigningPlan("keyless")


def test_evidence_capture_names_the_signer_in_words(report: str) -> None:
    """The layers table's evidence-capture row says who signs, as page 1 does, and no internal
    object shows through as its Python repr."""
    capture = scan(report.split("Evidence capture", 1)[1].split("</tr>", 1)[0]).all_text()
    assert f"signed: {fixture.SIGNER.line}" in capture
    assert "SigningPlan(" not in report
    unsigned = render_html(fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)
    assert (
        "unsigned" in scan(unsigned.split("Evidence capture", 1)[1].split("</tr>", 1)[0]).all_text()
    )


def test_verify_box_names_the_key_and_the_three_targets(report: str) -> None:
    section = report[report.index('<section id="sec-verify"') :]
    text = scan(section).all_text()
    for target in ("pack/", "pack.tar.gz", "report.pdf --bundle pack.sigstore.json"):
        assert f"evidencepack verify {target} --key PUBLIC_KEY.pem" in text
    assert f"sha256:{fixture.SIGNER.key_fingerprint}" in text
    assert fixture.EVIDENCE_DIGEST in text
    assert f"Spec sha256 {fixture.decision().spec_sha256}" in text


def test_approvals_are_labelled_as_stated_and_apart_from_the_signature(report: str) -> None:
    section = report[report.index('<section id="sec-waivers">') :]
    text = scan(section[: section.index("</section>")]).all_text()
    assert "Approvals as stated in the spec" in text
    assert "they are not signatures" in text
    assert f"Signature of the pack Signed by {fixture.SIGNER.line}" in text


def test_cost_spread_says_single_run_where_there_are_no_repeats() -> None:
    doc = fixture.decision()
    alone = doc.cost[0].model_copy(update={"spread_per_million_output_tokens": None})
    doc = doc.model_copy(update={"cost": (alone, *doc.cost[1:])})
    html = render_html(doc, evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)
    section = html[html.index('<section id="sec-cost">') :]
    text = scan(section[: section.index("</section>")]).all_text()
    assert "h200-vllm USD 3.50 60% USD 1.57 single run" in text
    assert "whiskers span the repeated runs" in text
    none_repeat = doc.model_copy(
        update={
            "cost": tuple(
                c.model_copy(update={"spread_per_million_output_tokens": None}) for c in doc.cost
            )
        }
    )
    html = render_html(none_repeat, evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)
    assert "whiskers" not in html
    assert "each figure rests on a single run" in html


SECTIONS = (
    "Decision",
    "The five layers of evidence",
    "Checklist",
    "Comparability matrix",
    "Capacity at the SLO",
    "Cost",
    "Quality",
    "MLPerf references beside the candidate stacks",
    "Waivers and approvals",
    "Appendix A: per-candidate detail",
    "Appendix B: inputs",
    "How to verify this pack",
)
"""The parts issue 6 asks for, in report order."""


def test_sections_arithmetic_and_appendix(report: str) -> None:
    text = scan(report).all_text()
    doc = fixture.decision()
    assert "<h1>Decision</h1>" in report
    for title in SECTIONS[1:]:
        assert f"<h2>{title}</h2>" in report
    assert "replicas = ceil(17.50 / 3.98) = 5" in text
    assert "per month = 5 accelerators x USD 2.90/h x 730 h = USD 10,585.00" in text
    for check in doc.checks:
        assert check.reason in text
    assert "expired on 2026-10-31, before the decision date" in text
    assert "A. Example (sample) Head of ML Platform 2026-11-30" in text


def test_appendix_names_every_input_by_its_reference(report: str) -> None:
    doc = fixture.decision()
    appendix = scan(report[report.index('<section id="sec-inputs">') :]).all_text()
    groups = render_html_module.build_view(doc).input_groups
    assert sum(len(g.files) for g in groups) == len(doc.inputs) == 19
    for g in groups:
        assert f"A{g.number} {g.reference}" in appendix
        if g.single:
            (only,) = g.files
            assert f"1 file: {only.pack_path}" in appendix
            assert only.sha256 in appendix
        else:
            # The listing digest stands for the files; theirs are in the embedded manifest.
            names = " \u00b7 ".join(g.names)
            # The files sit in inputs/<reference>/, which goes without saying.
            assert g.shown_folder == ""
            assert f"{len(g.files)} files: {names}" in appendix
            assert f"listing sha256 ({len(g.files)} files) {listing_sha256(g.files)}" in appendix
            for f in g.files:
                assert f.sha256 not in appendix
    assert "in the pack, lists every one of the 19 files with its own sha256" in appendix
    # A file's warning is shown under its reference, named.
    warning = "trtllm-serve version not recorded by aiperf"
    assert f"warning inputs/runs/b200-trtllm/profile_export_aiperf.json : {warning}" in appendix


def test_comparability_merges_alike_rows_and_keeps_every_subject(report: str) -> None:
    section = report[report.index('<section id="sec-detail"') :]
    text = scan(section[: section.index('<section id="sec-inputs">')]).all_text()
    runs = " \u00b7 ".join(f"{r:.1f}rps" for r in (2.0, 4.0, 6.0, 8.0, 10.0))
    assert f"h200-vllm/sweep/ {runs} run \u00d75 yes none from the spec: hardware" in text
    # Rows that differ stay apart, each with its findings.
    assert "h200-vllm/contracts scores yes none" in text
    assert "not stated: max_concurrency, settings.max_model_len" in text
    assert "not stated: max_concurrency " in text
    view = render_html_module.build_view(fixture.decision())
    assert len(view.comparability) == len(fixture.decision().comparability) - 4


def test_checks_show_each_evidence_row_once_with_a_short_digest() -> None:
    doc = fixture.decision()
    view = render_html_module.build_view(doc)
    checks = [c for g in view.check_groups for c in g.checks]
    assert [c.check for c in checks] == sorted(doc.checks, key=doc.checks.index)
    for c in checks:
        rows = [e.row for e in c.check.evidence]
        assert [i.row for i in c.evidence.items] == list(dict.fromkeys(rows))


def test_every_figure_names_its_claim_and_evidence_digest(report: str) -> None:
    figures = re.findall(r"</figure>\s*(<p class=\"claimref\">.*?</p>)", report, re.S)
    capacity_refs = [scan(f).all_text() for f in figures]
    assert len(capacity_refs) == 3
    for candidate, ref in zip(
        ("h200-vllm", "mi325x-vllm", "b200-trtllm"), capacity_refs, strict=True
    ):
        assert f"claim capacity.{candidate} (measured)" in ref
        assert "sha256:" in ref
    refs = scan(report).all_text()
    for claim in fixture.decision().claims:
        assert f"claim {claim.id} ({claim.kind})" in refs, claim.id


def test_a_figure_without_a_claim_says_so() -> None:
    doc = fixture.decision().model_copy(update={"claims": ()})
    html = render_html(doc, evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)
    assert html.count("no claim in the analysis refers to this figure") == 3 + 3 + 3 + 4


def test_claims_link_to_figures_by_topic_candidate_and_row() -> None:
    view = render_html_module.build_view(fixture.decision())
    assert [c.claim.id for c in view.claims_for("cost", "h200-vllm")] == ["cost.h200-vllm"]
    key = fixture.REFERENCES[3]["key"]
    assert [c.claim.id for c in view.claims_for("mlperf", "b200-trtllm", key)] == [
        "mlperf.b200-trtllm.4",
        "mlperf.b200-trtllm.accuracy",
    ]
    assert view.claims_for("mlperf", "b200-trtllm", "no-such-row") == ()
    assert view.claims_for("quality", None) == ()


def test_bad_evidence_digest_is_refused() -> None:
    with pytest.raises(RenderError, match="64 lowercase hex"):
        render_html(fixture.decision(), evidence_digest="ABC", signer=None)


def test_template_errors_become_render_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"report.html.j2": "{{ d.no_such_field }}"}),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    monkeypatch.setattr(render_html_module, "environment", lambda: env)
    with pytest.raises(RenderError, match="no_such_field"):
        render_html(fixture.decision(), evidence_digest=fixture.EVIDENCE_DIGEST, signer=None)


def test_the_environment_escapes_and_is_strict() -> None:
    env = render_html_module.environment()
    assert env.autoescape is True
    assert env.undefined is jinja2.StrictUndefined
    assert env.from_string("{{ x }}").render(x="<b>&") == "&lt;b&gt;&amp;"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ y }}").render()


def test_the_matrix_compares_the_candidates_stack_with_the_envelope() -> None:
    """A candidate on another runtime than the envelope's says so in the matrix, beside its
    evidence (which is held to the candidate's own stack)."""
    import json

    from evidencepack.analyze.models import DecisionDocument

    from ..conftest import REPO_ROOT

    data = json.loads((REPO_ROOT / "tests" / "golden" / "sample-decision.json").read_text())
    decision = DecisionDocument.model_validate(data)
    rows = {r.candidate.verdict.id: r for r in build_view(decision).comparability_summary}
    assert rows["b200-trtllm"].stack == ("runtime (tensorrt-llm, envelope vllm)",)
    assert rows["mi325x-vllm"].stack == ()
    html = render_html(decision, evidence_digest="0" * 64, signer=None)
    matrix = html[html.index('<section id="sec-comparability">') :].split("</table>", 1)[0]
    assert "its stack: runtime (tensorrt-llm, envelope vllm)" in matrix
