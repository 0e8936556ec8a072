"""Total cost of ownership: every cost basis a candidate states, at the capacity it needs.

rent (per accelerator-hour)  = accelerators billed x rate x 730 h per month
rent (per server-hour)       = servers x rate x 730 h per month
own                          = servers x annual capital / 12 + colocation + licences
                               + operations + energy, per month, where the annual capital is
                               (price - residual) / life, or with a financing rate r the annuity
                               (price - residual / (1 + r)^life) x r / (1 - (1 + r)^-life)
energy                       = watts per accelerator x accelerators owned x 730 h / 1000 kWh
                               x PUE x price per kWh, at full draw
per 1M output tokens         = per month / (output tok/s per replica x replicas x 3600 x 730
                               x utilisation) x 1e6

Figures quoted in another currency than the decision's are converted at the spec's dated rate;
without one the basis has no figure and says why. Energy comes from the evidence where it can:
an MLPerf Power measurement of a cited result (inherited: another system, method ``wall``: the
whole system at the wall, at that result's load), else a rated figure (method ``rated``: the
result's design power, or the candidate's ``power.watts_per_server``). The owning cost says
which (``BasisCost.energy_method``); measured accelerator-counter figures (ML.ENERGY) are
evidence beside it (``energy_evidence``), never in it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..spec.cost import Basis, Own, Rent, Sourced
from ..spec.models import Candidate, PackSpec
from .cost import HOURS_PER_MONTH, accelerators_billed
from .judgements import BasisCost, CostBases, EnergyFigure, EnergyUse
from .models import Capacity, Claim, Cost, EvidenceLink, MlperfReference
from .price import convert

HOURS_PER_YEAR = 8760


def energy_use(
    candidate: Candidate, capacity: Capacity, references: Sequence[MlperfReference]
) -> EnergyUse | None:
    """Watts per accelerator from the evidence (measured MLPerf Power first, then rated)."""
    watts = provenance = source = scope = None
    measured = [r for r in references if r.average_watts and r.accelerators_total]
    rated = [r for r in references if r.design_power_watts and r.accelerators_total]
    if measured:
        ref = measured[0]
        watts = (ref.average_watts or 0.0) / (ref.accelerators_total or 1)
        provenance, source = "inherited", f"MLPerf Power of {ref.key}"
        scope = ref.energy_scope or "whole system"
    elif rated:
        ref = rated[0]
        watts = (ref.design_power_watts or 0.0) / (ref.accelerators_total or 1)
        provenance, source = "rated", f"design power of {ref.system} ({ref.key})"
        scope = "whole system, rated"
    elif candidate.power is not None:
        watts = candidate.power.watts_per_server / candidate.hardware.accelerators_per_node
        provenance = "rated"
        source = candidate.power.source or "the spec's power.watts_per_server"
        scope = "whole server, rated"
    if watts is None or provenance is None or source is None or scope is None:
        return None
    tokens = capacity.output_tokens_per_s_at_op
    per_million = (
        watts * capacity.accelerators_per_replica / tokens * 1e6 / 3.6e6 if tokens else None
    )
    owned = (capacity.servers or 0) * capacity.accelerators_per_server
    return EnergyUse(
        candidate=candidate.id,
        watts_per_accelerator=watts,
        provenance=provenance,  # type: ignore[arg-type]
        # MLPerf Power meters the whole system at the wall; the others are rated figures
        method="wall" if provenance == "inherited" else "rated",
        source=source,
        scope=scope,
        kwh_per_million_output_tokens=per_million,
        kwh_per_year=watts * owned * HOURS_PER_YEAR / 1000 if owned else None,
    )


def annual_capital(own: Own) -> float:
    """One server's capital per year: straight-line, or an annuity at the financing rate."""
    price, residual, life, rate = (
        own.purchase_price_per_server,
        own.residual_value_per_server,
        own.life_years,
        own.financing_rate,
    )
    if rate == 0:
        return (price - residual) / life
    if rate < 1e-6:
        # (1 + r)^life loses r to rounding when r is tiny (1e-300 rounds it to 1 and divides by
        # zero): the same annuity through log1p/expm1 tends to the straight line instead.
        growth = life * math.log1p(rate)
        return (price - residual * math.exp(-growth)) * rate / -math.expm1(-growth)
    factor: float = (1 + rate) ** life
    return (price - residual / factor) * rate / (1 - 1 / factor)


def _tokens_per_month(spec: PackSpec, capacity: Capacity) -> float | None:
    tokens = capacity.output_tokens_per_s_at_op
    if not tokens or not capacity.replicas:
        return None
    return tokens * capacity.replicas * 3600 * HOURS_PER_MONTH * spec.traffic.utilisation


