"""What would flip the recommendation: the margin to the runner-up and, for each input a buyer
could dispute, the smallest change that changes the recommendation.

Every what-if reruns the same arithmetic the decision used (sizing from the fitting load
points, cost at the price terms, the quality bar against the judged value, the ranking by the
spec's objective) with one input changed; what the checks found about the evidence itself is
held fixed. Prices, peak rate, headroom, utilisation, the quality bar and the SLO limits are
searched in steps of 1% up to +-50%; each billing basis is also tried the other way, and every
cost basis a candidate states (the quoted price, renting on a term, owning) is tried in place of
the spec's ``cost_basis``, among the candidates that state it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..spec.metrics import metric_range
from ..spec.models import Candidate, PackSpec, Slo
from .candidate import CandidateAnalysis
from .capacity import load_points, size_candidate, slo_outcome
from .cost import cost_of
from .judgements import COST_BASIS, Flip, Robustness
from .models import Capacity, CheckResult, LoadPoint
from .ranking import Closeness, Standing, closeness, interval_of, ranked
from .tco import basis_costs, on_basis

STEPS = tuple(range(1, 51))
"""Relative changes tried, in percent, each way."""
OUTCOME_CHECKS = ("SLO-MET", "QUALITY")
"""Checks the what-ifs recompute; every other check's outcome is held as found."""
BASIS_WORDS = {
    "price": "renting at the quoted price",  # "renting" when no other rent term is stated
    "on_demand": "renting on demand",
    "reserved": "renting reserved",
    "spot": "renting on spot",
    "own": "owning",
}
"""Each cost basis in words, as a flip names it."""

Variant = Callable[[PackSpec], PackSpec]


def _with_candidate(spec: PackSpec, cid: str, change: Callable[[Candidate], Candidate]) -> PackSpec:
    candidates = [change(c) if c.id == cid else c for c in spec.candidates]
    return spec.model_copy(update={"candidates": candidates})


def scaled_prices(candidate: Candidate, factor: float) -> Candidate:
    """The candidate with every price it states (quoted, rent terms, purchase and residual)
    scaled by ``factor``."""
    update: dict[str, object] = {
        "price": candidate.price.model_copy(
            update={
                "per_accelerator_hour": None
                if candidate.price.per_accelerator_hour is None
                else candidate.price.per_accelerator_hour * factor
            }
        ),
        "rent": [
            r.model_copy(
                update={
                    "per_accelerator_hour": None
                    if r.per_accelerator_hour is None
                    else r.per_accelerator_hour * factor,
                    "per_server_hour": None
                    if r.per_server_hour is None
                    else r.per_server_hour * factor,
                }
            )
            for r in candidate.rent
        ],
    }
    if candidate.api is not None:
        prices = candidate.api.prices
        update["api"] = candidate.api.model_copy(
            update={
                "prices": prices.model_copy(
                    update={
                        "input_per_million": None
                        if prices.input_per_million is None
                        else prices.input_per_million * factor,
                        "cached_input_per_million": None
                        if prices.cached_input_per_million is None
                        else prices.cached_input_per_million * factor,
                        "output_per_million": None
                        if prices.output_per_million is None
                        else prices.output_per_million * factor,
                    }
                )
            }
        )
    if candidate.own is not None:
        update["own"] = candidate.own.model_copy(
            update={
                "purchase_price_per_server": candidate.own.purchase_price_per_server * factor,
                "residual_value_per_server": candidate.own.residual_value_per_server * factor,
            }
        )
    return candidate.model_copy(update=update)


Sized = dict[tuple[object, ...], Capacity]
"""Capacities already sized in one robustness run, by candidate and sizing inputs."""


Loads = dict[tuple[object, ...], tuple[LoadPoint, ...]]
"""Load points already made in one robustness run, by candidate and SLO outcome."""


def _sized(
    spec: PackSpec, candidate: Candidate, analysis: CandidateAnalysis, ctx: _Context
) -> Capacity:
    """The candidate's capacity under ``spec``, sized once per distinct sizing input within one
    robustness run (a price, billing or quality what-if leaves it as it was). An SLO what-if
    counts by its outcome (``slo_outcome``): a standing reads the capacity's figures, never its
    texts, which quote the limits of the SLO it was first sized under."""
    if (candidate.id, spec.slo) not in ctx.outcomes:
        ctx.outcomes[(candidate.id, spec.slo)] = slo_outcome(analysis.points, spec.slo)
    outcome = ctx.outcomes[(candidate.id, spec.slo)]
    key = (candidate.id, candidate.hardware, spec.traffic.peak_requests_per_s, spec.headroom)
    if (*key, outcome) not in ctx.sized:
        # the load points depend on the SLO only: made once per outcome, not per traffic
        if (candidate.id, outcome) not in ctx.loads:
            ctx.loads[(candidate.id, outcome)] = load_points(analysis.points, spec.slo)
        loaded = ctx.loads[(candidate.id, outcome)]
        ctx.sized[(*key, outcome)] = size_candidate(spec, candidate, analysis.points, loaded)
    return ctx.sized[(*key, outcome)]


