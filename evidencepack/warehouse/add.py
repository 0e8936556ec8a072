"""``warehouse add``: verify each pack (or watch folder), then write its rows and catalog it, whole
or not at all. Watches are added after every pack of the same call, so ``add PACK WATCH`` works in
either order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from . import storage
from .catalog import Catalog, open_catalog
from .packs import OpenedPack, opened_pack
from .rows import pack_rows
from .watches import binding_problems, is_watch, watch_row

if TYPE_CHECKING:
    from ..signing.verify import VerifyPolicy


@dataclass(frozen=True)
class AddOutcome:
    """What ``add`` did with one pack or watch: added, skipped (already held) or refused (not
    verified, or a watch of a pack the warehouse does not hold)."""

    source: str
    status: Literal["added", "skipped", "refused"]
    digest: str | None = None
    """A pack's evidence digest; a watch's digest (sha256 of its watch.json)."""
    decision_id: str | None = None
    problems: tuple[str, ...] = ()
    requests: int | None = None
    """With ``--requests``: how many per-request rows were added."""
    kind: Literal["pack", "watch"] = "pack"
    watch_status: str | None = None
    """A watch's status (holds, degraded, broken) and its date, e.g. ``broken as of 2027-03-01``."""


def add_packs(
    root: Path,
    packs: Sequence[Path],
    policy: VerifyPolicy,
    catalog: Catalog | None = None,
    *,
    requests: bool = False,
) -> list[AddOutcome]:
    """Add each pack (folder or archive) to the warehouse in ``root``, one at a time; with
    ``requests``, its per-request rows too (table ``requests``).

    A pack that does not verify against ``policy`` is refused and nothing of it is written; a
    pack whose evidence digest is already held is skipped. Verification runs unlocked, so
    several processes verify at once; each pack is then written under the warehouse's lock.
    """
    catalog = catalog or open_catalog(root)
    with storage.locked(root, exclusive=True):
        storage.recover(root, catalog)
    outcomes: dict[int, AddOutcome] = {}
    watches: list[int] = []
    for at, path in enumerate(packs):
        with opened_pack(path, policy) as pack:
            if pack.ok and pack.folder is not None and is_watch(pack.folder):
                watches.append(at)  # after the packs: its pack may come later in the list
                continue
            if not pack.ok or pack.folder is None or pack.digest is None:
                outcomes[at] = AddOutcome(str(path), "refused", pack.digest, problems=pack.problems)
                continue
            with storage.locked(root, exclusive=True):
                outcomes[at] = _write(root, path, pack, pack.folder, pack.digest, catalog, requests)
    for at in watches:
        with opened_pack(packs[at], policy) as pack:
            outcomes[at] = _add_watch(root, packs[at], pack, catalog)
    return [outcomes[at] for at in range(len(packs))]


def _add_watch(root: Path, path: Path, opened: OpenedPack, catalog: Catalog) -> AddOutcome:
    """Add one verified watch folder, bound to a pack the warehouse holds, under the lock."""
    if not opened.ok or opened.folder is None or not is_watch(opened.folder):
        # Verified in the first pass; changed since (checked again, as everything is).
        problems = opened.problems or (f"{path}: no longer a watch folder",)
        return AddOutcome(str(path), "refused", problems=problems, kind="watch")
    report, row = watch_row(
        opened.folder,
        label=str(path),
        source=str(opened.source),
        source_kind=opened.kind,
        signer=opened.report.signer if opened.report else None,
        statement_sha256=opened.bundle_sha256 or "",
    )
    said = f"{report.status} as of {report.as_of.isoformat()}"
    digest = row.watch_digest

    def done(
        status: Literal["added", "skipped", "refused"], problems: tuple[str, ...] = ()
    ) -> AddOutcome:
        return AddOutcome(
            str(path), status, digest, row.decision_id, problems, kind="watch", watch_status=said
        )

    with storage.locked(root, exclusive=True):
        if digest in {w.watch_digest for w in catalog.held_watches()}:
            return done("skipped")
        unbound = binding_problems(report, opened.folder, catalog.held_packs())
        if unbound:
            return done("refused", tuple(unbound))
        try:
            moves = storage.stage_tables(
                root, digest, row.decision_date.isoformat(), {"watches": [row]}
            )
            files = storage.publish(root, digest, moves)
            recorded = catalog.record_watch(row, files)
        except Exception:
            storage.roll_back(root, digest)
            raise
        if not recorded:
            storage.roll_back(root, digest)
            return done("skipped")
        storage.finish(root, digest)
        return done("added")


def _write(
    root: Path,
    path: Path,
    pack: OpenedPack,
    folder: Path,
    digest: str,
    catalog: Catalog,
    requests: bool,
) -> AddOutcome:
    if digest in catalog.held_digests():
        return AddOutcome(str(path), "skipped", digest)
    rows = pack_rows(
        folder,
        label=str(path),
        source=str(pack.source),
        source_kind=pack.kind,
        signer=pack.report.signer if pack.report else None,
        requests=requests,
    )
    try:
        moves, request_rows = storage.stage_pack(root, rows)
        files = storage.publish(root, rows.digest, moves)
        recorded = catalog.record(rows.pack, files)
    except Exception:
        storage.roll_back(root, rows.digest)
        raise
    if not recorded:
        # Another writer sharing this catalog (not this folder's lock) held it first.
        storage.roll_back(root, rows.digest)
        return AddOutcome(str(path), "skipped", digest)
    storage.finish(root, rows.digest)
    return AddOutcome(str(path), "added", rows.digest, rows.decision_id, requests=request_rows)