def _sourced(cost: BasisCost, figure: Sourced) -> BasisCost:
    return cost.model_copy(
        update={
            "source": figure.source,
            "as_of": figure.as_of.isoformat() if figure.as_of else None,
            "valid_until": figure.valid_until.isoformat() if figure.valid_until else None,
        }
    )


def rent_cost(spec: PackSpec, candidate: Candidate, capacity: Capacity, rent: Rent) -> BasisCost:
    """Renting on one term at the needed capacity."""
    label = {
        "on_demand": "rent on demand",
        "spot": "rent on spot",
        "reserved": f"rent reserved for {rent.term_months} months",
    }[rent.kind]
    rate = (
        rent.per_accelerator_hour if rent.per_accelerator_hour is not None else rent.per_server_hour
    )
    converted, currency, problem = convert(spec, rate or 0.0, rent.currency)
    if rent.per_accelerator_hour is not None:
        units, what = accelerators_billed(candidate, capacity), "accelerators"
    else:
        units, what = capacity.servers, "servers"
    if problem is not None or converted is None or units is None:
        return _none(candidate, rent.kind, label, currency, problem or capacity.reason, rent)
    per_month = units * converted * HOURS_PER_MONTH
    term = float(rent.term_months) if rent.term_months else None
    return _cost(
        spec,
        candidate,
        capacity,
        rent.kind,
        label,
        currency,
        per_month,
        term,
        {"rental": per_month},
        f"{units} {what} x {currency} {converted:.4g}/h x {HOURS_PER_MONTH} h = {currency} "
        f"{per_month:,.2f} per month",
        rent,
    )


def own_cost(
    spec: PackSpec, candidate: Candidate, capacity: Capacity, energy: EnergyUse | None
) -> BasisCost | None:
    """Owning the servers the capacity needs, with the facility's running costs."""
    own = candidate.own
    if own is None:
        return None
    label = f"own over {own.life_years:g} years"
    servers = capacity.servers
    per_server, currency, problem = convert(spec, annual_capital(own), own.currency)
    if problem is not None or per_server is None or servers is None:
        return _none(candidate, "own", label, currency, problem or capacity.reason, own)
    owned = servers * capacity.accelerators_per_server
    breakdown = {"capital": servers * per_server / 12}
    steps = [
        f"capital {servers} servers x {currency} {per_server:,.2f}/year / 12 = "
        f"{currency} {breakdown['capital']:,.2f}"
    ]
    facility = spec.facility
    if facility is not None:
        for name, amount, count, per in (
            ("colocation", facility.colocation_per_server_month, servers, 1),
            ("licences", facility.licences_per_accelerator_year, owned, 12),
            ("operations", facility.operations_per_server_year, servers, 12),
        ):
            value, _, issue = convert(spec, amount, facility.currency)
            if issue is not None:
                return _none(candidate, "own", label, currency, issue, own)
            if value:
                breakdown[name] = count * value / per
                steps.append(f"{name} {currency} {breakdown[name]:,.2f}")
        if facility.power_price_per_kwh is not None and energy is not None:
            price, _, issue = convert(spec, facility.power_price_per_kwh, facility.currency)
            if issue is not None or price is None:
                return _none(candidate, "own", label, currency, issue or "", own)
            kwh = energy.watts_per_accelerator * owned * HOURS_PER_MONTH / 1000
            breakdown["energy"] = kwh * facility.pue * price
            steps.append(
                f"energy {kwh:,.0f} kWh x PUE {facility.pue:g} x {currency} {price:g}/kWh = "
                f"{currency} {breakdown['energy']:,.2f} (method {energy.method}, "
                f"{energy.scope}: {energy.source})"
            )
    per_month = sum(breakdown.values())
    cost = _cost(
        spec,
        candidate,
        capacity,
        "own",
        label,
        currency,
        per_month,
        own.life_years * 12,
        breakdown,
        "; ".join(steps) + f"; per month {currency} {per_month:,.2f}",
        own,
    )
    capital, _, _ = convert(spec, own.purchase_price_per_server, own.currency)
    return cost.model_copy(
        update={
            "capital": servers * capital if capital else None,
            "energy_method": energy.method if "energy" in breakdown and energy else None,
        }
    )


def _cost(
    spec: PackSpec,
    candidate: Candidate,
    capacity: Capacity,
    basis: Basis,
    label: str,
    currency: str,
    per_month: float,
    term_months: float | None,
    breakdown: dict[str, float],
    arithmetic: str,
    figure: Sourced,
) -> BasisCost:
    tokens = _tokens_per_month(spec, capacity)
    cost = BasisCost(
        candidate=candidate.id,
        basis=basis,
        label=label,
        currency=currency,
        per_month=per_month,
        per_year=per_month * 12,
        whole_term=per_month * term_months if term_months else None,
        term_months=term_months,
        per_million_output_tokens=per_month / tokens * 1e6 if tokens else None,
        breakdown=breakdown,
        arithmetic=arithmetic,
    )
    return _sourced(cost, figure)


