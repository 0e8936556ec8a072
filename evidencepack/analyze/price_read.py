"""Prices read from evidence: a candidate whose ``price`` cites a FOCUS cost-and-usage export or
a supplier's quote gets its rate from that file, read once from the build's private copy and
packed with its digest like every other input.

The spec as written is what the pack records; the analysis runs on a copy whose price carries
the rate, currency, source (the file's one-sentence summary), date and validity read from the
file. A file that cannot be read is a PROV-FILES problem naming it, and the candidate has no
rate (its PRICE check fails).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core._numbers import plain
from ..errors import InputError
from ..intake.collect import Collector
from ..intake.records import FileProblem, InputFile
from ..pricing.focus import read_focus
from ..pricing.focus_tokens import read_focus_token_rates
from ..pricing.quote import (
    quote_line,
    rate_per_accelerator_hour,
    rate_per_server_hour,
    read_quote,
)
from ..spec.api import FocusTokenPrice
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, EvidenceRef, PackSpec


@dataclass(frozen=True)
class PricedFrom:
    """The file a candidate's rate was read from, and what it said."""

    file: InputFile
    summary: str
    failures: tuple[str, ...] = ()
    """What the file says against the price as used: PRICE fails naming each."""
    notes: tuple[str, ...] = ()
    """What reading it excluded or assumed: PRICE warns."""
    offered: tuple[int, str, str] | None = None
    """What the quote offers at its price: (quantity, ``server`` or ``accelerator``, the
    line's place), when its line states a quantity; PRICE fails a candidate needing more."""


def read_prices(
    loaded: LoadedSpec, collector: Collector
) -> tuple[PackSpec, dict[str, list[FileProblem]], dict[str, PricedFrom]]:
    """The spec the analysis runs on (rates read from cited price files), each candidate's
    problems with them, and where each read rate came from."""
    spec = loaded.spec
    problems: dict[str, list[FileProblem]] = {}
    sources: dict[str, PricedFrom] = {}
    candidates = []
    for candidate in spec.candidates:
        cited = candidate.price.focus or candidate.price.quote or _api_focus(candidate)
        if cited is None:
            candidates.append(candidate)
            continue
        mine = problems.setdefault(candidate.id, [])
        ref = EvidenceRef(path=cited.path, sha256=cited.sha256)
        got = collector.add_ref(ref, "prices", candidate.id)
        mine += got.problems
        if len(got.files) != 1:
            if not got.problems:
                mine.append(FileProblem(f"{cited.path}: a price is read from one file"))
            candidates.append(candidate)
            continue
        file = got.files[0]
        try:
            priced, source = _read(collector, candidate, file)
        except (InputError, ValueError) as exc:
            message = exc.message if isinstance(exc, InputError) else str(exc)
            mine.append(FileProblem(f"{cited.path}: cannot read the price: {message}", file))
            candidates.append(candidate)
            continue
        sources[candidate.id] = source
        candidates.append(priced)
    return spec.model_copy(update={"candidates": candidates}), problems, sources


def _annotate_focus(
    collector: Collector, file: InputFile, version: str, warnings: tuple[str, ...]
) -> None:
    """The FOCUS export's format and version on its input record, and what the reader could
    not use (zero-cost rows, netted refunds, rows in another unit): the report shows it."""
    collector.annotate(
        file.pack_path,
        fmt=f"focus-{version}",
        tool="FinOps FOCUS export",
        tool_version=version,
        warnings=warnings,
    )


def _api_focus(candidate: Candidate) -> FocusTokenPrice | None:
    """The FOCUS export an API candidate's token prices are read from, if it cites one."""
    return None if candidate.api is None else candidate.api.prices.focus


def _read_tokens(
    collector: Collector, candidate: Candidate, file: InputFile, focus: FocusTokenPrice
) -> tuple[Candidate, PricedFrom]:
    """The API candidate with the per-1M-token prices its FOCUS export's token rows give: each
    direction's effective rate, its PricingCategory and commitment named in the source. An
    export without input or output token rows, or whose rows blend categories or
    commitments, fails PRICE naming it; the cached-input price, when the rows have none, is
    the input price (as in a spec that states none)."""
    assert candidate.api is not None
    private = collector.result.sources[file.pack_path]
    rates = read_focus_token_rates(
        Path(file.pack_path), focus, record=file.as_read(), read_from=private
    )
    _annotate_focus(collector, file, rates.focus_version, rates.warnings)
    failures = [
        f"{file.pack_path}: {rate.direction} tokens: {problem}"
        for rate in rates.rates
        for problem in rate.problems
    ]
    failures += [
        f"{file.pack_path}: no {direction} token row is kept, so the API's {direction} price "
        "cannot be read from it"
        for direction in ("input", "output")
        if rates.rate(direction) is None
    ]
    notes = [f"{file.pack_path}: {warning}" for warning in rates.warnings]
    summary = rates.summary()
    figures = {
        f"{direction}_per_million": None if rate is None else rate.rate_per_million_tokens
        for direction in ("input", "cached_input", "output")
        for rate in (rates.rate(direction),)
    }
    prices = candidate.api.prices.model_copy(
        update={
            **figures,
            "currency": rates.currency,
            "source": summary,
            "as_of": rates.period_end.date(),
        }
    )
    price = candidate.price.model_copy(
        update={"currency": rates.currency, "source": summary, "as_of": rates.period_end.date()}
    )
    priced = candidate.model_copy(
        update={"api": candidate.api.model_copy(update={"prices": prices}), "price": price}
    )
    return priced, PricedFrom(file, summary, tuple(failures), tuple(notes))


