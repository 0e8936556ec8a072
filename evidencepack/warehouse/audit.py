"""``warehouse verify``: re-verify every held pack and watch from where it was added (a scheduled
audit), and the warehouse's own files: each recorded Parquet file against the sha256 the catalog
recorded when it was written, every file on disk owned by a held pack or watch, every held pack
and watch with its files, every watch beside its pack, and each decision id held once."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from . import storage
from .catalog import Catalog, DuckDBCatalog, open_catalog
from .models import PackRow, WatchRow
from .packs import opened_pack
from .watches import WATCH_DOCUMENT

if TYPE_CHECKING:
    from ..signing.verify import VerifyPolicy


@dataclass(frozen=True)
class AuditResult:
    """One held pack re-verified: ok, failed (does not verify, or another pack) or missing."""

    digest: str
    decision_id: str
    source: str
    status: Literal["ok", "failed", "missing"]
    problems: tuple[str, ...] = ()
    kind: Literal["pack", "watch"] = "pack"
    """A held pack (``digest``: its evidence digest) or a held watch (its watch digest)."""


def dataset_problems(root: Path, catalog: Catalog) -> list[str]:
    """What is wrong with the warehouse's own files (call under a lock): a recorded file missing
    or changed since it was written, a Parquet file no held pack owns, a held pack without its
    files, one decision id held by two packs."""
    problems = []
    held = catalog.held_files()
    packs = catalog.held_packs()
    watches = catalog.held_watches()
    digests = {p.pack_digest for p in packs} | {w.watch_digest for w in watches}
    for name, recorded in sorted(held.items()):
        path = root / name
        if path.is_symlink() or not path.is_file():
            problems.append(f"{path}: recorded, but missing (or not a regular file)")
        elif storage.file_digest(path) != recorded.sha256:
            problems.append(
                f"{path}: changed since it was written (sha256 {storage.file_digest(path)}, "
                f"the catalog records {recorded.sha256})"
            )
        strangers = [d for d in recorded.packs if d not in digests]
        if strangers:
            problems.append(
                f"{path}: holds rows of {strangers[0]}, which the catalog does not hold (as a "
                "pack or watch)"
            )
    tables = root / storage.TABLES_DIR
    on_disk = sorted(tables.rglob("*.parquet")) if tables.is_dir() else []
    problems += [
        f"{path}: not recorded in the catalog: no held pack owns it"
        for path in on_disk
        if path.relative_to(root).as_posix() not in held
    ]
    owned = {d for recorded in held.values() for d in recorded.packs}
    # A shared (PostgreSQL) catalog lists the organisation's packs, held in other folders too.
    problems += [
        f"pack {pack.pack_digest} ({pack.decision_id}): held, but no file of it is recorded in "
        "this folder"
        for pack in (packs if isinstance(catalog, DuckDBCatalog) else ())
        if pack.pack_digest not in owned
    ]
    local = isinstance(catalog, DuckDBCatalog)
    problems += [
        f"watch {watch.watch_digest} of {watch.decision_id}: held, but no file of it is recorded "
        "in this folder"
        for watch in (watches if local else ())
        if watch.watch_digest not in owned
    ]
    problems += [
        f"watch {watch.watch_digest} of {watch.decision_id}: held, but the catalog does not hold "
        f"the pack it watched ({watch.pack_digest})"
        for watch in watches
        if watch.pack_digest not in digests
    ]
    by_id: dict[str, list[str]] = defaultdict(list)
    for pack in packs:
        by_id[pack.decision_id].append(pack.pack_digest)
    for decision_id, held_by in sorted(by_id.items()):
        if len(held_by) > 1:
            problems.append(
                f"decision {decision_id!r} is held {len(held_by)} times (evidence digests "
                f"{', '.join(sorted(held_by))}): one decision id, several packs"
            )
    return problems


def audit(
    root: Path, policy: VerifyPolicy, catalog: Catalog | None = None
) -> tuple[list[AuditResult], list[str]]:
    """Re-verify every pack the catalog holds, in catalog order, and check the warehouse's own
    files (``dataset_problems``)."""
    catalog = catalog or open_catalog(root)
    with storage.locked(root, exclusive=True):
        storage.recover(root, catalog)
        packs = catalog.held_packs()
        watches = catalog.held_watches()
        problems = dataset_problems(root, catalog)
    results = [_pack_result(pack, policy) for pack in packs]
    results += [_watch_result(watch, policy) for watch in watches]
    return results, problems


def _watch_result(watch: WatchRow, policy: VerifyPolicy) -> AuditResult:
    """One held watch re-verified from where it was added: it verifies under the policy and is
    still the watch held (the same watch.json)."""
    path = Path(watch.source)
    if not path.exists():
        problems: tuple[str, ...] = (f"{path}: no such file or folder",)
        return AuditResult(
            watch.watch_digest, watch.decision_id, watch.source, "missing", problems, "watch"
        )
    with opened_pack(path, policy) as opened:
        found = list(opened.problems)
        if not found and opened.folder is not None:
            now = opened.folder / WATCH_DOCUMENT
            digest = storage.file_digest(now) if now.is_file() else None
            if digest != watch.watch_digest:
                found.append(
                    f"{path}: holds another watch now ({WATCH_DOCUMENT} sha256 {digest}, the "
                    f"warehouse holds {watch.watch_digest})"
                )
    status: Literal["ok", "failed"] = "failed" if found else "ok"
    return AuditResult(
        watch.watch_digest, watch.decision_id, watch.source, status, tuple(found), "watch"
    )


def _pack_result(pack: PackRow, policy: VerifyPolicy) -> AuditResult:
    """One held pack re-verified from where it was added."""
    path = Path(pack.source)
    if not path.exists():
        return AuditResult(
            pack.pack_digest,
            pack.decision_id,
            pack.source,
            "missing",
            (f"{path}: no such file or folder",),
        )
    with opened_pack(path, policy) as opened:
        found = list(opened.problems)
        if not found and opened.digest != pack.pack_digest:
            found.append(
                f"{path}: holds another pack now (evidence digest {opened.digest}, "
                f"the warehouse holds {pack.pack_digest})"
            )
    status: Literal["ok", "failed"] = "failed" if found else "ok"
    return AuditResult(pack.pack_digest, pack.decision_id, pack.source, status, tuple(found))