def _none(
    candidate: Candidate, basis: Basis, label: str, currency: str, reason: str, figure: Sourced
) -> BasisCost:
    cost = BasisCost(
        candidate=candidate.id,
        basis=basis,
        label=label,
        currency=currency,
        per_month=None,
        per_year=None,
        whole_term=None,
        per_million_output_tokens=None,
        arithmetic=f"no figure: {reason}",
        reason=reason,
    )
    return _sourced(cost, figure)


def basis_costs(
    spec: PackSpec, candidate: Candidate, capacity: Capacity, energy: EnergyUse | None
) -> list[BasisCost]:
    """Every basis the candidate states besides its quoted price."""
    out = [rent_cost(spec, candidate, capacity, rent) for rent in candidate.rent]
    owned = own_cost(spec, candidate, capacity, energy)
    if owned is not None:
        out.append(owned)
    return out


def price_basis(candidate: Candidate, cost: Cost) -> BasisCost:
    """The quoted price as a basis: today's cost (per accelerator-hour, billed as stated)."""
    price = candidate.price
    label = f"rent at the quoted price (billed per {price.billed_per})"
    if candidate.api is not None:
        label = f"buy tokens at {candidate.api.provider}'s quoted prices"
    return BasisCost(
        candidate=candidate.id,
        basis="price",
        label=label,
        currency=cost.currency,
        per_month=cost.per_month,
        per_year=cost.per_year,
        whole_term=None,
        per_million_output_tokens=cost.per_million_output_tokens,
        breakdown={"tokens" if candidate.api else "rental": cost.per_month}
        if cost.per_month is not None
        else {},
        arithmetic=cost.arithmetic,
        source=price.source,
        as_of=price.as_of.isoformat() if price.as_of else None,
        reason=None if cost.per_month is not None else cost.reason,
    )


def tco_claims(
    cid: str, energy: EnergyUse | None, bases: Sequence[BasisCost], spec_link: EvidenceLink
) -> list[Claim]:
    """Each basis's cost per year and the energy per 1M tokens, as claims (inherited: they
    rest on quoted figures and, for energy, another system's or a rated power)."""
    out = [
        Claim(
            id=f"cost.{cid}.{b.basis}.per_year",
            kind="inherited",
            candidate=cid,
            statement=f"cost per year, {b.label}" + (f" ({b.source})" if b.source else ""),
            value=b.per_year,
            unit=f"{b.currency}/year",
            evidence=(spec_link,),
        )
        for b in bases
        if b.basis != "price" and b.per_year is not None
    ]
    if energy is not None and energy.kwh_per_million_output_tokens is not None:
        out.append(
            Claim(
                id=f"energy.{cid}.per_million_output_tokens",
                kind="inherited",
                candidate=cid,
                statement=f"energy per 1M output tokens at the operating point, method "
                f"{energy.method} ({energy.provenance}: {energy.source}; {energy.scope})",
                value=energy.kwh_per_million_output_tokens,
                unit="kWh per 1M output tokens",
                evidence=(spec_link,),
            )
        )
    return out


def summarise(
    spec: PackSpec,
    bases: Sequence[BasisCost],
    energy: Sequence[EnergyUse],
    eligible: Sequence[str],
    measured: Sequence[EnergyFigure] = (),
) -> CostBases:
    """Every basis's ranking (eligible candidates, cheapest per month first) and owning's
    break-even against renting on demand."""
    rankings: dict[str, tuple[str, ...]] = {}
    for basis in sorted({b.basis for b in bases}):
        stated = [b for b in bases if b.basis == basis and b.candidate in eligible and b.per_month]
        rankings[basis] = tuple(
            b.candidate for b in sorted(stated, key=lambda b: (b.per_month or 0.0, b.candidate))
        )
    break_even = {}
    for b in bases:
        if b.basis != "own" or not b.per_month:
            continue
        rent = next(
            (r for r in bases if r.candidate == b.candidate and r.basis == "on_demand"), None
        )
        if rent is not None and rent.per_month:
            break_even[b.candidate] = b.per_month / rent.per_month
    return CostBases(
        basis=spec.cost_basis,
        costs=tuple(bases),
        energy=tuple(energy),
        measured_energy=tuple(measured),
        rankings=rankings,
        break_even=break_even,
    )


def on_basis(bases: Sequence[BasisCost], basis: str) -> BasisCost | None:
    """A candidate's cost on ``basis``, if it states it."""
    return next((b for b in bases if b.basis == basis), None)
