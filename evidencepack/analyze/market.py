"""A candidate's quote beside the market: the range a cited price index gives for the same
accelerator (``readers/accelerators.py``) and month, in the quote's currency. A quote beyond the
range by more than the reference's ``far_outside`` is a PRICE warning naming both.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ..errors import InputError
from ..intake.collect import Collector
from ..intake.records import FileProblem
from ..pricing.market import MarketReference, read_market
from ..readers import accelerators
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, PackSpec


def read_market_prices(
    loaded: LoadedSpec, collector: Collector
) -> tuple[list[MarketReference], list[FileProblem]]:
    """Every cited price index, read from the build's private copy (packed like any input), and
    the problems of those that could not be read."""
    out: list[MarketReference] = []
    problems: list[FileProblem] = []
    for ref in loaded.spec.market_prices:
        got = collector.add_ref(ref, "prices", None)
        problems += got.problems
        if len(got.files) != 1:
            if not got.problems:
                problems.append(FileProblem(f"{ref.path}: a price index is one file"))
            continue
        file = got.files[0]
        try:
            rows = read_market(
                loaded.resolve(ref.path), read_from=collector.result.sources[file.pack_path]
            )
        except InputError as exc:
            detail = "; ".join(exc.problems[:3]) or exc.message
            problems.append(FileProblem(f"{ref.path}: cannot read the price index: {detail}", file))
            continue
        collector.annotate(file.pack_path, fmt="price-index", tool="price index", tool_version=None)
        out.append(MarketReference(ref.path, ref.far_outside, tuple(rows), file.pack_path))
    return out, problems


def market_sentences(
    spec: PackSpec, candidate: Candidate, references: Sequence[MarketReference]
) -> tuple[list[str], list[str]]:
    """(what each reference says beside the quote, the warnings of a quote far outside)."""
    price = candidate.price
    quote = price.per_accelerator_hour
    month = (price.as_of or spec.decision.date).strftime("%Y-%m")
    said: list[str] = []
    warns: list[str] = []
    if quote is None:
        return said, warns
    for ref in references:
        same = [
            p
            for p in ref.prices
            if p.currency == price.currency
            and _month(p.date) == month
            and accelerators.difference(p.accelerator, candidate.hardware.accelerator) is None
        ]
        if not same:
            said.append(
                f"{ref.name} has no {price.currency} price for {candidate.hardware.accelerator} "
                f"in {month}"
            )
            continue
        low, high = min(p.price for p in same), max(p.price for p in same)
        providers = len({p.provider for p in same})
        where = (
            f"{ref.name}: {price.currency} {low:g}-{high:g} per accelerator-hour for "
            f"{candidate.hardware.accelerator} in {month} ({len(same)} price(s) from "
            f"{providers} provider(s))"
        )
        said.append(f"market {where}")
        if quote > high * (1 + ref.far_outside):
            warns.append(
                f"the quote {price.currency} {quote:g} per accelerator-hour is "
                f"{quote / high - 1:.0%} above the market reference ({where})"
            )
        elif quote < low * (1 - ref.far_outside):
            warns.append(
                f"the quote {price.currency} {quote:g} per accelerator-hour is "
                f"{1 - quote / low:.0%} below the market reference ({where})"
            )
    return said, warns


def _month(date: dt.date) -> str:
    return date.strftime("%Y-%m")
