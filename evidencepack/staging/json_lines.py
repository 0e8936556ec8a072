"""JSON Lines read one record at a time, each complaint naming the file and the line.

Staging reads a file's rows with it (to name the first bad line DuckDB only hints at); the
readers' JSON helpers (``readers/_json.py``) share its located error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError


def fail(path: Path | str, where: str, message: str) -> InputError:
    """The one shape of a located input error: ``file: where: message`` (``path``: the name
    the file is shown by)."""
    return InputError(message, file=str(path), where=where)


NESTING = "JSON nested deeper than the parser allows (about 1,000 levels)"


def iter_json_lines(path: Path, name: str | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, value)`` for each non-blank line of a JSONL file (messages call
    it ``name``; default: ``path``)."""
    shown = str(path) if name is None else name
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    value = json.loads(raw)
                except RecursionError as exc:
                    raise InputError(NESTING, file=shown, line=number) from exc
                except json.JSONDecodeError as exc:
                    truncated = not raw.endswith(b"\n") and exc.pos >= len(raw.rstrip()) - 1
                    what = "truncated JSON" if truncated else "malformed JSON"
                    raise InputError(f"{what}: {exc.msg}", file=shown, line=number) from exc
                yield number, value
    except UnicodeDecodeError as exc:
        raise fail(shown, f"byte {exc.start}", "not UTF-8 text") from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", file=shown) from exc
