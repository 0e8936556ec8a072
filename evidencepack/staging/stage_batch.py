"""Many small files' per-request rows staged at once: a few statements for a whole batch.

A small file staged on its own costs about 7 DuckDB statements (table, read, checks, derived
columns, counts, distributions, rows out), and at 1-5 ms each a statement costs more than the
file's rows (issue 29). ``BatchStaging`` stages the rows of many one-run files into one table,
each file's run numbered by its place in the batch, and reads every run's counts,
distributions, sorted values and rows with one statement each; ``StagedRun`` then answers
what a file's reader asks (``counts``, ``stats``, ``check``, ``columns``) from those results,
with the same SQL aggregates over the same values in the same order as a ``Staging`` of the
file alone, so the runs read are the same.

A file with a row a reader would reject (a flagged row, a NaN or a negative value) is left out
of the batch and read on its own, whose message names the file and the place; any DuckDB error
leaves no ``StagedRun``, and every file is then read on its own. A batch's runs reach the
readers on their read context (``ReadContext.prestaged``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .context import DEFAULT, ReadContext
from .figures import (
    AggregateCheck,
    Columns,
    Definition,
    LatencyMetric,
    LatencyStats,
    RunSummary,
    SummaryReads,
    Weighting,
)
from .stage import (
    _COLUMN,
    _FIRST_BAD_ROW,
    PERCENTILES,
    Staging,
    compare,
    latency_stats,
)

_ROWS_OUT = (
    "run_index, request_index, ok, error, CAST(input_tokens AS BIGINT) AS input_tokens, "
    "CAST(output_tokens AS BIGINT) AS output_tokens, start_s, ttft_ms, e2e_ms, tpot_ms, "
    "tool_itl_ms, CAST(len(itl_gaps_ms) AS INTEGER) AS itl_gap_count, "
    "list_max(itl_gaps_ms) AS itl_gap_max_ms"
)
"""The staged rows as the store takes them: ``Staging.columns``'s own select."""


def _slot_values(slot: str) -> str:
    """One slot's values of every run, as ``Staging._source`` selects them for one run."""
    column = _COLUMN[slot]
    if slot == "itl":
        return f"SELECT '{slot}' AS slot, run_index, unnest({column}) AS x FROM req WHERE ok"
    return (
        f"SELECT '{slot}' AS slot, run_index, {column} AS x FROM req "
        f"WHERE ok AND {column} IS NOT NULL"
    )


def _distributions(sorted_values: bool) -> str:
    """Every run's distribution of every slot, with its values sorted (``sorted_values``: for
    ``StagedRun.check``) or without them."""
    values = "list_sort(list(x))" if sorted_values else "NULL"
    return (
        "SELECT run_index, slot, count(x), avg(x), quantile_cont(x, ?::DOUBLE[]), min(x), "
        f"max(x), stddev_pop(x), {values} FROM ("
        + " UNION ALL ".join(_slot_values(slot) for slot in _COLUMN)
        + ") GROUP BY run_index, slot"
    )


class StagedRun(SummaryReads):
    """One file's run, staged in a batch: what ``Staging`` answers about run 0 of the file
    (counts, tokens, window, distributions, checks, rows), read from the batch's results (no
    statement)."""

    def __init__(
        self,
        summary: RunSummary,
        distributions: Mapping[str, tuple[Any, ...]],
        columns: Columns,
    ) -> None:
        self._summary = summary
        self._distributions = distributions
        self._columns = columns

    def run_summary(self, run_index: int) -> RunSummary:
        """The run's summary, read with the batch's."""
        return self._summary

    def stats(
        self,
        run_index: int,
        slot: str,
        metric: LatencyMetric,
        definition: Definition,
        weighting: Weighting,
    ) -> LatencyStats | None:
        """The distribution of one staged column, or None when it has no values."""
        row = self._distributions.get(slot)
        return latency_stats(row[:-1] if row else None, metric, definition, weighting)

    def check(
        self, run_index: int, slot: str, ours: LatencyStats, tool: LatencyStats
    ) -> list[AggregateCheck]:
        """The tool's mean and percentiles against the recomputed distribution."""
        ordered: list[float] | None = self._distributions[slot][-1]
        assert ordered is not None, "staged without the sorted values (stage_batch checks=False)"

        def order_stats(indices: list[int]) -> list[float]:
            return [ordered[i - 1] for i in indices]  # 1-based, as DuckDB's s[i]

        return compare(ours.metric, ours, tool, ours.count or 0, order_stats)

    def columns(self) -> Columns:
        """The run's staged rows for the store (``run_index`` 0, as staged alone)."""
        return self._columns


