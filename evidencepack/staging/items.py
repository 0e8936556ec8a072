"""Per-item scores staged in DuckDB, private to one file, validated and summarised per score set.

Readers fill ``items`` with DuckDB's JSON/CSV readers or one columnar batch (inspect-ai's zip
members are read one sample at a time, so only their scores are held). A set is ``binary``
when every score is 0 or 1; ``passed`` is then ``score = 1``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError
from ..store.staged import StagedRows
from .figures import Columns
from .stage import FileStaging

ITEMS_DDL = """
CREATE TEMP TABLE items (
    set_index INTEGER NOT NULL,
    item_id VARCHAR,
    score DOUBLE,
    label VARCHAR,
    metadata JSON,
    line BIGINT
)
"""

LocateItem = Callable[[int, "int | None", str], str]
"""(set index, source line, item id) -> where in the file that item is."""


@dataclass(frozen=True)
class SetSummary:
    """One score set's items: count, mean, binary or continuous, and how many passed."""

    n_items: int
    mean: float | None
    kind: Literal["binary", "continuous"] | None
    n_passed: int | None


class ItemStaging(FileStaging):
    """The staged per-item scores of one file."""

    def __init__(self, path: Path, locate: LocateItem, name: str | None = None) -> None:
        self.locate = locate
        super().__init__(path, ITEMS_DDL, name)

    def insert(self, select_sql: str, params: Sequence[Any]) -> None:
        """``INSERT INTO items BY NAME <select_sql>``: columns the SELECT omits stay NULL."""
        self.execute(f"INSERT INTO items BY NAME {select_sql}", params)

    def insert_columns(
        self,
        set_index: int,
        ids: list[str],
        scores: list[float],
        lines: list[int | None] | None = None,
    ) -> None:
        """Insert one set's items built in Python (ids, scores, source lines) as one batch."""
        import numpy as np  # loaded by the first batch built in Python, not at import

        batch = {
            "set_index": np.full(len(ids), set_index, dtype=np.int32),
            "item_id": np.array(ids, dtype=object),
            "score": np.array(scores, dtype=np.float64),
            "line": np.ma.masked_array(
                np.array([0 if v is None else v for v in (lines or [None] * len(ids))]),
                mask=[v is None for v in (lines or [None] * len(ids))],
            ),
        }
        self.execute_over(
            "_items",
            batch,
            "INSERT INTO items (set_index, item_id, score, line) "
            "SELECT set_index, item_id, score, line FROM _items",
        )

    def finish(self) -> None:
        """Every item has an id and a finite score, and no id repeats within a set."""
        bad = self.execute(
            "SELECT set_index, line, item_id, score FROM items "
            "WHERE item_id IS NULL OR item_id = '' OR score IS NULL OR isnan(score) "
            "OR isinf(score) ORDER BY set_index, line NULLS LAST, item_id LIMIT 1"
        ).fetchone()
        if bad is not None:
            set_index, line, item, score = bad
            where = self.locate(int(set_index), line, item or "?")
            if not item:
                raise InputError(f"{self.name}: {where}: the item has no item_id")
            what = "no numeric score" if score is None else f"score {score} is not a number"
            raise InputError(f"{self.name}: {where}: item {item!r} has {what}")
        dup = self.execute(
            "SELECT set_index, item_id, min(line), count(*) FROM items "
            "GROUP BY set_index, item_id HAVING count(*) > 1 ORDER BY 1, 2 LIMIT 1"
        ).fetchone()
        if dup is not None:
            where = self.locate(int(dup[0]), dup[2], dup[1])
            raise InputError(
                f"{self.name}: {where}: item_id {dup[1]!r} appears {dup[3]} times in one score set"
            )

    def summary(self, set_index: int) -> SetSummary:
        """The summary of one staged score set (binary when every score is 0 or 1)."""
        row = self.execute(
            "SELECT count(*), avg(score), bool_and(score IN (0, 1)), "
            "count(*) FILTER (WHERE score = 1) FROM items WHERE set_index = ?",
            [set_index],
        ).fetchone()
        n = int(row[0]) if row else 0
        if n == 0:
            return SetSummary(0, None, None, None)
        binary = bool(row[2])
        mean = row[1]
        return SetSummary(
            n_items=n,
            mean=None if mean is None or math.isnan(mean) else float(mean),
            kind="binary" if binary else "continuous",
            n_passed=int(row[3]) if binary else None,
        )

    def columns(self) -> Columns | StagedRows:
        """The staged items for the store (``set_index`` becomes ``set_id`` there): numpy
        columns, or ``StagedRows`` when staged in the store."""
        return self._rows(
            "set_index, item_id, score, label, "
            "CASE WHEN bool_and(score IN (0, 1)) OVER (PARTITION BY set_index) "
            "     THEN score = 1 END AS passed, CAST(metadata AS VARCHAR) AS metadata",
            "items",
            "ORDER BY set_index, line NULLS LAST, item_id",
        )
