"""The report of a spec with many candidates: the body stays bounded, the detail goes to Appendix A.

Specs of 10 and 20 candidates made by ``benchmarks/many_candidates.py`` (copies of the sample's
candidates, each citing its own copy of the sample's evidence) are compiled through the whole
analysis and rendered to HTML: the body (everything before Appendix A) shows the same number of
candidates whatever their count, page 1 the best three, and Appendix A every candidate ranked
and in detail.
"""

from __future__ import annotations

import importlib.util
import re
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

from evidencepack.pipeline import CompileOptions, compile_pack
from evidencepack.render.body import BODY_LIMIT, PAGE_ONE_LIMIT
from evidencepack.render.html import render_html
from evidencepack.store import Store

from ..conftest import REPO_ROOT
from .scan import bad_attributes, scan

# slow: renders the reports of specs of 10 and 20 candidates
pytestmark = pytest.mark.slow

DIGEST = "0" * 64


def _generator() -> ModuleType:
    path = REPO_ROOT / "benchmarks" / "many_candidates.py"
    spec = importlib.util.spec_from_file_location("many_candidates", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[str, list[str], str]]:
    """Per candidate count: the HTML, the ranked eligible ids and page 1's candidate."""
    make_spec = _generator().make_spec
    made = {}
    for n in (10, 20):
        spec = make_spec(n, tmp_path_factory.mktemp(f"spec{n}"))
        with Store() as store, tempfile.TemporaryDirectory() as tmp:
            compiled = compile_pack(spec, CompileOptions(), store, Path(tmp))
        decision = compiled.decision
        html = render_html(decision, evidence_digest=DIGEST, signer=None, records=compiled.records)
        assert decision.cost_bases is not None
        ranking = list(decision.cost_bases.rankings[decision.cost_bases.basis])
        again = render_html(decision, evidence_digest=DIGEST, signer=None, records=compiled.records)
        assert again == html  # deterministic: the same decision renders the same bytes
        made[n] = (html, ranking, decision.chosen or "")
    return made


def _section(html: str, section: str) -> str:
    start = html.index(f'<section id="{section}"')
    return html[start : html.index("\n</section>", start)]


def _body(html: str) -> str:
    return html[: html.index('<section id="sec-detail"')]


def _appendix_a(html: str) -> str:
    return html[html.index('<section id="sec-detail"') : html.index('<section id="sec-inputs"')]


def _ranked(html: str) -> list[str]:
    """The candidate ids of Appendix A's ranked table, in its order."""
    detail = _appendix_a(html)
    table = detail[detail.index('id="sec-ranked"') :]
    return re.findall(r'<a href="#cap-\d+">([\w.-]+)</a>', table[: table.index("</table>")])


def test_the_body_does_not_grow_with_the_candidates(reports: dict) -> None:
    small, large = _body(reports[10][0]), _body(reports[20][0])
    # the same tables with rows of as many candidates: only ids and figures differ
    assert abs(len(large) - len(small)) < 0.05 * len(small), (len(small), len(large))
    ids = _ranked(reports[20][0])
    assert len(ids) == 20
    for section in ("sec-checks", "sec-capacity", "sec-cost", "sec-quality", "sec-references"):
        # each row's first cell names its candidate
        text = _section(large, section)
        named = re.findall(r"<tr>\s*<td>(?:<svg[^\n]*?</svg>)?(?:<a [^>]*>)?([\w.-]+)", text)
        assert 0 < len(set(named) & set(ids)) <= BODY_LIMIT, section
    assert "the other 12 are ranked in" in large


def test_page_one_shows_the_best_ranked_and_the_chosen(reports: dict) -> None:
    html, ranking, chosen = reports[20]
    page_one = _section(html, "sec-decision")
    table = page_one[page_one.index('<table class="verdicts">') :]
    table = table[: table.index("</table>")]
    shown = re.findall(r"<strong>([\w.-]+)</strong>", table)
    assert len(shown) == PAGE_ONE_LIMIT
    assert shown[: PAGE_ONE_LIMIT - 1] == ranking[: PAGE_ONE_LIMIT - 1]
    assert chosen in shown
    assert f"The {PAGE_ONE_LIMIT} best-ranked of the 20 candidates" in page_one


def test_appendix_a_ranks_and_details_every_candidate(reports: dict) -> None:
    html, ranking, _ = reports[20]
    detail = _appendix_a(html)
    listed = _ranked(html)
    assert len(listed) == 20
    assert len(set(listed)) == 20
    assert listed[: len(ranking)] == ranking  # the eligible ones in the decision's ranking
    assert len(re.findall(r'<h3 id="cap-\d+">', detail)) == 20


def test_a_spec_within_the_limit_shows_every_candidate_in_its_order(reports: dict) -> None:
    html = reports[10][0]
    assert 'id="sec-ranked"' in html  # 10 > BODY_LIMIT: bounded
    # the sample (3 candidates) is not bounded: its golden file (test_html) has no ranked table
    golden = (Path(__file__).parent / "golden" / "report.html").read_text(encoding="utf-8")
    assert 'id="sec-ranked"' not in golden
    assert "best-ranked of the" not in golden


def test_the_bounded_report_stays_well_formed_and_its_links_resolve(reports: dict) -> None:
    html = reports[20][0]
    parsed = scan(html)
    assert bad_attributes(parsed) == []
    ids = {value for _tag, attrs in parsed.tags for name, value in attrs if name == "id"}
    targets = {
        value[1:] for _t, attrs in parsed.tags for n, value in attrs if n == "href" and value
    }
    assert "sec-ranked" in targets
    assert targets <= ids, sorted(targets - ids)
