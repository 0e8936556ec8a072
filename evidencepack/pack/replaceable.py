"""Whether ``--force`` may replace a folder: only one that verifies as a pack this tool wrote.

A folder qualifies when every file in it is one its own ``predicate.json`` (and, for a pack,
its ``manifest.json``) names, and every file those documents pin by digest has that digest.
A project folder that happens to hold files called ``manifest.json`` and ``predicate.json``
(a browser extension, a web app) holds other files too, so it is never taken for a pack.
"""

from __future__ import annotations

from pathlib import Path

import pydantic

from ..core.limits import read_limited
from ..core.provenance import sha256_files
from ..errors import InputError
from .layout import DECISION_NAME, MANIFEST_NAME, PREDICATE_NAME, STORE_NAME, scan_pack
from .manifest import EvidenceManifest
from .predicate import load_predicate

MAX_MANIFEST_BYTES = 64 << 20
"""A manifest lists one line per input; 64 MiB is far past any real one."""

SHOWN = 5
"""How many offending files a refusal names."""


def _names(names: list[str]) -> str:
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def listed_files(folder: Path, files: set[str]) -> dict[str, str | None]:
    """The files ``folder``'s own documents name: pack path -> pinned sha256 (or None).

    Raises InputError when ``predicate.json`` or ``manifest.json`` is not ours."""
    predicate = load_predicate(folder)
    listed: dict[str, str | None] = {PREDICATE_NAME: None}
    listed.update(dict.fromkeys(predicate.rendered))
    listed[predicate.spec.pack_path] = predicate.spec.sha256
    if MANIFEST_NAME in files:
        path = folder / MANIFEST_NAME
        raw = read_limited(path, MAX_MANIFEST_BYTES, what="pack manifest")
        try:
            manifest = EvidenceManifest.model_validate_json(raw)
        except pydantic.ValidationError as exc:
            raise InputError(f"{path}: not an evidencepack manifest") from exc
        listed[MANIFEST_NAME] = None
        listed[STORE_NAME] = None
        listed[DECISION_NAME] = manifest.decision.sha256
        listed.update({item.pack_path: item.sha256 for item in manifest.inputs})
    return listed


def replace_problem(folder: Path, markers: tuple[str, ...]) -> str | None:
    """Why ``folder`` is not a pack ``--force`` may replace, or None if it is one.

    ``markers`` are the files every such pack holds (``manifest.json`` and ``predicate.json``
    for a pack); each must be named by the folder's own documents, as must every other file.
    """
    try:
        scan = scan_pack(folder)
    except InputError as exc:
        return str(exc)
    if scan.problems:
        return f"it holds what no pack holds: {_names(list(scan.problems))}"
    files = set(scan.files)
    missing = [name for name in markers if name not in files]
    if missing:
        return f"it is not an evidencepack pack (it lacks {' and '.join(missing)})"
    try:
        listed = listed_files(folder, files)
    except InputError as exc:
        return f"it is not an evidencepack pack: {exc}"
    listed.update(dict.fromkeys(name for name in markers if name not in listed))
    others = sorted(files - set(listed))
    if others:
        return f"it holds files no pack of it lists: {_names(others)}"
    absent = sorted(name for name, digest in listed.items() if digest and name not in files)
    if absent:
        return f"it lacks files its own manifest lists: {_names(absent)}"
    pinned = {name: scan.files[name] for name, digest in listed.items() if digest}
    try:
        digests = sha256_files(pinned)
    except OSError as exc:
        return f"its files cannot be read: {exc}"
    changed = sorted(name for name, digest in digests.items() if digest != listed[name])
    if changed:
        return f"its files differ from its own manifest: {_names(changed)}"
    return None
