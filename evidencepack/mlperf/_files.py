"""Read a submission's small text and JSON files (accuracy, measurements, systems, mappings).

Every failure is an ``InputError`` naming the file, and for JSON ``file:line:column``. A file
is read from ``path`` and called ``name`` (default: ``path``): a build reads a private copy and
names the file by its place in the pack.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError


def read_text(path: Path, *, lenient: bool = False, name: str | None = None) -> str:
    """The file as UTF-8 text; ``lenient`` replaces bytes that are not UTF-8 instead of failing
    (a scorer's printout is read for a few numbers, not kept)."""
    shown = str(path) if name is None else name
    try:
        return path.read_text(encoding="utf-8", errors="replace" if lenient else "strict")
    except FileNotFoundError as exc:
        raise InputError("no such file", file=shown) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=shown) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read: {exc}", file=shown) from exc


def read_json(path: Path, *, lenient: bool = False, name: str | None = None) -> Any:
    """The file's JSON value; a syntax error names ``file:line:column``."""
    shown = str(path) if name is None else name
    text = read_text(path, lenient=lenient, name=shown)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{shown}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
