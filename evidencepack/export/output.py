"""Where an export may write: an empty (or new) folder, or, when asked to replace, a folder that
holds an earlier OSCAL export and nothing else. Nothing else is ever overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidRequest, option
from .versions import CATALOG_NAME, RESULTS_NAME

# Each file an export writes, and the one top-level key its OSCAL document has.
_EXPORT_ROOTS = {RESULTS_NAME: "assessment-results", CATALOG_NAME: "catalog"}
# An export of a pack is a few MiB; a larger file of that name is not one of ours.
_MAX_EXPORT_BYTES = 256 * 1024 * 1024
_LISTED = 5


def check_output_folder(out_dir: Path, *, force: bool) -> None:
    """Refuse ``out_dir`` unless it is missing or empty, or (``force``) holds only an earlier
    export: the two files an export writes, each an OSCAL document of the kind its name says."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise InvalidRequest(f"{out_dir}: is not a folder: name a folder to write the export into")
    entries = sorted(p.name for p in out_dir.iterdir())
    if not entries:
        return
    if not force:
        raise InvalidRequest(
            f"{out_dir}: is not empty ({_listing(entries)}); an export writes into an empty "
            f"folder and replaces an earlier export only when asked ({option('force')}): choose "
            f"another folder with {option('output')}"
        )
    foreign = [name for name in entries if not _is_export(out_dir / name)]
    if foreign:
        raise InvalidRequest(
            f"{out_dir}: {option('force')} replaces only an earlier OSCAL export "
            f"({', '.join(sorted(_EXPORT_ROOTS))}), and this folder also holds "
            f"{_listing(foreign)}: choose an empty folder with {option('output')}"
        )


def _is_export(path: Path) -> bool:
    """Whether ``path`` is a file an earlier export wrote (a regular file, not a link)."""
    root = _EXPORT_ROOTS.get(path.name)
    if root is None or path.is_symlink() or not path.is_file():
        return False
    if path.stat().st_size > _MAX_EXPORT_BYTES:
        return False
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and list(document) == [root]


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    more = len(names) - _LISTED
    return shown + (f" and {more} more" if more > 0 else "")
