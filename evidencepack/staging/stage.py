"""Per-request rows staged in DuckDB, private to one file: bulk-read, validated, summarised in SQL.

Format modules fill the ``req`` table with one ``INSERT ... BY NAME SELECT`` over DuckDB's own
JSON/CSV readers (or, for small embedded arrays, a columnar numpy batch); nothing is inserted
row by row. Percentiles are recomputed here with ``quantile_cont`` and checked against the
tool's own aggregates (``reconcile``). Every ``duckdb.Error`` becomes an ``InputError``.

Within ``shared_staging`` (a build's intake), each file's rows sit in temporary tables of its own
connection to one in-memory database per thread, gone when the file's staging is closed:
opening a database per file cost more than reading a small file (12 ms per connect, DDL and
close; issue 29). The databases close with the block, so nothing stays open while the report
is rendered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from ..errors import InputError
from ..store.connection import Connection
from ..store.staged import StagedRows, detach
from .context import DEFAULT, ReadContext
from .figures import (
    NO_ROWS,
    AggregateCheck,
    Columns,
    Definition,
    LatencyMetric,
    LatencyStats,
    RunSummary,
    SummaryReads,
    Weighting,
)
from .json_lines import iter_json_lines
from .staging_db import new_catalog, staging_database
from .staging_db import shared_staging as shared_staging

REQ_DDL = """
CREATE TEMP TABLE req (
    run_index INTEGER NOT NULL,
    request_index BIGINT NOT NULL,
    line BIGINT,
    ok BOOLEAN NOT NULL,
    error VARCHAR,
    input_tokens DOUBLE,
    output_tokens DOUBLE,
    start_s DOUBLE,
    ttft_ms DOUBLE,
    e2e_ms DOUBLE,
    tpot_ms DOUBLE,
    tool_itl_ms DOUBLE,
    itl_gaps_ms DOUBLE[],
    problem VARCHAR
)
"""

# Metric slot -> the staged column it is recomputed from (identifiers are ours, never input).
_COLUMN: dict[str, str] = {
    "ttft": "ttft_ms",
    "e2e": "e2e_ms",
    "tpot": "tpot_ms",
    "tool_itl": "tool_itl_ms",
    "itl": "itl_gaps_ms",
}
_CHECKED_COLUMNS = ("ttft_ms", "e2e_ms", "tool_itl_ms", "input_tokens", "output_tokens")
_FIRST_BAD_ROW = (
    " UNION ALL ".join(
        [
            "SELECT 0 AS k, 'problem' AS c, run_index, request_index, line, problem, "
            "NULL::DOUBLE AS v FROM req WHERE problem IS NOT NULL",
            *(
                f"SELECT {k} AS k, '{c}' AS c, run_index, request_index, line, NULL, {c} FROM req "
                f"WHERE isnan({c}) OR {c} < 0"
                for k, c in enumerate(_CHECKED_COLUMNS, start=1)
            ),
            f"SELECT {len(_CHECKED_COLUMNS) + 1}, 'itl_gaps_ms', run_index, request_index, line, "
            "NULL, g FROM (SELECT run_index, request_index, line, unnest(itl_gaps_ms) AS g "
            "FROM req) WHERE isnan(g) OR g < 0",
        ]
    )
    + " ORDER BY k, run_index, request_index LIMIT 1"
)
"""The first row a reader flagged, else the first NaN or negative value, column by column in
``_CHECKED_COLUMNS`` order, then the ITL gaps (each the first by run and request)."""
PERCENTILES = (("p50_ms", 0.5), ("p90_ms", 0.9), ("p95_ms", 0.95), ("p99_ms", 0.99))

REL_TOLERANCE = 1e-3
ABS_TOLERANCE_MS = 0.01
TOLERANCE_TEXT = "0.1% relative or 0.01 ms absolute, whichever is larger"
"""How far a tool's figure may sit from our SQL recomputation before it is reported."""


EMPTY_OUTPUT = "empty output: 0 output tokens"
"""The error a "successful" request with no output token is counted under."""


