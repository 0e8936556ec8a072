"""The item ids of the spec's dataset file (``dataset.path``), read once at intake.

A score set's item ids are matched with them: an id the dataset does not hold is a finding, an
item the set does not score is missing. The ids are the ``id``, ``item_id``, ``doc_id``,
``sample_id`` or ``uid`` of each JSON line (``.jsonl``), of each object of a JSON array
(``.json``) or of each CSV row (``.csv``), whichever the first item names. A file that names no
ids is matched by ``dataset.size_items`` alone, and the reason is kept.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..readers._json import iter_json_lines
from .records import InputFile

MAX_JSON_DATASET_BYTES = 64 << 20
"""The largest JSON-array dataset read whole (JSON lines and CSV are streamed)."""
ID_KEYS = ("id", "item_id", "doc_id", "sample_id", "uid")
"""The field names an item's id is read from, in this order of preference."""


@dataclass(frozen=True)
class DatasetItems:
    """What the dataset file says about its items: their ids, or why it names none."""

    file: InputFile
    ids: frozenset[str] | None
    """Every item id the file holds; None when it names no ids (``problem`` says why)."""
    count: int | None
    """How many items the file holds; None when it could not be read."""
    key: str | None = None
    """The field the ids were read from."""
    problem: str | None = None
    """Why the ids could not be read (the dataset is then matched by its size alone)."""


def read_dataset_items(path: Path, file: InputFile, name: str) -> DatasetItems:
    """The item ids of a dataset file (its private copy at ``path``, called ``name``)."""
    suffix = Path(name).suffix.lower()
    try:
        if suffix in (".jsonl", ".ndjson"):
            rows: Iterable[tuple[str, Any]] = (
                (f"line {n}", v) for n, v in iter_json_lines(path, name)
            )
        elif suffix == ".json":
            rows = _json_array(path, name)
        elif suffix == ".csv":
            rows = _csv_rows(path)
        else:
            return DatasetItems(
                file,
                None,
                None,
                problem=f"{name}: a {suffix or 'suffix-less'} file's item ids "
                "are not read (JSON lines, a JSON array or CSV are)",
            )
        return _ids(file, name, rows)
    except (InputError, OSError, UnicodeDecodeError, csv.Error) as exc:
        detail = exc.message if isinstance(exc, InputError) else str(exc)
        return DatasetItems(file, None, None, problem=f"{name}: cannot read its item ids: {detail}")


def _json_array(path: Path, name: str) -> Iterator[tuple[str, Any]]:
    size = path.stat().st_size
    if size > MAX_JSON_DATASET_BYTES:
        raise InputError(
            f"{name}: {size:,} bytes is too large to read as one JSON document "
            f"(at most {MAX_JSON_DATASET_BYTES:,}): give the items as JSON lines"
        )
    with path.open("rb") as handle:
        try:
            value = json.load(handle)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InputError(f"{name}: not a JSON document: {exc}") from exc
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        value = lists[0] if len(lists) == 1 else value
    if not isinstance(value, list):
        raise InputError(f"{name}: expected a JSON array of items")
    for index, item in enumerate(value):
        yield f"item {index}", item


def _csv_rows(path: Path) -> Iterator[tuple[str, Any]]:
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            yield f"line {number}", row


def _ids(file: InputFile, name: str, rows: Iterable[tuple[str, Any]]) -> DatasetItems:
    key: str | None = None
    ids: set[str] = set()
    count = 0
    for where, row in rows:
        count += 1
        if not isinstance(row, dict):
            return DatasetItems(file, None, None, problem=f"{name}: {where}: not an object")
        if key is None:
            key = next((k for k in ID_KEYS if k in row), None)
            if key is None:
                return DatasetItems(
                    file,
                    None,
                    None,
                    problem=f"{name}: {where}: the items name no id ({', '.join(ID_KEYS)})",
                )
        value = row.get(key)
        if isinstance(value, bool) or not isinstance(value, str | int) or str(value) == "":
            return DatasetItems(
                file, None, None, key=key, problem=f"{name}: {where}: {key} is not an id"
            )
        text = str(value)
        if text in ids:
            return DatasetItems(
                file, None, None, key=key, problem=f"{name}: {where}: {key} {text!r} repeats"
            )
        ids.add(text)
    return DatasetItems(file, frozenset(ids), count, key=key)
