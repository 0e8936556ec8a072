"""``warehouse verify``: re-verify every held pack from where it was added (a scheduled audit)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from . import storage
from .catalog import Catalog, open_catalog
from .packs import opened_pack

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


def audit(root: Path, policy: VerifyPolicy, catalog: Catalog | None = None) -> list[AuditResult]:
    """Re-verify every pack the catalog holds, in catalog order."""
    catalog = catalog or open_catalog(root)
    with storage.locked(root, exclusive=True):
        storage.recover(root, catalog)
        packs = catalog.held_packs()
    results = []
    for pack in packs:
        path = Path(pack.source)
        if not path.exists():
            results.append(
                AuditResult(
                    pack.pack_digest,
                    pack.decision_id,
                    pack.source,
                    "missing",
                    (f"{path}: no such file or folder",),
                )
            )
            continue
        with opened_pack(path, policy) as opened:
            problems = list(opened.problems)
            if not problems and opened.digest != pack.pack_digest:
                problems.append(
                    f"{path}: holds another pack now (evidence digest {opened.digest}, "
                    f"the warehouse holds {pack.pack_digest})"
                )
        status: Literal["ok", "failed"] = "failed" if problems else "ok"
        results.append(
            AuditResult(pack.pack_digest, pack.decision_id, pack.source, status, tuple(problems))
        )
    return results