@dataclass(frozen=True)
class _Context:
    """What every what-if of one robustness run shares: the analyses, the checks as found, and
    the capacities already sized."""

    analyses: Sequence[CandidateAnalysis]
    checks: Sequence[CheckResult]
    sized: Sized = field(default_factory=dict)
    loads: Loads = field(default_factory=dict)
    outcomes: dict[tuple[str, Slo], tuple[object, ...]] = field(default_factory=dict)
    """Per candidate and SLO tried, its ``slo_outcome``."""
    held: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    """Per candidate, what the checks found and no what-if changes: (blocked, quality waived)."""

    def __post_init__(self) -> None:
        for analysis in self.analyses:
            cid = analysis.candidate.id
            self.held[cid] = (self.blocked(cid), self.quality_waived(cid))

    def blocked(self, candidate: str) -> bool:
        """A failure no what-if recomputes (any but SLO-MET and QUALITY), not waived."""
        return any(
            c.candidate == candidate
            and c.status == "FAIL"
            and c.waived is None
            and c.id not in OUTCOME_CHECKS
            for c in self.checks
        )

    def quality_waived(self, candidate: str) -> bool:
        """Whether a waiver covers the candidate's quality bar."""
        return any(
            c.candidate == candidate and c.id == "QUALITY" and c.waived is not None
            for c in self.checks
        )


def _standings(spec: PackSpec, ctx: _Context) -> list[Standing]:
    """Each candidate's standing under ``spec``, recomputed from its fitting load points."""
    return [_standing(spec, ctx, analysis) for analysis in ctx.analyses]


def _with_one(
    spec: PackSpec, ctx: _Context, base: Sequence[Standing], candidate: str
) -> list[Standing]:
    """``base`` with only ``candidate``'s standing recomputed under ``spec``: a what-if of one
    candidate's own input (its price, its billing) leaves every other standing as it was, which
    keeps the search linear in the candidates instead of quadratic."""
    return [
        _standing(spec, ctx, analysis) if analysis.candidate.id == candidate else standing
        for analysis, standing in zip(ctx.analyses, base, strict=True)
    ]


def _standing(spec: PackSpec, ctx: _Context, analysis: CandidateAnalysis) -> Standing:
    """One candidate's standing under ``spec``."""
    candidate = spec.candidate(analysis.candidate.id)
    blocked, quality_waived = ctx.held[candidate.id]
    capacity = _sized(spec, candidate, analysis, ctx)
    scaled, base = (
        candidate.price.per_accelerator_hour,
        analysis.candidate.price.per_accelerator_hour,
    )
    terms = dataclasses.replace(
        analysis.price,
        per_accelerator_hour=(
            analysis.price.per_accelerator_hour * scaled / base
            if analysis.price.per_accelerator_hour is not None and scaled and base
            else None
        ),
    )
    cost = cost_of(spec, candidate, capacity, (), terms)
    per_month, per_million = cost.per_month, cost.per_million_output_tokens
    if spec.cost_basis != "price":
        basis = on_basis(basis_costs(spec, candidate, capacity, analysis.energy), spec.cost_basis)
        per_month = basis.per_month if basis else None
        per_million = basis.per_million_output_tokens if basis else None
    judged = analysis.quality.judged_value
    bar = spec.scoring.bar.threshold
    higher = spec.scoring.direction == "higher_is_better"
    meets = judged is not None and (judged >= bar if higher else judged <= bar)
    return Standing(
        candidate.id,
        not blocked and capacity.accelerators is not None and (meets or quality_waived),
        capacity.accelerators,
        per_month,
        per_million,
        judged,
        interval_of(analysis.quality),
    )


def _winner(
    spec: PackSpec, ctx: _Context, standings: Sequence[Standing] | None = None
) -> str | None:
    """The recommendation under ``spec`` (``standings``: already computed under it)."""
    order = ranked(
        spec.objective,
        spec.scoring.direction == "higher_is_better",
        standings if standings is not None else _standings(spec, ctx),
    )
    return order[0] if order else None


