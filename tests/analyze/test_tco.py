"""Rent or own, energy included: every basis the spec states is computed (and checked here by
hand), the decision ranks on the spec's cost_basis, and bad cost figures get located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.analyze.tco import annual_capital
from evidencepack.errors import SpecError
from evidencepack.pipeline import CompileOptions, check
from evidencepack.spec.cost import Own
from evidencepack.spec.load import load_spec

from .test_fit import _edit


def _annuity(price: float, residual: float, life: float, rate: float) -> float:
    growth = (1 + rate) ** life
    return (price - residual / growth) * rate / (1 - 1 / growth)


def test_owning_the_sample_servers_costs_what_the_arithmetic_says(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    assert doc.cost_bases is not None
    own = next(b for b in doc.cost_bases.costs if b.candidate == "mi325x-vllm" and b.basis == "own")
    # 2 servers of 8 MI325X: capital as an annuity at 6% over 5 years, colocation 1,800 a month
    # and operations 12,000 a year per server, 12 kW per server at 0.14/kWh with PUE 1.3
    capital = 2 * _annuity(240000, 30000, 5, 0.06) / 12
    energy = 12000 / 8 * 16 * 730 / 1000 * 1.3 * 0.14
    expected = capital + 2 * 1800 + 2 * 12000 / 12 + energy
    assert own.per_month == pytest.approx(expected)
    assert own.breakdown["energy"] == pytest.approx(energy)
    assert own.whole_term == pytest.approx(expected * 60)
    assert own.capital == 2 * 240000
    (mi325x,) = [e for e in doc.cost_bases.energy if e.candidate == "mi325x-vllm"]
    capacity = next(c for c in doc.capacity if c.candidate == "mi325x-vllm")
    assert capacity.output_tokens_per_s_at_op is not None
    assert mi325x.provenance == "rated"
    assert mi325x.kwh_per_million_output_tokens == pytest.approx(
        1500 * 1 / capacity.output_tokens_per_s_at_op * 1e6 / 3.6e6
    )
    # the quoted price stays the basis the sample ranks on; owning ranks otherwise
    assert doc.cost_bases.rankings["price"][0] == "mi325x-vllm"
    assert doc.cost_bases.rankings["own"] == ("b200-trtllm", "mi325x-vllm")
    assert doc.recommendation == "mi325x-vllm"


def test_the_decision_ranks_on_the_stated_basis(samples: Path) -> None:
    _edit(samples, "headroom: 0.25\n", "headroom: 0.25\ncost_basis: own\n")
    with pytest.raises(SpecError) as caught:
        load_spec(samples / "pack.yaml")
    assert "candidate h200-vllm states no own cost" in "\n".join(caught.value.problems)
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
    b200 = next(v for v in doc.candidates if v.id == "b200-trtllm")
    own = next(b for b in doc.cost_bases.costs if b.candidate == "b200-trtllm" and b.basis == "own")  # type: ignore[union-attr]
    assert b200.cost_per_month == own.per_month


def test_check_prints_each_basis_and_the_energy(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(samples / "pack.yaml")]) == 0
    out = capsys.readouterr().out
    assert "rent at the quoted price (billed per accelerator) (ranked on): 228,636 USD/year" in out
    assert "own over 5 years: " in out
    assert (
        "kWh per 1M output tokens (method rated, rated: vendor data sheet, DGX B200 maximum "
        "system power" in out
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "      life_years: 5\n      residual_value_per_server: 30000\n",
            "      life_years: -5\n      residual_value_per_server: 30000\n",
            "life_years: Input should be greater than or equal to 0.25",
        ),
        (  # a life of 1e-300 years divided by zero in the annuity (issue 42)
            "      life_years: 5\n      residual_value_per_server: 30000\n",
            "      life_years: 1.0e-300\n      residual_value_per_server: 30000\n",
            "life_years: Input should be greater than or equal to 0.25",
        ),
        (
            "      residual_value_per_server: 30000\n",
            "      residual_value_per_server: 300000\n",
            "residual_value_per_server 300000 is not below purchase_price_per_server 240000",
        ),
        ("  pue: 1.3\n", "  pue: 0.9\n", "pue: Input should be greater than or equal to 1"),
    ],
)
def test_bad_cost_figures_get_located_errors(
    samples: Path, old: str, new: str, message: str
) -> None:
    _edit(samples, old, new)
    with pytest.raises(SpecError) as caught:
        load_spec(samples / "pack.yaml")
    problems = "\n".join(caught.value.problems)
    assert message in problems
    assert "pack.yaml:" in problems


def test_a_cost_in_another_currency_and_a_stale_quote_are_named(samples: Path) -> None:
    _edit(
        samples,
        "      source: SAMPLE purchase quote, 8x MI325X server (made up)\n",
        "      source: SAMPLE purchase quote, 8x MI325X server (made up)\n",
    )
    text = (samples / "pack.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "      currency: USD\n      source: SAMPLE purchase quote, 8x MI325X",
        "      currency: EUR\n      source: SAMPLE purchase quote, 8x MI325X",
    )
    (samples / "pack.yaml").write_text(text, encoding="utf-8")
    _edit(samples, "      valid_until: 2027-02-18\n", "      valid_until: 2026-11-01\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    price = next(c for c in doc.checks if c.id == "PRICE" and c.candidate == "mi325x-vllm")
    assert price.status == "WARN"  # the decision ranks on the quoted price, not on owning
    assert "own: quoted in EUR but the decision compares costs in USD" in price.reason
    assert "the own quote expired on 2026-11-01" in price.reason
    own = next(b for b in doc.cost_bases.costs if b.candidate == "mi325x-vllm" and b.basis == "own")  # type: ignore[union-attr]
    assert own.per_month is None
    assert own.reason is not None
    assert "EUR" in own.reason


def test_a_negligible_financing_rate_is_the_straight_line() -> None:
    """(1 + 1e-300)^5 rounds to 1: the annuity tends to the straight line, never divides by 0."""
    own = Own(
        purchase_price_per_server=240000.0,
        life_years=5.0,
        residual_value_per_server=30000.0,
        financing_rate=1e-300,
    )
    assert annual_capital(own) == pytest.approx((240000 - 30000) / 5)
    assert annual_capital(own.model_copy(update={"financing_rate": 0.06})) == pytest.approx(
        (240000 - 30000 / 1.06**5) * 0.06 / (1 - 1.06**-5)
    )
