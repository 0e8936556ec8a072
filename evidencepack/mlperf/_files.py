"""Read a submission's small text and JSON files (accuracy, measurements, systems, mappings).

Every failure is an ``InputError`` naming the file, and for JSON ``file:line:column``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import InputError


def read_text(path: Path, *, lenient: bool = False) -> str:
    """The file as UTF-8 text; ``lenient`` replaces bytes that are not UTF-8 instead of failing
    (a scorer's printout is read for a few numbers, not kept)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace" if lenient else "strict")
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc


def read_json(path: Path, *, lenient: bool = False) -> Any:
    """The file's JSON value; a syntax error names ``file:line:column``."""
    text = read_text(path, lenient=lenient)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