def max_object_size(size_bytes: int) -> int:
    """``read_json``'s ``maximum_object_size`` for a file of ``size_bytes``: DuckDB refuses a JSON
    object over its 16 MiB default, and a whole-file document (or one run line) can be bigger."""
    return max(size_bytes + 1, 1 << 24)


Locate = Callable[[int, int, "int | None", str], str]
"""(run index, request index, source line, staged column) -> where in the file that value is."""


class FileStaging(Connection):
    """The rows of one input file, in temporary tables private to this staging (its own
    connection to the ``shared_staging`` database, or a database of its own), closed with it;
    errors name the file. A large file within ``shared_staging(store)`` is staged in a catalog
    of its own attached to the store's database (``catalog``), kept past ``close`` once its
    rows are handed on (``_rows``)."""

    def __init__(self, path: Path, ddl: str, name: str | None = None) -> None:
        self.path = path
        self.name = str(path) if name is None else name
        """What messages call the file (``Probe.name``); ``path`` is where its bytes are."""
        self.catalog: str | None = None
        self._owner: duckdb.DuckDBPyConnection | None = None
        self._handed = False
        shared, in_store = staging_database(path)
        if shared is not None and in_store:
            super().__init__(cursor_of=shared)
            self.catalog, self._owner = new_catalog(shared), shared
            self.execute(f"ATTACH ':memory:' AS {self.catalog}")
            self.execute(f"USE {self.catalog}")
            self.execute(ddl.replace("CREATE TEMP TABLE", "CREATE TABLE", 1))
            return
        if shared is None:
            super().__init__()
        else:
            super().__init__(cursor_of=shared)
        self.execute(ddl)

    def _error(self, exc: duckdb.Error, doing: str) -> InputError:
        return _input_error(self.path, exc, self.name)

    def close(self) -> None:
        """Close this staging; its catalog in the store goes too unless its rows were handed on."""
        super().close()
        if self.catalog is not None and self._owner is not None and not self._handed:
            detach(self._owner, self.catalog)

    def _rows(self, select: str, table: str, order: str) -> Columns | StagedRows:
        """The staged rows as the store takes them: ``SELECT <select> FROM <table> <order>``
        (evidencepack's own SQL) as numpy columns, or, staged in the store's database, as
        ``StagedRows`` the store moves without leaving DuckDB, in the order they were staged:
        sorting a million rows by ``order`` cost 0.15 s of CPU and 170 MiB at the peak (the
        sort's copy beside both tables), and no reader relies on a store table's row order
        (each one that needs an order says it: ``ORDER BY`` run and request)."""
        if self.catalog is None or self._owner is None:
            result = Connection.execute(self, f"SELECT {select} FROM {table} {order}")
            columns: Columns = result.fetchnumpy()
            return columns
        names = Connection.execute(self, f"SELECT {select} FROM {table} LIMIT 0").description
        self._handed = True
        return StagedRows(
            owner=self._owner,
            catalog=self.catalog,
            select=f"SELECT {select} FROM {self.catalog}.main.{table}",
            names=tuple(d[0] for d in names),
        )


