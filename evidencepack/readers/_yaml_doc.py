"""YAML result documents (guidellm ``benchmarks.yaml``, llm-d benchmark reports), read safely.

The safe loader only (libyaml's when present), no anchors or aliases (no tool writes them and an
alias bomb would expand without bound), bounded size and depth. ``top_level_keys`` tells from a
probe's first bytes whether a text file is a YAML mapping worth loading; ``load_yaml_document``
loads it once per file state (detection and parsing share the result).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..core.limits import MAX_YAML_DEPTH, read_limited
from ..errors import InputError
from .base import Probe

MAX_YAML_RESULT_BYTES = 256 << 20
"""A benchmark report in YAML; a guidellm sweep with every request is tens of MiB."""

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_KEY = re.compile(rb"^([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]|$)", re.M)


def top_level_keys(probe: Probe) -> set[str]:
    """The unindented mapping keys in the first 64 KiB of a text file (empty for other kinds)."""
    if probe.container not in ("text", "csv"):
        return set()
    return {m.group(1).decode() for m in _KEY.finditer(probe.head)}


def load_yaml_document(path: Path, name: str | None = None) -> Any:
    """The YAML document in ``path`` as plain Python values; InputError naming line and column
    of ``name`` (what messages call the file; default: ``path``)."""
    shown = str(path) if name is None else name
    try:
        stat = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", file=shown) from exc
    return _load(str(path), shown, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1)
def _load(name: str, shown: str, mtime_ns: int, size: int) -> Any:
    path = Path(name)
    raw = read_limited(path, MAX_YAML_RESULT_BYTES, what="YAML result file", label=shown)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{shown}: byte {exc.start}: not UTF-8 text") from exc
    loader = _LOADER(text)
    try:
        _check_events(shown, loader)
    finally:
        loader.dispose()
    loader = _LOADER(text)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        raise _located(shown, exc) from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{shown}: YAML error: {' '.join(str(exc).split())}") from exc
    finally:
        loader.dispose()


def _check_events(shown: str, loader: Any) -> None:
    """Refuse anchors, aliases and deep nesting before anything is built."""
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            mark = event.start_mark
            where = f"{shown}:{mark.line + 1}:{mark.column + 1}" if mark else shown
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise InputError(f"{where}: YAML anchors and aliases are not read in a result file")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise InputError(f"{where}: nesting deeper than {MAX_YAML_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        raise _located(shown, exc) from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{shown}: YAML error: {' '.join(str(exc).split())}") from exc


def _located(shown: str, exc: yaml.MarkedYAMLError) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
    return InputError(f"{shown}:{where}: YAML syntax error: {exc.problem or exc}")
