"""``warehouse add``: verify each pack, then write its rows and catalog it, whole or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from . import storage
from .catalog import Catalog, open_catalog
from .packs import OpenedPack, opened_pack
from .rows import pack_rows

if TYPE_CHECKING:
    from ..signing.verify import VerifyPolicy


@dataclass(frozen=True)
class AddOutcome:
    """What ``add`` did with one pack: added, skipped (already held) or refused (not verified)."""

    source: str
    status: Literal["added", "skipped", "refused"]
    digest: str | None = None
    decision_id: str | None = None
    problems: tuple[str, ...] = ()
    requests: int | None = None
    """With ``--requests``: how many per-request rows were added."""


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
    outcomes = []
    for path in packs:
        with opened_pack(path, policy) as pack:
            if not pack.ok or pack.folder is None or pack.digest is None:
                outcomes.append(
                    AddOutcome(str(path), "refused", pack.digest, problems=pack.problems)
                )
                continue
            with storage.locked(root, exclusive=True):
                outcome = _write(root, path, pack, pack.folder, pack.digest, catalog, requests)
                outcomes.append(outcome)
    return outcomes


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