class Staging(FileStaging, SummaryReads):
    """The staged per-request rows of one file.

    A run's counts, token sums and window, and its distributions, are read in two statements
    (each for every run at once) and kept until the rows change (any ``execute`` from outside):
    a small file's cost is its number of statements."""

    def __init__(
        self,
        path: Path,
        locate: Locate,
        name: str | None = None,
        context: ReadContext = DEFAULT,
    ) -> None:
        self.locate = locate
        self.context = context
        """The read's settings: whether an empty output is a success (``finish``)."""
        self._summaries: dict[int, RunSummary] = {}
        self._distributions: dict[int, dict[str, tuple[Any, ...]]] = {}
        super().__init__(path, REQ_DDL, name)

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> Any:
        """Run one statement; what was read about the rows is read again after it."""
        self._summaries.clear()
        self._distributions.clear()
        return super().execute(sql, params)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """A query that changes no row (the summaries kept stay true)."""
        return super().execute(sql, params)

    # -- filling ----------------------------------------------------------------------------

    def insert(self, select_sql: str, params: Sequence[Any]) -> None:
        """``INSERT INTO req BY NAME <select_sql>``: columns the SELECT omits stay NULL."""
        self.execute(f"INSERT INTO req BY NAME {select_sql}", params)

    def insert_columns(self, columns: dict[str, Any]) -> None:
        """Insert a small columnar batch (lists of equal length) built in Python.

        DuckDB reads a NaN in a numpy float column as NULL, so NaN is refused here first.
        """
        batch = {name: list(values) for name, values in columns.items()}
        for name, values in batch.items():
            for row, value in enumerate(values):
                if isinstance(value, float) and math.isnan(value):
                    where = self.locate(
                        int(batch["run_index"][row]), int(batch["request_index"][row]), None, name
                    )
                    raise InputError(f"{self.name}: {where}: NaN is not a valid measurement")
        names = ", ".join(batch)  # our own column names, never input
        self._summaries.clear()
        self._distributions.clear()
        self.execute_over(
            "_batch", _as_arrays(batch), f"INSERT INTO req ({names}) SELECT {names} FROM _batch"
        )

    def finish(self) -> None:
        """Reject rows a reader flagged (``problem``), NaN and negative values, naming where
        they are; then derive TPOT. Two statements whatever the checks: a small file's cost is
        the number of statements, not its rows."""
        bad = self.execute(_FIRST_BAD_ROW).fetchone()
        if bad is not None:
            _, column, run_index, request_index, line, problem, value = bad
            where = self.locate(int(run_index), int(request_index), line, column)
            if column == "problem":
                raise InputError(f"{self.name}: {where}{problem}")
            what = "NaN" if math.isnan(value) else f"negative {value}"
            raise InputError(f"{self.name}: {where}: {what} is not a valid measurement")
        valid = self.context.empty_output_valid
        # A "success" that produced no token is an error, not a fast request (unless the spec
        # says an empty answer is right); TPOT by the canonical definition, the first token
        # excluded (an emptied row has no second token, so the old ``ok`` is the new one there).
        self.execute(
            "UPDATE req SET error = CASE WHEN ? AND ok AND output_tokens = 0 THEN ? ELSE error "
            "END, ok = ok AND NOT coalesce(? AND output_tokens = 0, false), "
            "tpot_ms = CASE WHEN ok AND output_tokens > 1 AND e2e_ms IS NOT NULL AND ttft_ms IS "
            "NOT NULL THEN (e2e_ms - ttft_ms) / (output_tokens - 1) ELSE tpot_ms END",
            [not valid, EMPTY_OUTPUT, not valid],
        )

    # -- summaries --------------------------------------------------------------------------

    def run_summary(self, run_index: int) -> RunSummary:
        """The summary of one staged run (every run's read by one statement)."""
        # Every run's counts, token sums and window in one statement, the first time any is
        # asked for after a write: a file of 50,000 appended runs costs one statement here, not
        # 50,000 (nor three per run).
        if not self._summaries:
            rows = self._read(
                "SELECT run_index, count(*), count(*) FILTER (WHERE ok), "
                "count(*) FILTER (WHERE error = ?), "
                "avg(input_tokens) FILTER (WHERE ok), avg(output_tokens) FILTER (WHERE ok), "
                "coalesce(sum(input_tokens) FILTER (WHERE ok), 0), "
                "coalesce(sum(output_tokens) FILTER (WHERE ok), 0), "
                "min(start_s) FILTER (WHERE ok), "
                "max(start_s + e2e_ms / 1000.0) FILTER (WHERE ok) "
                "FROM req GROUP BY run_index",
                [EMPTY_OUTPUT],
            ).fetchall()
            self._summaries = {int(r[0]): RunSummary(*r[1:]) for r in rows}
            self._summaries[-1] = NO_ROWS  # marks them as read, also for a file of no rows
        return self._summaries.get(run_index, NO_ROWS)

    @staticmethod
    def _source(slot: str) -> str:
        column = _COLUMN[slot]
        if slot == "itl":
            return f"SELECT unnest({column}) AS x FROM req WHERE ok AND run_index = ?"
        return f"SELECT {column} AS x FROM req WHERE ok AND run_index = ? AND {column} IS NOT NULL"

    def stats(
        self,
        run_index: int,
        slot: str,
        metric: LatencyMetric,
        definition: Definition,
        weighting: Weighting,
    ) -> LatencyStats | None:
        """The distribution of one staged column for one run, or None when it has no values."""
        if run_index not in self._distributions:
            # Every slot of the run in one statement, each aggregated over its own values.
            quantiles = [q for _, q in PERCENTILES]
            union = " UNION ALL ".join(
                f"SELECT '{name}' AS slot, x FROM ({self._source(name)})" for name in _COLUMN
            )
            rows = self._read(
                "SELECT slot, count(x), avg(x), quantile_cont(x, ?::DOUBLE[]), min(x), max(x), "
                f"stddev_pop(x) FROM ({union}) GROUP BY slot",
                [quantiles, *([run_index] * len(_COLUMN))],
            ).fetchall()
            self._distributions[run_index] = {row[0]: row[1:] for row in rows}
        return latency_stats(
            self._distributions[run_index].get(slot), metric, definition, weighting
        )

    def check(
        self, run_index: int, slot: str, ours: LatencyStats, tool: LatencyStats
    ) -> list[AggregateCheck]:
        """Compare the tool's mean and percentiles with the recomputed distribution."""

        def order_stats(indices: list[int]) -> list[float]:
            row = self._read(
                "SELECT list_transform(?::BIGINT[], lambda i: s[i]) FROM "
                f"(SELECT list_sort(list(x)) AS s FROM ({self._source(slot)}))",
                [indices, run_index],
            ).fetchone()
            assert row is not None
            bounds: list[float] = row[0]
            return bounds

        return compare(ours.metric, ours, tool, ours.count or 0, order_stats)

    def columns(self) -> Columns | StagedRows:
        """The staged rows for the store (``run_index`` becomes ``run_id`` there: see
        ``intake/load.py``): numpy columns, or ``StagedRows`` when staged in the store."""
        return self._rows(
            "run_index, request_index, ok, error, "
            "CAST(input_tokens AS BIGINT) AS input_tokens, "
            "CAST(output_tokens AS BIGINT) AS output_tokens, start_s, ttft_ms, e2e_ms, tpot_ms, "
            "tool_itl_ms, CAST(len(itl_gaps_ms) AS INTEGER) AS itl_gap_count, "
            "list_max(itl_gaps_ms) AS itl_gap_max_ms",
            "req",
            "ORDER BY run_index, request_index",
        )


