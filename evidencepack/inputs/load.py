"""Put a ParsedInput into the store, all or nothing: the file, its runs or score sets (through
``store.runs``), its per-request rows and per-item scores in bulk, then the cross-checks with
its companion files (``crosscheck``). Loading the same file again is a no-op.
"""

from __future__ import annotations

from ..errors import InputError
from ..store import Store
from ..store.staged import StagedRows
from .base import ParsedInput
from .crosscheck import link_companions
from .stored import insert_run, insert_set


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
