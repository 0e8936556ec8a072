"""Look at a file's bytes (never its name): JSON, JSON lines, CSV, zip or text.

The format modules then decide from the probe's content which tool wrote it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from pathlib import Path

from ..core import limits
from ..core.limits import RAISE_INPUT_LIMIT, regular_file_problem
from ..errors import InputError
from ._json import NESTING, load_json_document
from .base import Probe

HEAD_BYTES = 1 << 16
# What can follow a JSON array's ``[``: a value's first character, the closing bracket, or the
# end of the line (a pretty-printed array).
_JSON_ARRAY_START = re.compile(r'^\[\s*(?:$|[\[{"\]\-0-9]|true\b|false\b|null\b)')
_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP = b"PK\x05\x06"
MAX_PROBE_LINE = 16 << 20
"""The first lines are read at most this long: a longer one is not a JSON line (a huge
single-line file is then read as one document, within MAX_INPUT_FILE_BYTES)."""


def probe_file(path: Path, name: str | None = None, *, max_bytes: int | None = None) -> Probe:
    """Classify ``path`` by content; a truncated zip or JSON document fails here, located.
    ``name`` is what messages call the file (``Probe.name``; default: ``path``); a file over
    ``max_bytes`` (default ``MAX_INPUT_FILE_BYTES``) is refused before a byte is read."""
    limit = limits.MAX_INPUT_FILE_BYTES if max_bytes is None else max_bytes
    shown = str(path) if name is None else name
    if path.is_dir():
        raise InputError(f"{shown}: is a folder; give the files inside it")
    problem = regular_file_problem(path)
    if problem and path.exists():  # a FIFO or device would block or never end
        raise InputError(f"{shown}: {problem}")
    size = path.stat().st_size if not problem else 0
    if size > limit:  # before reading: a sparse 2 GiB file costs no disk
        raise InputError(
            f"{shown}: {size} bytes, over the limit of {limit} bytes for an evidence file; "
            + RAISE_INPUT_LIMIT
        )
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
            handle.seek(0)
            first_line = _next_nonblank(handle) or b""
            second = _next_nonblank(handle)
    except FileNotFoundError as exc:
        raise InputError(f"{shown}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc}") from exc

    if not head.strip():
        return Probe(path, "empty", None, head, shown)
    if head.startswith((_ZIP_MAGIC, _EMPTY_ZIP)):
        return Probe(path, "zip", _zip_members(path, shown), head, shown)
    try:
        text_line = first_line.decode("utf-8-sig")
    except UnicodeDecodeError:
        return Probe(path, "binary", None, head, shown)

    stripped = text_line.strip()
    if stripped.startswith("[") and not _JSON_ARRAY_START.match(stripped):
        # ``[section]``, ``[link](url)``: text that merely opens with a bracket, not JSON.
        return Probe(path, "text", stripped, head, shown)
    if stripped.startswith(("{", "[")):
        try:
            value = json.loads(stripped)
        except RecursionError as exc:
            raise InputError(f"{shown}: line 1: {NESTING}") from exc
        except json.JSONDecodeError:
            # Not a complete value on its first line: a (pretty-printed) JSON document.
            return Probe(path, "json", load_json_document(path, shown), head, shown)
        if second is None:
            return Probe(path, "json", value, head, shown)
        if isinstance(value, dict):
            return Probe(path, "jsonl", value, head, shown)
        return Probe(path, "json", load_json_document(path, shown), head, shown)
    if "," in stripped and not stripped.startswith(":::"):
        header = next(csv.reader(io.StringIO(stripped)))
        return Probe(path, "csv", [cell.strip() for cell in header], head, shown)
    return Probe(path, "text", stripped, head, shown)


def _next_nonblank(handle: io.BufferedReader) -> bytes | None:
    for _ in range(1000):
        line = handle.readline(MAX_PROBE_LINE)
        if not line:
            return None
        if line.strip():
            return line
    return None


def _zip_members(path: Path, shown: str) -> list[str]:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()
    except zipfile.BadZipFile as exc:
        raise InputError(f"{shown}: truncated or corrupt zip archive: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc}") from exc