def latency_stats(
    row: Sequence[Any] | None, metric: LatencyMetric, definition: Definition, weighting: Weighting
) -> LatencyStats | None:
    """One slot's distribution from its aggregate row (count, mean, quantiles, min, max, std),
    or None when it has no values."""
    if row is None or not row[0]:
        return None
    count, mean, qs, low, high, std = row
    values = dict(zip((name for name, _ in PERCENTILES), qs, strict=True))
    return LatencyStats(
        metric=metric,
        definition=definition,
        weighting=weighting,
        source="per_request",
        count=int(count),
        mean_ms=mean,
        min_ms=low,
        max_ms=high,
        std_ms=std,
        **values,
    )


def _as_arrays(batch: dict[str, list[Any]]) -> dict[str, Any]:
    import numpy as np  # a large file never builds columns in Python

    out: dict[str, Any] = {}
    for name, values in batch.items():
        if name == "itl_gaps_ms":
            array = np.empty(len(values), dtype=object)
            array[:] = values
            out[name] = array
        elif name in ("error",):
            out[name] = np.array(values, dtype=object)
        else:
            mask = [v is None for v in values]
            filled = [0 if v is None else v for v in values]
            out[name] = np.ma.masked_array(np.array(filled), mask=mask)
    return out


def compare(
    metric: str,
    ours: LatencyStats,
    tool: LatencyStats,
    count: int,
    order_stats: Callable[[list[int]], list[float]],
) -> list[AggregateCheck]:
    """The tool's mean and percentiles against ours, recomputed from ``count`` values.

    A tool's percentile is accepted anywhere between the order statistics a standard
    percentile definition could pick; ``order_stats`` returns the sorted values at those
    1-based indices (from the staging table within a file, from the store across files).
    """
    checks: list[AggregateCheck] = []
    if tool.mean_ms is not None and ours.mean_ms is not None:
        tol = tolerance(ours.mean_ms)
        checks.append(
            make_check(
                metric, "mean", tool.mean_ms, ours.mean_ms, ours.mean_ms - tol, ours.mean_ms + tol
            )
        )
    wanted = [(name, q) for name, q in PERCENTILES if getattr(tool, name) is not None]
    if not wanted or count == 0:
        return checks
    indices: list[int] = []
    for _, q in wanted:
        indices += [
            clip_index(math.floor(q * count), count),
            clip_index(math.ceil(q * count) + 1, count),
        ]
    bounds = order_stats(indices)
    for k, (name, _) in enumerate(wanted):
        low, high = bounds[2 * k], bounds[2 * k + 1]
        checks.append(
            make_check(
                metric,
                name.removesuffix("_ms"),
                getattr(tool, name),
                getattr(ours, name),
                low - tolerance(low),
                high + tolerance(high),
            )
        )
    return checks


