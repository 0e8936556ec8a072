"""The staging database: validation, SQL percentiles, and the tolerance of the checks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from evidencepack.errors import InputError
from evidencepack.readers._runs import tool_stats
from evidencepack.staging.stage import Staging


def _staging(tmp_path: Path, ttft: list[float]) -> Staging:
    staging = Staging(tmp_path / "f.json", lambda run, req, line, col: f"$.rows[{req}].{col}")
    staging.insert_columns(
        {
            "run_index": [0] * len(ttft),
            "request_index": list(range(len(ttft))),
            "ok": [True] * len(ttft),
            "ttft_ms": ttft,
        }
    )
    return staging


def test_percentiles_and_what_counts_as_agreement(tmp_path: Path) -> None:
    values = [float(v) for v in range(1, 25)]  # 24 requests, like guidellm's real sweep
    staging = _staging(tmp_path, values)
    staging.finish()
    ours = staging.stats(0, "ttft", "ttft", "ttft", "request")
    assert ours is not None
    assert ours.p99_ms == pytest.approx(np.percentile(values, 99))
    nearest_rank = values[math.ceil(0.99 * len(values)) - 1]
    lower = np.percentile(values, 99, method="lower")
    for tool_p99, ok in ((nearest_rank, True), (lower, True), (ours.p99_ms, True), (30.0, False)):
        tool = tool_stats("ttft", {"mean": float(np.mean(values)), "p99": tool_p99})
        assert tool is not None
        checks = staging.check(0, "ttft", ours, tool)
        assert [(c.statistic, c.ok) for c in checks] == [("mean", True), ("p99", ok)]
    off = tool_stats("ttft", {"mean": float(np.mean(values)) * 1.01})
    assert off is not None
    assert [c.ok for c in staging.check(0, "ttft", ours, off)] == [False]


def test_nan_and_negative_values_are_located(tmp_path: Path) -> None:
    # A Python-built batch is refused on the way in (DuckDB would read the NaN as NULL) ...
    with pytest.raises(InputError, match=r"f\.json: \$\.rows\[1\]\.ttft_ms: NaN"):
        _staging(tmp_path, [1.0, float("nan"), 3.0])
    # ... and a NaN read by DuckDB's own readers is refused by finish().
    staging = Staging(tmp_path / "g.jsonl", lambda run, req, line, col: f"line {line}: {col}")
    (tmp_path / "g.jsonl").write_text('{"t": 1.0}\n{"t": NaN}\n')
    staging.insert(
        "SELECT 0 AS run_index, line - 1 AS request_index, line, true AS ok, t AS ttft_ms "
        "FROM (SELECT row_number() OVER () AS line, t FROM read_json(?, columns={'t': 'DOUBLE'}))",
        [str(tmp_path / "g.jsonl")],
    )
    with pytest.raises(InputError, match=r"g\.jsonl: line 2: ttft_ms: NaN"):
        staging.finish()
    staging = _staging(tmp_path, [1.0, 2.0, -3.0])
    with pytest.raises(InputError, match=r"\$\.rows\[2\]\.ttft_ms: negative -3\.0"):
        staging.finish()


def test_tpot_excludes_the_first_token(tmp_path: Path) -> None:
    staging = Staging(tmp_path / "f.json", lambda *a: "?")
    staging.insert_columns(
        {
            "run_index": [0, 0, 0],
            "request_index": [0, 1, 2],
            "ok": [True, True, True],
            "output_tokens": [11.0, 1.0, 5.0],
            "ttft_ms": [100.0, 50.0, 20.0],
            "e2e_ms": [300.0, 50.0, 60.0],
        }
    )
    staging.finish()
    tpot = staging.stats(0, "tpot", "tpot", "tpot_excl_first", "request")
    # (300 - 100) / 10 and (60 - 20) / 4; a one-token request has no TPOT.
    assert tpot is not None
    assert tpot.count == 2
    assert tpot.mean_ms == pytest.approx(15.0)


def test_each_file_stages_privately_without_a_database_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a database opened per staged file cost more than reading a small file. Within
    ``shared_staging`` (a build's intake) files share this thread's one staging database, each
    in temporary tables of its own: two files staged at once never see each other's rows, and
    the database is closed when the block ends."""
    import duckdb

    from evidencepack.staging import stage

    opened: list[duckdb.DuckDBPyConnection] = []
    connect = duckdb.connect

    def counted(*args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        opened.append(connect(*args, **kwargs))  # type: ignore[arg-type]
        return opened[-1]

    monkeypatch.setattr(stage.duckdb, "connect", counted)
    with stage.shared_staging():
        first = _staging(tmp_path, [1.0, 2.0, 3.0])
        second = _staging(tmp_path, [5.0])
        assert (first.counts(0), second.counts(0)) == ((3, 3), (1, 1))
        first.close()
        third = _staging(tmp_path, [7.0, 8.0])
        assert (second.counts(0), third.counts(0)) == ((1, 1), (2, 2))
        second.close()
        third.close()
    assert len(opened) == 1
    with pytest.raises(duckdb.ConnectionException):
        opened[0].execute("SELECT 1")  # closed with the block: nothing stays open
    alone = _staging(tmp_path, [1.0])  # outside the block: a database of its own
    assert alone.counts(0) == (1, 1)
    alone.close()
    assert len(opened) == 2