def _read(
    collector: Collector, candidate: Candidate, file: InputFile
) -> tuple[Candidate, PricedFrom]:
    """The candidate with the rate its price file gives, and where it came from.

    The rate is billed by the unit the file quotes: a server-hour (or an instance of several
    accelerators) bills whole servers whatever ``billed_per`` says, and a server the
    candidate's hardware does not hold fails PRICE naming both."""
    if (tokens := _api_focus(candidate)) is not None:
        return _read_tokens(collector, candidate, file, tokens)
    price = candidate.price
    private = collector.result.sources[file.pack_path]
    failures: list[str] = []
    notes: list[str] = []
    offered: tuple[int, str, str] | None = None
    billed_per = price.billed_per
    if price.focus is not None:
        focus = price.focus
        # Messages name the file by its pack path: nothing of the building machine's folders
        # may reach decision.json (the pack would not rebuild elsewhere).
        rate = read_focus(Path(file.pack_path), focus, record=file.as_read(), read_from=private)
        summary = rate.summary()
        # What the reader could not use (zero-cost rows, netted refunds) reaches the report.
        _annotate_focus(collector, file, rate.focus_version, rate.warnings)
        failures += [f"{file.pack_path}: {problem}" for problem in rate.problems]
        notes += [f"{file.pack_path}: {warning}" for warning in rate.warnings]
        size = focus.accelerators_per_instance
        if size > 1:
            failures += _unit_problems(
                candidate,
                f"{file.pack_path} bills per instance of {size} accelerators "
                "(accelerators_per_instance)",
                size,
            )
            billed_per = "server"
        update = {
            "per_accelerator_hour": rate.rate_per_hour / size,
            "currency": rate.currency,
            "source": summary,
            "as_of": rate.period_end.date() if rate.period_end else price.as_of,
        }
    else:
        assert price.quote is not None
        quote = read_quote(Path(file.pack_path), record=file.as_read(), read_from=private)
        line = quote_line(quote, price.quote.item)
        if line.unit.startswith("server"):
            size = line.accelerators_per_server or candidate.hardware.accelerators_per_node
            per_hour = rate_per_server_hour(quote, line.item) / size
            failures += _unit_problems(
                candidate,
                f"{file.pack_path}: the line {line.item!r} is priced per {line.unit} "
                f"({plain(line.price)} {quote.currency} per server of {size} accelerators)",
                size,
            )
            billed_per = "server"
        else:
            per_hour = rate_per_accelerator_hour(quote, line.item)
        if line.quantity is not None:
            kind = "server" if line.unit.startswith("server") else "accelerator"
            offered = (line.quantity, kind, f"{file.pack_path}: the line {line.item!r}")
        summary = quote.summary()
        collector.annotate(file.pack_path, fmt="quote", tool="supplier quote", tool_version=None)
        update = {
            "per_accelerator_hour": per_hour,
            "currency": quote.currency,
            "source": summary,
            "as_of": quote.issued,
            "valid_until": quote.valid_until,
        }
    update["billed_per"] = billed_per
    priced = candidate.model_copy(update={"price": price.model_copy(update=update)})
    return priced, PricedFrom(file, summary, tuple(failures), tuple(notes), offered)


def _unit_problems(candidate: Candidate, what: str, size: int) -> list[str]:
    """Why ``candidate`` cannot be billed by a unit of ``size`` accelerators (``what`` names
    the unit and where it is quoted): another server size, or ``billed_per: accelerator``."""
    node = candidate.hardware.accelerators_per_node
    out = []
    if size != node:
        out.append(
            f"{what}, but the candidate's server holds {node} accelerator(s) "
            "(hardware.accelerators_per_node): it cannot be billed by that unit"
        )
    if candidate.price.billed_per == "accelerator":
        out.append(
            f"{what}, but the price says billed_per: accelerator: renting the quoted unit pays "
            f"for whole servers of {size} (the cost counts them, idle slots included)"
        )
    return out
