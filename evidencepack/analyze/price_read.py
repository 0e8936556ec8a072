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

from ..errors import InputError
from ..inputs.collect import Collector
from ..inputs.records import FileProblem, InputFile
from ..pricing.focus import read_focus
from ..pricing.quote import quote_line, rate_per_accelerator_hour, rate_per_server_hour, read_quote
from ..spec.load import LoadedSpec
from ..spec.models import Candidate, EvidenceRef, PackSpec


@dataclass(frozen=True)
class PricedFrom:
    """The file a candidate's rate was read from, and what it said."""

    file: InputFile
    summary: str


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
        cited = candidate.price.focus or candidate.price.quote
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
            priced, summary = _read(loaded, collector, candidate, file)
        except (InputError, ValueError) as exc:
            message = exc.message if isinstance(exc, InputError) else str(exc)
            mine.append(FileProblem(f"{cited.path}: cannot read the price: {message}", file))
            candidates.append(candidate)
            continue
        sources[candidate.id] = PricedFrom(file, summary)
        candidates.append(priced)
    return spec.model_copy(update={"candidates": candidates}), problems, sources


def _read(
    loaded: LoadedSpec, collector: Collector, candidate: Candidate, file: InputFile
) -> tuple[Candidate, str]:
    price = candidate.price
    private = collector.result.sources[file.pack_path]
    if price.focus is not None:
        focus = price.focus
        # Messages name the file by its pack path: nothing of the building machine's folders
        # may reach decision.json (the pack would not rebuild elsewhere).
        rate = read_focus(Path(file.pack_path), focus, record=file.as_read(), read_from=private)
        summary = rate.summary()
        # What the reader could not use (zero-cost rows, netted refunds) reaches the report.
        collector.annotate(
            file.pack_path,
            fmt=f"focus-{rate.focus_version}",
            tool="FinOps FOCUS export",
            tool_version=rate.focus_version,
            warnings=rate.warnings,
        )
        update = {
            "per_accelerator_hour": rate.rate_per_hour / focus.accelerators_per_instance,
            "currency": rate.currency,
            "source": summary,
            "as_of": rate.period_end.date() if rate.period_end else price.as_of,
        }
    else:
        assert price.quote is not None
        quote = read_quote(Path(file.pack_path), record=file.as_read(), read_from=private)
        line = quote_line(quote, price.quote.item)
        if line.unit.startswith("server") and line.accelerators_per_server is None:
            per_hour = (
                rate_per_server_hour(quote, line.item) / candidate.hardware.accelerators_per_node
            )
        else:
            per_hour = rate_per_accelerator_hour(quote, line.item)
        summary = quote.summary()
        collector.annotate(file.pack_path, fmt="quote", tool="supplier quote", tool_version=None)
        update = {
            "per_accelerator_hour": per_hour,
            "currency": quote.currency,
            "source": summary,
            "as_of": quote.issued,
            "valid_until": quote.valid_until,
        }
    return candidate.model_copy(update={"price": price.model_copy(update=update)}), summary
