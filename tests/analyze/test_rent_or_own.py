"""Rent against own in plain sight (issue 40, point 1): every stated cost basis is tried in the
robustness search, `check --json` carries each basis's ranking, page 1 names the basis that
flips the call with both figures, and `diff` reports a basis whose first place changed.

Each case is a copy of the sample spec edited in tmp_path; expected figures are the sample's
own cost arithmetic (tests/analyze/test_tco.py checks it by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.analyze.robustness import COST_BASIS
from evidencepack.diff.compare import compare
from evidencepack.diff.models import PackSide
from evidencepack.diff.summary import format_markdown, format_text
from evidencepack.pipeline import CompileOptions, check
from evidencepack.render.plain import rent_or_own

from ..conftest import REPO_ROOT
from .test_fit import _edit

B200_PURCHASE = "      purchase_price_per_server: 420000\n"
"""The runner-up's purchase price in the sample: owning it is the cheapest of all."""


def _side() -> PackSide:
    return PackSide(source="pack", kind="folder", verified=False, verification="not verified")


def _basis_flips(doc: DecisionDocument) -> list[tuple[str, str | None]]:
    assert doc.robustness is not None
    return [(f.change, f.becomes) for f in doc.robustness.flips if f.input == COST_BASIS]


def test_owning_flips_the_sample_and_check_json_says_so(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(samples / "pack.yaml"), "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)
    # every basis's ranking, cheapest first (the eligible candidates that state it)
    assert raw["cost_bases"]["rankings"] == {
        "own": ["b200-trtllm", "mi325x-vllm"],
        "price": ["mi325x-vllm", "b200-trtllm", "h200-vllm"],
    }
    flips = [f for f in raw["robustness"]["flips"] if f["input"] == COST_BASIS]
    assert flips == [
        {
            "input": "the cost basis",
            "change": "owning instead of renting",
            "becomes": "b200-trtllm",
            "relative": None,
        }
    ]
    assert "the cost basis is owning instead of renting" in raw["robustness"]["sentence"]
    # page 1: both candidates on both bases, and the sentence with both figures
    doc = DecisionDocument.model_validate(raw)
    block = rent_or_own(doc)
    assert block is not None
    assert block.candidates == ("mi325x-vllm", "b200-trtllm")
    assert [(r.basis, r.ranked_on, r.per_year) for r in block.rows] == [
        ("price", True, ("USD 228,636", "USD 385,440")),
        ("own", False, ("USD 208,770", "USD 147,235")),
    ]
    assert block.sentence == (
        "Owning instead of renting, b200-trtllm would cost 147,235 USD a year against 208,770: "
        "the choice flips."
    )


def test_owning_that_does_not_flip_says_the_call_stands_and_diff_reports_the_change(
    samples: Path,
) -> None:
    """Owning a B200 server at 900,000 costs more than owning the MI325X pair: the basis is
    tried and does not flip; diffed against the sample, the basis's first place changed."""
    _edit(samples, B200_PURCHASE, "      purchase_price_per_server: 900000\n")
    dear = check(samples / "pack.yaml", CompileOptions())
    assert dear.recommendation == "mi325x-vllm"
    assert dear.cost_bases is not None
    assert dear.cost_bases.rankings["own"] == ("mi325x-vllm", "b200-trtllm")
    assert _basis_flips(dear) == [("none", None)]
    block = rent_or_own(dear)
    assert block is not None
    assert block.sentence == "On every other basis mi325x-vllm states, it stays first."
    _edit(samples, "      purchase_price_per_server: 900000\n", B200_PURCHASE)
    sample = check(samples / "pack.yaml", CompileOptions())
    diff = compare(dear, sample, _side(), _side())
    assert diff.outcome is not None
    assert diff.outcome.basis_flips == (
        "cheapest on own: mi325x-vllm -> b200-trtllm",
        "owning instead of renting now flips the call to b200-trtllm",
    )
    # the recommendation on the spec's basis is unchanged, so the decision still holds
    assert diff.outcome.holds
    assert "  cost basis: cheapest on own: mi325x-vllm -> b200-trtllm" in format_text(diff)
    assert "- cost basis: owning instead of renting now flips the call" in format_markdown(diff)
    # and back: nothing flips any more, the first place moved back
    back = compare(sample, dear, _side(), _side())
    assert back.outcome is not None
    assert back.outcome.basis_flips == ("cheapest on own: b200-trtllm -> mi325x-vllm",)


def test_a_basis_the_recommendation_does_not_state_cannot_flip_it(samples: Path) -> None:
    """Without the MI325X purchase quote only B200 can be owned: owning is ranked (one
    candidate) but says nothing against a recommendation that cannot be owned."""
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    start = text.index("    # Owning instead of renting (SAMPLE figures, made up)")
    end = text.index("    power:\n      watts_per_server: 12000\n")
    spec.write_text(text[:start] + text[end:], encoding="utf-8")
    doc = check(spec, CompileOptions())
    assert doc.recommendation == "mi325x-vllm"
    assert doc.cost_bases is not None
    assert doc.cost_bases.rankings["own"] == ("b200-trtllm",)
    assert _basis_flips(doc) == [("none", None)]
    block = rent_or_own(doc)
    assert block is not None
    assert [r.per_year for r in block.rows][1] == ("not stated", "USD 147,235")


def test_a_spec_ranked_on_owning_tries_the_quoted_price(samples: Path) -> None:
    """Ranked on owning (every candidate states it), renting at the quoted price is the other
    basis tried: it puts mi325x-vllm first again."""
    _edit(samples, "headroom: 0.25\n", "headroom: 0.25\ncost_basis: own\n")
    _edit(
        samples,
        '    stack: {runtime: vllm, version: "0.9.2", precision: fp8}\n'
        "    price:\n      per_accelerator_hour: 3.50\n",
        '    stack: {runtime: vllm, version: "0.9.2", precision: fp8}\n'
        "    own: {purchase_price_per_server: 300000, life_years: 4}\n"
        "    price:\n      per_accelerator_hour: 3.50\n",
    )
    doc = check(samples / "pack.yaml", CompileOptions())
    assert doc.recommendation == "b200-trtllm"
    assert _basis_flips(doc) == [("renting instead of owning", "mi325x-vllm")]
    block = rent_or_own(doc)
    assert block is not None
    assert [(r.basis, r.ranked_on) for r in block.rows] == [("price", False), ("own", True)]
    assert block.sentence == (
        "Renting instead of owning, mi325x-vllm would cost 228,636 USD a year against "
        "385,440: the choice flips."
    )


def test_an_api_candidates_quoted_price_is_per_token_not_a_rent() -> None:
    """The API sample: the hosted API (recommended) has one basis, its quoted per-token price;
    the runner-up can also be owned. The row is not called renting, and the sentence says the
    API states no other basis (owning the runner-up does not beat it)."""
    doc = check(REPO_ROOT / "samples" / "pack-api.yaml", CompileOptions())
    block = rent_or_own(doc)
    assert block is not None
    assert block.candidates == ("hosted-api", "mi325x-vllm")
    price, own = block.rows
    assert price.words == "Quoted price (per token for the API, rented for hardware)"
    assert own.per_year[0] == "not stated"
    assert block.sentence == "hosted-api states no other basis, so no other basis can flip it."
