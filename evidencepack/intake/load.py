"""Put a ParsedInput into the store, all or nothing: the file, its runs or score sets (through
``store.runs``), its per-request rows and per-item scores in bulk, then the cross-checks with
its companion files (``crosscheck``). Loading the same file again is a no-op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import EvidencePackError, InputError
from ..readers.base import ParsedInput
from ..readers.models import ServingRun
from ..staging.stage import EMPTY_OUTPUT
from ..store import Store
from ..store.staged import StagedRows
from .crosscheck import link_companions
from .stored import insert_run, insert_runs, insert_set, pairing_keys


def load_input(store: Store, parsed: ParsedInput, *, role: str, candidate: str | None) -> None:
    """Store one parsed file under ``role`` for ``candidate``; loading it again is a no-op.

    The same bytes cannot be evidence for two candidates or roles: that is an InputError.
    Rows staged in the store's own database (``StagedRows``) are moved by one
    ``INSERT ... SELECT`` and released after, whatever happened.
    """
    try:
        _load(store, parsed, role=role, candidate=candidate)
    finally:
        for rows in (parsed.requests, parsed.items):
            if isinstance(rows, StagedRows):
                rows.release()


def _load(store: Store, parsed: ParsedInput, *, role: str, candidate: str | None) -> None:
    ids = [r.run_id for r in parsed.runs] + [s.set_id for s in parsed.score_sets]
    if ids and _already_loaded(store, parsed, ids, role, candidate):
        return
    owner = {"role": role, "candidate": candidate}
    runs = [run.model_copy(update=owner) for run in parsed.runs]
    with store.transaction():
        store.record_file(parsed.file, role)
        for run in runs:
            insert_run(store, parsed.file, run)
        for score_set in parsed.score_sets:
            insert_set(store, parsed.file, score_set.model_copy(update=owner))
        run_ids = [run.run_id for run in sorted(parsed.runs, key=lambda r: r.index)]
        set_ids = [s.set_id for s in sorted(parsed.score_sets, key=lambda s: s.index)]
        if parsed.requests is not None:
            store.insert_columns(
                "run_requests", parsed.requests, decode={"run_id": ("run_index", run_ids)}
            )
        if parsed.items is not None:
            store.insert_columns(
                "score_items", parsed.items, decode={"set_id": ("set_index", set_ids)}
            )
        link_companions(store, runs)


def load_inputs(
    store: Store, parsed: Sequence[ParsedInput], *, role: str, candidate: str | None
) -> list[int] | None:
    """Store many files' serving runs in one transaction, with the same rows ``load_input``
    stores for each in turn, when that is all it would do: files of runs only, and no run any
    stored or new run could be cross-checked with (``link_companions`` would find nothing).
    Returns the places of the files left for the caller to load alone after it (files whose
    runs were stored before, or are those of an earlier file of the batch: loading them stores
    nothing, or refuses them); None, with nothing stored, when the files are not such a batch
    or a statement fails: the caller then loads each file alone, as it always did."""
    if not parsed or not all(_plain_runs(p) for p in parsed):
        return None
    every = [run.run_id for p in parsed for run in p.runs]
    stored = {row["run_id"] for row in store.rows(_LOADED, [every, every])}
    seen: set[str] = set()
    left = []
    for place, p in enumerate(parsed):
        ids = {run.run_id for run in p.runs}
        if ids & (stored | seen):
            left.append(place)
        seen |= ids
    parsed = [p for place, p in enumerate(parsed) if place not in left]
    if not parsed:
        return left
    owner = {"role": role, "candidate": candidate}
    runs = [(p.file, run.model_copy(update=owner)) for p in parsed for run in p.runs]
    if _may_pair(store, parsed, [run for _, run in runs], candidate):
        return None
    run_ids: list[str] = []
    columns: dict[str, list[Any]] = {}
    for p in parsed:
        if p.requests is not None:
            assert not isinstance(p.requests, StagedRows)
            for name, values in p.requests.items():
                if name == "run_index":
                    values = values + len(run_ids)
                columns.setdefault(name, []).append(values)
        run_ids += [run.run_id for run in sorted(p.runs, key=lambda r: r.index)]
    try:
        with store.transaction():
            store.record_files([p.file for p in parsed], role)
            insert_runs(store, runs)
            if columns:
                joined = {name: _joined(parts) for name, parts in columns.items()}
                store.insert_columns(
                    "run_requests", joined, decode={"run_id": ("run_index", run_ids)}
                )
    except EvidencePackError:  # rolled back: each file alone says what is wrong
        return None
    return left


def _plain_runs(parsed: ParsedInput) -> bool:
    return (
        bool(parsed.runs)
        and not parsed.score_sets
        and parsed.items is None
        and not (isinstance(parsed.requests, StagedRows))
    )


def _may_pair(
    store: Store, parsed: Sequence[ParsedInput], runs: list[ServingRun], candidate: str | None
) -> bool:
    """Whether any of ``runs`` could be paired with a stored run or another of them: the
    criteria of ``crosscheck`` (tool, rows on one side only, the same completed count as the
    tool wrote it) without the start times, so a batch never skips a pair."""
    empty: dict[str, int] = {}
    for p in parsed:
        if p.requests is None:
            continue
        assert not isinstance(p.requests, StagedRows)
        ordered = sorted(p.runs, key=lambda r: r.index)
        errors = np.ma.filled(np.asarray(p.requests["error"], dtype=object), None)
        for index, error in zip(np.asarray(p.requests["run_index"]), errors, strict=True):
            if error == EMPTY_OUTPUT:
                run_id = ordered[int(index)].run_id
                empty[run_id] = empty.get(run_id, 0) + 1
    mine = [
        (
            run.tool,
            bool(run.per_request_rows),
            (run.requests_completed or 0) + empty.get(run.run_id, 0),
        )
        for run in runs
    ]
    tools = sorted({tool for tool, _, _ in mine})
    known = pairing_keys(store, candidate=candidate, tools=tools, empty_error=EMPTY_OUTPUT)
    known |= set(mine)
    return any(done and (tool, not rows, done) in known for tool, rows, done in mine)


_LOADED = (
    "SELECT run_id FROM serving_runs WHERE list_contains(?::VARCHAR[], run_id) "
    "UNION ALL SELECT set_id FROM score_sets WHERE list_contains(?::VARCHAR[], set_id)"
)


def _already_loaded(
    store: Store, parsed: ParsedInput, ids: list[str], role: str, candidate: str | None
) -> bool:
    found = store.rows(
        "SELECT role, candidate FROM serving_runs WHERE list_contains(?::VARCHAR[], run_id) "
        "UNION ALL SELECT role, candidate FROM score_sets "
        "WHERE list_contains(?::VARCHAR[], set_id) "
        "ORDER BY role, candidate",
        [ids, ids],
    )
    if not found:
        return False
    if all(row["role"] == role and row["candidate"] == candidate for row in found):
        return True
    other = found[0]
    raise InputError(
        f"already loaded as {other['role']} evidence for candidate {other['candidate']!r}; "
        f"the same file cannot also be {role} evidence for {candidate!r}",
        file=parsed.file.path,
    )


def _joined(parts: list[Any]) -> Any:
    """One column of many files' rows, masks kept (NULL stays NULL)."""
    return np.ma.concatenate(parts)  # type: ignore[no-untyped-call]