_WhatIf = tuple[str, Callable[[PackSpec, float], PackSpec], str | None]
"""An input's name, the spec with it scaled by a factor, and the candidate it belongs to."""


def _continuous(spec: PackSpec) -> list[_WhatIf]:
    """Each continuous input a buyer could dispute, as a function of a factor."""

    def price(cid: str) -> Callable[[PackSpec, float], PackSpec]:
        def apply(s: PackSpec, f: float) -> PackSpec:
            return _with_candidate(s, cid, lambda c: scaled_prices(c, f))

        return apply

    out: list[_WhatIf] = [(f"{c.id}'s price", price(c.id), c.id) for c in spec.candidates]
    out += [
        (
            "the peak rate",
            lambda s, f: s.model_copy(
                update={
                    "traffic": s.traffic.model_copy(
                        update={"peak_requests_per_s": s.traffic.peak_requests_per_s * f}
                    )
                }
            ),
            None,
        ),
        ("the headroom", lambda s, f: s.model_copy(update={"headroom": s.headroom * f}), None),
        (
            "the utilisation",
            lambda s, f: s.model_copy(
                update={
                    "traffic": s.traffic.model_copy(
                        update={"utilisation": min(1.0, s.traffic.utilisation * f)}
                    )
                }
            ),
            None,
        ),
        (
            "the quality bar",
            lambda s, f: s.model_copy(
                update={
                    "scoring": s.scoring.model_copy(
                        update={
                            "bar": s.scoring.bar.model_copy(
                                update={"threshold": s.scoring.bar.threshold * f}
                            )
                        }
                    )
                }
            ),
            None,
        ),
    ]
    for limit, label in (
        ("ttft_p99_ms", "the TTFT limit"),
        ("tpot_p99_ms", "the TPOT limit"),
        ("e2e_p99_ms", "the end-to-end limit"),
    ):
        if getattr(spec.slo, limit) is None:
            continue
        out.append(
            (
                label,
                lambda s, f, limit=limit: s.model_copy(  # type: ignore[misc]
                    update={"slo": s.slo.model_copy(update={limit: getattr(s.slo, limit) * f})}
                ),
                None,
            )
        )
    return out


def robustness(
    spec: PackSpec,
    analyses: Sequence[CandidateAnalysis],
    checks: Sequence[CheckResult],
    recommendation: str | None,
) -> Robustness:
    """The margin to the runner-up and the smallest change of each input that flips the call."""
    ctx = _Context(analyses, checks)
    standings = {s.id: s for s in _standings(spec, ctx)}
    order = ranked(
        spec.objective, spec.scoring.direction == "higher_is_better", list(standings.values())
    )
    runner_up = order[1] if len(order) > 1 else None
    close = None
    if recommendation is not None and runner_up is not None:
        scale = metric_range(spec.scoring.metric, spec.scoring.range)
        fraction = scale is not None and (scale.low, scale.high) == (0.0, 1.0)
        close = closeness(
            spec.objective,
            standings[recommendation],
            standings[runner_up],
            (spec.scoring.metric, fraction, spec.scoring.bar.confidence_level),
        )
    flips: list[Flip] = []
    for c in spec.candidates:
        if c.api is not None:
            continue  # bought per token: no billing basis to flip
        other = "accelerator" if c.price.billed_per == "server" else "server"
        changed = _with_candidate(
            spec,
            c.id,
            lambda cand, other=other: cand.model_copy(  # type: ignore[misc]
                update={"price": cand.price.model_copy(update={"billed_per": other})}
            ),
        )
        becomes = _winner(changed, ctx, _with_one(changed, ctx, list(standings.values()), c.id))
        flips.append(
            Flip(
                input=f"{c.id}'s billing basis",
                change=f"billed per {other}" if becomes != recommendation else "none",
                becomes=becomes if becomes != recommendation else None,
                relative=None,
            )
        )
    base = list(standings.values())
    flips.extend(_basis_flips(spec, ctx, recommendation))
    for name, apply, own in _continuous(spec):
        flips.append(_search(spec, ctx, recommendation, name, apply, (base, own)))
    return Robustness(
        recommendation=recommendation,
        runner_up=runner_up,
        margin=close.margin if close else None,
        gap=close.gap if close else None,
        gap_unit=close.unit if close else None,
        tied=close.tied if close else False,
        close=close.text if close else None,
        billing={c.id: c.price.billed_per for c in spec.candidates if c.api is None},
        common_basis={
            basis: tuple(
                ranked(
                    spec.objective,
                    spec.scoring.direction == "higher_is_better",
                    _standings(_all_billed(spec, basis), ctx),
                )
            )
            for basis in ("server", "accelerator")
        },
        flips=tuple(flips),
        sentence=_sentence(recommendation, runner_up, close, flips),
    )


