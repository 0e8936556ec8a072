"""``warehouse add``: verify each pack, then write its rows and catalog it, whole or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from . import storage
from .catalog import held_digests, record_packs
from .packs import opened_pack
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


def add_packs(root: Path, packs: Sequence[Path], policy: VerifyPolicy) -> list[AddOutcome]:
    """Add each pack (folder or archive) to the warehouse in ``root``, one at a time.

    A pack that does not verify against ``policy`` is refused and nothing of it is written; a
    pack whose evidence digest is already held is skipped.
    """
    outcomes = []
    with storage.locked(root, exclusive=True):
        storage.recover(root)
        held = held_digests(root)
        for path in packs:
            outcome = _add_one(root, path, policy, held)
            if outcome.digest and outcome.status == "added":
                held.add(outcome.digest)
            outcomes.append(outcome)
    return outcomes


def _add_one(root: Path, path: Path, policy: VerifyPolicy, held: set[str]) -> AddOutcome:
    with opened_pack(path, policy) as pack:
        if not pack.ok or pack.folder is None or pack.digest is None:
            return AddOutcome(str(path), "refused", pack.digest, problems=pack.problems)
        if pack.digest in held:
            return AddOutcome(str(path), "skipped", pack.digest)
        signer = pack.report.signer if pack.report else None
        rows = pack_rows(
            pack.folder,
            label=str(path),
            source=str(pack.source),
            source_kind=pack.kind,
            signer=signer,
        )
        moves = storage.stage_pack(root, rows)
    try:
        storage.publish(root, rows.digest, moves)
        record_packs(root, [rows.tables["packs"][0]])  # type: ignore[list-item]
    except Exception:
        storage.roll_back(root, rows.digest)
        raise
    storage.finish(root, rows.digest)
    return AddOutcome(str(path), "added", rows.digest, rows.decision_id)
