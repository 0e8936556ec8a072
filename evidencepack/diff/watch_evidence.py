"""A watch folder as NEW evidence (``diff PACK WATCH``): what the decision would be now.

``evidencepack watch`` re-measures the chosen candidate's endpoint at the decision's operating
point and keeps the run in ``WATCH/run``. Given as NEW, the watch becomes a spec to build: the
OLD pack's own spec and inputs, with the watch's run added to the watched candidate's runs
(under ``inputs/watch-DATE/run``). The spec copy the watch carries must be the OLD pack's: a
watch of another decision is refused. OLD's inputs come from the diff's one read of it (checked,
and verified first when a policy is given); this module only lays out the NEW spec.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from ..core.limits import read_limited
from ..errors import InputError
from ..pack.layout import SPEC_PATH

WATCH_DOCUMENT = "watch.json"
WATCH_RUN = "run"
_MAX_WATCH_BYTES = 16 << 20


def is_watch_folder(path: Path) -> bool:
    """A folder ``evidencepack watch`` wrote: its report, its run and the pack's spec copy."""
    return (
        path.is_dir()
        and (path / WATCH_DOCUMENT).is_file()
        and (path / WATCH_RUN).is_dir()
        and (path / SPEC_PATH).is_file()
    )


def _watch_report(watch: Path) -> dict[str, Any]:
    raw = read_limited(watch / WATCH_DOCUMENT, _MAX_WATCH_BYTES, what=WATCH_DOCUMENT)
    try:
        data = json.loads(raw)
        candidate = data["pack"]["candidate"]
        as_of = data["as_of"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"NEW {watch}/{WATCH_DOCUMENT}: not a watch report: {exc}") from exc
    if not isinstance(candidate, str) or not isinstance(as_of, str):
        raise InputError(f"NEW {watch}/{WATCH_DOCUMENT}: not a watch report")
    report: dict[str, Any] = data
    return report


def spec_with_watch(watch: Path, inputs: Path) -> Path:
    """Lay out NEW in ``inputs`` (the OLD pack's checked ``inputs/``, copied from the diff's one
    read of it): the watch's run beside them and a spec citing it for the watched candidate;
    return that spec's path (for the diff to build)."""
    report = _watch_report(watch)
    candidate, as_of = report["pack"]["candidate"], report["as_of"]
    old_spec = inputs / "pack.yaml"
    if not old_spec.is_file():
        raise InputError(f"OLD holds no {SPEC_PATH}: a watch needs the pack's own spec")
    watched_spec = (watch / SPEC_PATH).read_bytes()
    spec_bytes = old_spec.read_bytes()
    if hashlib.sha256(watched_spec).digest() != hashlib.sha256(spec_bytes).digest():
        raise InputError(
            f"NEW {watch}: the watch is of another decision: its {SPEC_PATH} is not OLD's "
            f"(sha256 {hashlib.sha256(watched_spec).hexdigest()} against "
            f"{hashlib.sha256(spec_bytes).hexdigest()})"
        )
    cited = f"watch-{as_of}/{WATCH_RUN}"
    shutil.copytree(watch / WATCH_RUN, inputs / cited, symlinks=False)
    spec = yaml.safe_load(spec_bytes)
    entry = next(
        (c for c in spec.get("candidates", []) if isinstance(c, dict) and c.get("id") == candidate),
        None,
    )
    if entry is None:
        raise InputError(f"NEW {watch}: the watched candidate {candidate} is not in OLD's spec")
    evidence = entry.setdefault("evidence", {})
    evidence.setdefault("runs", []).append({"path": cited})
    path = inputs / "pack.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