def stated_bases(spec: PackSpec) -> list[str]:
    """Every cost basis some candidate states, in BASIS_WORDS order (the quoted price always)."""
    stated = {"price"}
    for c in spec.candidates:
        stated |= {r.kind for r in c.rent} | ({"own"} if c.own is not None else set())
    return [b for b in BASIS_WORDS if b in stated]


def basis_words(spec: PackSpec) -> dict[str, str]:
    """Each cost basis in words for this spec: the quoted price is "renting" when no candidate
    states another rent term."""
    words = dict(BASIS_WORDS)
    if not set(stated_bases(spec)) & {"on_demand", "reserved", "spot"}:
        words["price"] = "renting"
    return words


def _basis_flips(spec: PackSpec, ctx: _Context, recommendation: str | None) -> list[Flip]:
    """Each stated cost basis other than the spec's tried in its place: the candidates that
    state it ranked on it (one that does not state it drops out). It flips the call when the
    recommendation states it and another candidate comes first."""
    out = []
    said = basis_words(spec)
    for basis in stated_bases(spec):
        if basis == spec.cost_basis:
            continue
        changed = spec.model_copy(update={"cost_basis": basis})
        standings = [
            dataclasses.replace(s, eligible=s.eligible and s.per_month is not None)
            for s in _standings(changed, ctx)
        ]
        order = ranked(spec.objective, spec.scoring.direction == "higher_is_better", standings)
        becomes = order[0] if order and recommendation in order else None
        flipped = becomes is not None and becomes != recommendation
        words = f"{said[basis]} instead of {said[spec.cost_basis]}"
        out.append(
            Flip(
                input=COST_BASIS,
                change=words if flipped else "none",
                becomes=becomes if flipped else None,
                relative=None,
            )
        )
    return out


def _all_billed(spec: PackSpec, basis: str) -> PackSpec:
    return spec.model_copy(
        update={
            "candidates": [
                c.model_copy(update={"price": c.price.model_copy(update={"billed_per": basis})})
                for c in spec.candidates
            ]
        }
    )


def _search(
    spec: PackSpec,
    ctx: _Context,
    recommendation: str | None,
    name: str,
    apply: Callable[[PackSpec, float], PackSpec],
    own: tuple[Sequence[Standing], str | None],
) -> Flip:
    """The smallest change of one input (1% steps, up to +-50%) that changes the call.

    ``own``: the standings under ``spec`` and the candidate whose own input this is (None: an
    input of the whole spec, which every standing depends on)."""
    base, candidate = own
    for step in STEPS:
        for sign in (1, -1):
            factor = 1 + sign * step / 100
            changed = apply(spec, factor)
            mine = _with_one(changed, ctx, base, candidate) if candidate is not None else None
            becomes = _winner(changed, ctx, mine)
            if becomes != recommendation:
                verb = "rises" if sign > 0 else "falls"
                return Flip(
                    input=name,
                    change=f"{verb} {step}%",
                    becomes=becomes,
                    relative=sign * step / 100,
                )
    return Flip(input=name, change="none within +-50%", becomes=None, relative=None)


def _sentence(
    recommendation: str | None,
    runner_up: str | None,
    closeness: Closeness | None,
    flips: Sequence[Flip],
) -> str:
    if recommendation is None:
        return "No candidate is recommended, so nothing can flip."
    if runner_up is None or closeness is None:
        close = f"{recommendation} is the only eligible candidate"
    else:
        close = closeness.text
    active = [f for f in flips if f.becomes is not None or f.change != "none"]
    active = [f for f in active if f.change not in ("none", "none within +-50%")]
    if not active:
        return (
            f"{close}; no single input changed by up to 50% (or a billing or cost basis) flips it."
        )
    basis = [f for f in active if f.relative is None]
    scaled = sorted(
        (f for f in active if f.relative is not None), key=lambda f: abs(f.relative or 0)
    )
    parts = [
        f"{f.input.removesuffix(' billing basis').removesuffix(chr(39) + 's')} is {f.change}"
        for f in basis
    ]
    parts += [f"{f.input} {f.change}" for f in scaled[:2]]
    return f"{close}; it holds unless {' or '.join(parts)}."
