"""Page 1 in plain words: what a buyer can paste into a purchase request.

Check codes (C1, PROV-*), result keys and engineering shorthand stay on the detail pages and in
the glossary; page 1 says the same findings as sentences about the candidate, sizes the purchase
in whole servers and slots, and states the cost on every basis the spec gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analyze.judgements import COST_BASIS, BasisCost
from ..analyze.models import CandidateVerdict, CheckResult, DecisionDocument
from ..analyze.record import CandidateRecord
from ..analyze.robustness import BASIS_WORDS, basis_words
from ..spec.metrics import metric_range

GLOSSARY: tuple[tuple[str, str], ...] = (
    ("C1", "the MLPerf scenario (and its latency limits) against the traffic"),
    ("C2", "the quality claim rests on the team's own scores, not MLPerf's accuracy floor"),
    ("C3", "the MLPerf submission's software stack against production's"),
    ("C4", "the candidate model was re-measured on this configuration"),
    ("C5", "runs and scores held the frozen envelope (model, precision, runtime)"),
    ("FIT", "each run and score set describes this candidate and question"),
    ("SLO-MET", "a measured load met the service-level objectives"),
    ("QUALITY", "the quality bar is met"),
    ("PRICE", "the price is in the decision's currency and was quoted before the decision"),
    ("PROV-FILES", "every input present, readable and unchanged"),
    ("PROV-MLPERF", "each MLPerf result valid under its round's rules"),
    ("PROV-DATA", "each run's own data consistent and possible"),
    ("PROV-MODEL", "every run and score set is of the envelope's model"),
    ("DECISION", "a candidate is eligible and the chosen one is it, or the reason recorded"),
    ("GOVERNANCE", "the sign-off follows the rules of the house (waivers, approvals)"),
    ("TTFT", "time to first token: how long a user waits for the answer to start"),
    ("TPOT", "time per output token: how fast the answer streams"),
    ("p99", "the 99th percentile: 99 of 100 requests are at least this fast"),
    ("X*", "the operating point: the highest measured load per replica that meets the SLO"),
    ("SLO", "service-level objective: the latency and error limits promised to users"),
    ("envelope", "the frozen run conditions every run and score must share"),
    ("replica", "one copy of the model, served by one or more accelerators"),
)
"""Codes and terms the detail pages use, in plain words (the report's glossary)."""

_LOOSER = re.compile(r"(TTFT|TPOT) p99 < ([\d.,]+) ms \(yours ([\d.,]+) ms\)")


def risk(check: CheckResult, doc: DecisionDocument) -> str:
    """One finding as a sentence about the candidate, without codes or result keys."""
    text = _sentence(check, doc)
    if check.waived is not None:
        return (
            f"Accepted by {check.waived.approver} until {check.waived.expires.isoformat()} "
            f"({check.waived.reason}): {text[:1].lower()}{text[1:]}"
        )
    return text


_FIXED = {
    "C2": "Its quality claim is not backed by the team's own scores on this task.",
    "C3": "Its MLPerf reference ran another software stack than production, so that figure is "
    "discounted.",
    "C4": "It was not re-measured with the team's model on this configuration.",
    "FIT": "Some of its runs or scores describe another configuration and were left out.",
    "SLO-MET": "No measured load met the latency objectives.",
    "QUALITY": "It does not meet the quality bar.",
    "PROV-FILES": "Some of its input files are missing, unreadable or changed.",
    "PROV-MODEL": "Some of its evidence names another model than the one being bought for.",
}


def _sentence(check: CheckResult, doc: DecisionDocument) -> str:
    if check.id in _FIXED:
        return _FIXED[check.id]
    special = {
        "C1": _c1,
        "C5": _c5,
        "PRICE": _price,
        "PROV-MLPERF": _mlperf,
        "PROV-DATA": _data,
        "DECISION": _decision,
        "GOVERNANCE": _governance,
    }.get(check.id)
    return special(check, doc) if special else f"{check.title}: see the checklist."


def _c1(check: CheckResult, doc: DecisionDocument) -> str:
    looser = _LOOSER.findall(check.reason)
    if "Offline figure" in check.reason:
        return (
            "Its MLPerf figure is an Offline (throughput) result, which says nothing about the "
            "latency users see."
        )
    if looser:
        limits = ", ".join(f"{m} under {a} ms against our {b} ms" for m, a, b in looser)
        return (
            f"Its MLPerf reference was measured under a looser latency limit than ours ({limits})."
        )
    return "Its benchmark references were measured under other traffic than ours."


def _c5(check: CheckResult, doc: DecisionDocument) -> str:
    candidate = next((c for c in doc.spec.candidates if c.id == check.candidate), None)
    if candidate is not None and "instead of the envelope" in check.reason:
        env = doc.spec.envelope
        return (
            f"It runs {candidate.stack.runtime} {candidate.stack.version}, not the frozen "
            f"{env.runtime.name} {env.runtime.version}: its speed and quality were measured on "
            "its own stack."
        )
    return "Some of its runs or scores were measured under other conditions than the frozen ones."


def _price(check: CheckResult, doc: DecisionDocument) -> str:
    if check.status == "FAIL":
        return (
            "Its price cannot be used as stated (currency, date, billing unit, or bill rows "
            "that mix accounts or pricing terms)."
        )
    if "excluded" in check.reason and "kept row(s)" in check.reason:
        return (
            "Some rows of its bill were left out of its rate by rule (credits, refunds, or "
            "hours that cost nothing): see the checklist."
        )
    return "Its price quote is stale, undated or past its validity."


def _mlperf(check: CheckResult, doc: DecisionDocument) -> str:
    if "identifies no MLPerf round" in check.reason:
        return (
            "Its MLPerf reference names no MLPerf round, so the round's rules could not be "
            "re-applied."
        )
    return "Its MLPerf reference is not a valid result under its round's rules."


def _data(check: CheckResult, doc: DecisionDocument) -> str:
    if check.status == "WARN" and "INVALID" in check.reason and "disagree" not in check.reason:
        return (
            "Its heaviest measured load broke the latency limit, as the top of a load sweep "
            "should; that run sizes nothing."
        )
    return "Some of its run data is inconsistent and was left out."


def _governance(check: CheckResult, doc: DecisionDocument) -> str:
    return f"The sign-off breaks a rule of the house: {check.reason}."


def _decision(check: CheckResult, doc: DecisionDocument) -> str:
    if "different bases" in check.reason:
        return (
            "The candidates are priced on different billing bases (per server and per "
            "accelerator), and the call depends on it."
        )
    if "differs from the" in check.reason:
        return "The candidate chosen in the spec is not the one the evidence recommends."
    return "No decision follows from the evidence."


def size(verdict: CandidateVerdict, slots_per_server: int | None, billed_per: str) -> str:
    """``9 accelerators on 2 servers (16 slots; 7 slots idle, not billed)``."""
    needed, servers = verdict.accelerators_needed, verdict.servers_needed
    if needed is None or servers is None or slots_per_server is None:
        return "nothing can be sized"
    slots = servers * slots_per_server
    idle = slots - needed
    paid = "not billed" if billed_per == "accelerator" else "paid for"
    idle_text = f"{idle} slot{'s' if idle != 1 else ''} idle, {paid}" if idle else "none idle"
    return (
        f"{needed} accelerator{'s' if needed != 1 else ''} on {servers} "
        f"server{'s' if servers != 1 else ''} ({slots} slots; {idle_text})"
    )


def bases_of(record: CandidateRecord, doc: DecisionDocument) -> list[BasisCost]:
    """The candidate's cost on every basis its record states, the one ranked on first."""
    if doc.cost_bases is None:
        return []
    ranked_on = doc.cost_bases.basis
    return sorted(record.bases, key=lambda b: b.basis != ranked_on)


def why(doc: DecisionDocument) -> str | None:
    """Why the recommendation and not the runner-up, in figures."""
    robust = doc.robustness
    if robust is None or doc.recommendation is None:
        return None
    best = next(v for v in doc.candidates if v.id == doc.recommendation)
    if best.cost_per_month is None:
        return None
    money = f"{best.currency} {best.cost_per_month:,.0f} a month"
    quality = ""
    q = next((q for q in doc.quality if q.candidate == best.id), None)
    if q is not None and q.judged_value is not None:
        # page 1 is full: the coverage is said there when the set does not cover the dataset
        short = q.coverage is not None and q.items_scored != q.dataset_items
        covered = f", {q.coverage}" if short else ""
        scale = metric_range(q.metric, None)
        if scale is not None and (scale.low, scale.high) == (0.0, 1.0):
            value, bar = f"{q.judged_value:.1%}", f"{q.bar_threshold:.0%}"
        else:  # not a fraction, or a scale the spec states: the metric's own numbers
            value, bar = f"{q.judged_value:.4g}", f"{q.bar_threshold:g}"
        quality = f" and the quality bar ({value} against {bar}{covered})"
    text = f"{best.id} meets the latency objectives{quality} at {money}"
    if robust.runner_up is not None and doc.objective != "lowest_cost_at_slo":
        # the call rests on accelerators or quality: said in their unit, never as a cost
        if robust.close is not None:
            text += f"; {robust.close}"
    elif robust.runner_up is not None:
        second = next(v for v in doc.candidates if v.id == robust.runner_up)
        if second.cost_per_month is not None and robust.margin is not None:
            text += (
                f"; the runner-up {second.id} would cost {second.currency} "
                f"{second.cost_per_month:,.0f} ({robust.margin:.0%} more)"
            )
    return text + "."


def holds(doc: DecisionDocument) -> str | None:
    """What would flip the call, from the robustness sentence ("It holds unless ...")."""
    if doc.robustness is None:
        return None
    _, _, rest = doc.robustness.sentence.partition("; ")
    rest = rest or doc.robustness.sentence
    return rest[:1].upper() + rest[1:]


_SHORT = {
    "price": "Rent, quoted price",
    "on_demand": "Rent on demand",
    "reserved": "Rent reserved",
    "spot": "Rent on spot",
    "own": "Own",
}
"""Each cost basis as a row of page 1's rent-or-own block."""


@dataclass(frozen=True)
class BasisRow:
    """One cost basis on page 1: its words and each compared candidate's cost per year."""

    basis: str
    words: str
    ranked_on: bool
    per_year: tuple[str, ...]


@dataclass(frozen=True)
class RentOrOwn:
    """Page 1's rent-against-own block: the recommendation and the runner-up on every basis the
    spec states for either, and what another basis does to the ranking."""

    candidates: tuple[str, ...]
    rows: tuple[BasisRow, ...]
    sentence: str


def _per_year(doc: DecisionDocument, cid: str, basis: str) -> BasisCost | None:
    bases = doc.cost_bases
    return next(
        (b for b in (bases.costs if bases else ()) if b.candidate == cid and b.basis == basis),
        None,
    )


def _year(cost: BasisCost | None) -> str:
    if cost is None:
        return "not stated"
    if cost.per_year is None:
        return "no figure"
    return f"{cost.currency} {cost.per_year:,.0f}"


def _price_words(shown: tuple[str, ...], apis: set[str]) -> str:
    """The quoted-price row's words: an API's quoted price is per token, not a rent."""
    if not apis.intersection(shown):
        return _SHORT["price"]
    if apis.issuperset(shown):
        return "Quoted price per token"
    return "Quoted price (per token for the API, rented for hardware)"


def rent_or_own(doc: DecisionDocument) -> RentOrOwn | None:
    """The recommendation and the runner-up on every stated cost basis, with one sentence per
    basis that changes the ranking (from the robustness flips); None when no candidate states a
    basis besides the quoted price."""
    bases, robust = doc.cost_bases, doc.robustness
    if bases is None or robust is None or robust.recommendation is None:
        return None
    shown = tuple(c for c in (robust.recommendation, robust.runner_up) if c is not None)
    stated = [b for b in BASIS_WORDS if any(_per_year(doc, cid, b) is not None for cid in shown)]
    if len(stated) < 2:
        return None
    apis = {c.id for c in doc.spec.candidates if c.api is not None}
    rows = tuple(
        BasisRow(
            b,
            _price_words(shown, apis) if b == "price" else _SHORT[b],
            b == bases.basis,
            tuple(_year(_per_year(doc, cid, b)) for cid in shown),
        )
        for b in stated
    )
    said = []
    best = robust.recommendation
    words_of = basis_words(doc.spec)
    for flip in robust.flips:
        if flip.input != COST_BASIS or flip.becomes is None:
            continue
        basis = next((b for b in BASIS_WORDS if flip.change.startswith(words_of[b])), None)
        if basis is None:
            continue
        theirs, ours = _per_year(doc, flip.becomes, basis), _per_year(doc, best, basis)
        if theirs is None or ours is None or theirs.per_year is None or ours.per_year is None:
            continue
        words = flip.change
        said.append(
            f"{words[:1].upper()}{words[1:]}, {flip.becomes} would cost "
            f"{theirs.per_year:,.0f} {theirs.currency} a year against {ours.per_year:,.0f}: "
            "the choice flips."
        )
    if not said and not any(
        _per_year(doc, best, b) is not None for b in stated if b != bases.basis
    ):
        said.append(f"{best} states no other basis, so no other basis can flip it.")
    elif not said:
        said.append(f"On every other basis {best} states, it stays first.")
    return RentOrOwn(shown, rows, " ".join(said))