def clip_index(index: int, n: int) -> int:
    """``index`` clipped to 1..n (a percentile's rank within n rows)."""
    return max(1, min(n, index))


def tolerance(value: float) -> float:
    """How far a tool's figure may be from the recomputed one: the larger of both tolerances."""
    return max(ABS_TOLERANCE_MS, REL_TOLERANCE * abs(value))


def make_check(
    metric: str, statistic: str, tool: float, recomputed: float, low: float, high: float
) -> AggregateCheck:
    """A tool's figure against the one recomputed from the rows: ok within [low, high]."""
    return AggregateCheck(
        metric=metric,
        statistic=statistic,
        tool_value=tool,
        recomputed_value=recomputed,
        lower=low,
        upper=high,
        ok=low <= tool <= high,
    )


_DUCKDB_LINE = re.compile(r"line (\d+)")
"""The line DuckDB's own error text names (DuckDB raises no line as a value): read once, from
DuckDB's message, into the error's ``line``; never from one of our problems."""
_DUCKDB_FILE = re.compile(r' in file "[^"]*"')
"""DuckDB's own mention of the file it read (a build's private copy), left out of messages."""


def _first_bad_json_line(path: Path, name: str) -> InputError | None:
    try:
        for _ in iter_json_lines(path, name):
            pass
    except InputError as exc:
        return exc
    return None


def _input_error(path: Path, exc: duckdb.Error, name: str) -> InputError:
    """A DuckDB reader error in a user's words: the file and the line.

    DuckDB's own line numbers for malformed JSON are not exact, so on that path the file is
    re-scanned line by line to name the first bad line.
    """
    text = str(exc).split("\n")[0]
    if "Malformed JSON" in text:
        located = _first_bad_json_line(path, name)
        if located is not None:
            return located
    text = re.sub(r"^[A-Za-z ]+Error: ", "", text)
    text = _DUCKDB_FILE.sub("", text)  # DuckDB names the bytes' place; the message names ``name``
    if "unexpected end of data" in text:
        return InputError(f"truncated JSON: the file ends inside a record ({text})", file=name)
    match = _DUCKDB_LINE.search(text)
    line = int(match.group(1)) if match else None
    return InputError(f"cannot read per-request rows: {text}", file=name, line=line)