class BatchStaging(Staging):
    """The per-request rows of many one-run files in one staging table: the file at place i of
    the batch is run i."""

    def __init__(self, first: Path, context: ReadContext = DEFAULT) -> None:
        super().__init__(first, _nowhere, f"a batch of files from {first}", context)

    def first_rejected(self) -> int | None:
        """The place of the first file with a row ``finish`` would reject, if any."""
        bad = self._read(_FIRST_BAD_ROW).fetchone()
        return None if bad is None else int(bad[2])

    def runs(self, files: int, sorted_values: bool = True) -> list[StagedRun] | None:
        """Each file's run, read with three statements (summaries, distributions, rows); None
        when a row would be rejected."""
        try:
            self.finish()
        except InputError:  # each file read alone names it and where
            return None
        quantiles = [q for _, q in PERCENTILES]
        distributions: list[dict[str, tuple[Any, ...]]] = [{} for _ in range(files)]
        for row in self._read(_distributions(sorted_values), [quantiles]).fetchall():
            distributions[int(row[0])][row[1]] = tuple(row[2:])
        result = self._read(f"SELECT {_ROWS_OUT} FROM req ORDER BY run_index, request_index")
        columns: Columns = result.fetchnumpy()
        bounds = np.searchsorted(np.asarray(columns["run_index"]), np.arange(files + 1))
        out = []
        for index in range(files):
            part = {
                name: values[bounds[index] : bounds[index + 1]] for name, values in columns.items()
            }
            part["run_index"] = part["run_index"] * 0  # the file's own (only) run
            out.append(StagedRun(self.run_summary(index), distributions[index], part))
        return out


def _nowhere(run: int, request: int, line: int | None, column: str) -> str:
    return ""


def stage_batch(
    paths: Sequence[Path],
    insert: str,
    params: Callable[[Sequence[Path]], Sequence[Any]],
    context: ReadContext = DEFAULT,
    checks: bool = True,
) -> dict[Path, StagedRun]:
    """Stage ``paths`` (one run each) with one ``INSERT INTO req BY NAME <insert>`` (its
    ``params`` made for the paths staged) whose rows number each file's run by its place; a
    file with a rejected row is left out (read alone, it is named with the place) and the rest
    staged again, up to ``RETRIES`` times; {} when the batch cannot be taken. ``context``: the
    read's settings, as each file read alone would have them. ``checks``: whether the readers
    check a tool's figures against the runs (``StagedRun.check``), which needs every run's
    values sorted in Python; a format that states no figure of its own does not."""
    left = list(paths)
    for _ in range(RETRIES + 1):
        if len(left) < 2:
            return {}
        try:
            staging = BatchStaging(left[0], context)
        except InputError:
            return {}
        try:
            staging.insert(insert, params(left))
            rejected = staging.first_rejected()
            runs = staging.runs(len(left), checks) if rejected is None else None
        except InputError:  # a DuckDB error names no file: each is read alone
            return {}
        finally:
            staging.close()
        if runs is not None:
            return dict(zip(left, runs, strict=True))
        if rejected is None:
            return {}
        del left[rejected]
    return {}


RETRIES = 3
"""Files with a rejected row left out of one batch at most before it is given up."""
