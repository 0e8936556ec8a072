"""A pack's files against the same files recomputed by ``verify --rebuild``: where they differ.

Each compared file that differs is named with its first difference: for JSON the first
differing field by JSON path with both values (``decision.json: recommendation is h200-vllm;
recomputed: mi325x-vllm``), for the HTML report the first differing line, for anything else
(the PDF) the first differing byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..pack.layout import DECISION_NAME, MANIFEST_NAME
from .documents import MAX_DOCUMENT_BYTES
from .json_diff import MAX_SHOWN, first_difference, parse_object, show
from .verify_report import RebuildDifference, RebuildOutcome

_BEFORE = 40
"""Characters shown before the first differing one, when two long texts are cut."""


def _first_char(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def show_pair(a: object, b: object) -> tuple[str, str]:
    """Two differing values for a one-line message: two long strings are both cut around their
    first differing character (``...`` marks what is left out), so the difference is shown."""
    if not isinstance(a, str) or not isinstance(b, str) or max(len(a), len(b)) <= MAX_SHOWN:
        return show(a), show(b)
    start = max(0, _first_char(a, b) - _BEFORE)

    def cut(text: str) -> str:
        part = text[start : start + MAX_SHOWN - 6]
        return ("..." if start else "") + part + ("..." if start + len(part) < len(text) else "")

    return cut(a), cut(b)


def _first_byte(a: bytes, b: bytes) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _json_difference(name: str, packed: bytes, recomputed: bytes) -> RebuildDifference | None:
    old, new = parse_object(packed), parse_object(recomputed)
    if old is None or new is None:
        return None
    difference = first_difference(old, new)
    if difference is None:
        offset = _first_byte(packed, recomputed)
        return RebuildDifference(
            file=name,
            field=f"byte {offset}",
            pack_value=None,
            recomputed_value=None,
            message=f"{name}: the same values, written differently (from byte {offset})",
        )
    old_value, new_value = show_pair(difference.left, difference.right)
    return RebuildDifference(
        file=name,
        field=difference.path,
        pack_value=old_value,
        recomputed_value=new_value,
        message=f"{name}: {difference.path} is {old_value}; recomputed: {new_value}",
    )


def _line_difference(name: str, packed: bytes, recomputed: bytes) -> RebuildDifference | None:
    try:
        old, new = packed.decode("utf-8").splitlines(), recomputed.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    for number in range(max(len(old), len(new))):
        a = old[number] if number < len(old) else None
        b = new[number] if number < len(new) else None
        if a != b:
            shown_a, shown_b = show_pair(
                a.strip() if a is not None else "(no line)",
                b.strip() if b is not None else "(no line)",
            )
            return RebuildDifference(
                file=name,
                field=f"line {number + 1}",
                pack_value=shown_a,
                recomputed_value=shown_b,
                message=f"{name}: line {number + 1} is {shown_a!r}; recomputed: {shown_b!r}",
            )
    return None


def file_difference(name: str, packed: bytes, recomputed: bytes) -> RebuildDifference | None:
    """The first difference between the pack's ``name`` and the recomputed one, or None."""
    if packed == recomputed:
        return None
    found = None
    if name.endswith(".json"):
        found = _json_difference(name, packed, recomputed)
    elif name.endswith((".html", ".htm", ".yaml", ".txt")):
        found = _line_difference(name, packed, recomputed)
    if found is not None:
        return found
    offset = _first_byte(packed, recomputed)
    return RebuildDifference(
        file=name,
        field=f"byte {offset}",
        pack_value=f"{len(packed)} bytes",
        recomputed_value=f"{len(recomputed)} bytes",
        message=(
            f"{name}: differs from byte {offset} ({len(packed):,} bytes; recomputed: "
            f"{len(recomputed):,} bytes)"
        ),
    )


def _read(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def compare_rebuilt(
    pack: Path, rebuilt: Path, names: Iterable[str], *, prefixes: Mapping[str, int] | None = None
) -> RebuildOutcome:
    """``names`` in the pack folder against the same names in the rebuilt folder; of a name in
    ``prefixes``, only the pack file's first so many bytes (a PDF signed after rendering)."""
    compared = tuple(dict.fromkeys(names))
    differing = []
    for name in compared:
        packed, recomputed = _read(pack / name), _read(rebuilt / name)
        if packed is not None and prefixes and name in prefixes:
            packed = packed[: prefixes[name]]
        if packed is None or recomputed is None:
            where = "the pack" if packed is None else "the rebuild"
            differing.append(
                RebuildDifference(
                    file=name,
                    field=None,
                    pack_value=None,
                    recomputed_value=None,
                    message=f"{name}: missing from {where} (or unreadable)",
                )
            )
            continue
        difference = file_difference(name, packed, recomputed)
        if difference is not None and name == DECISION_NAME:
            cause = input_cause(_read(pack / MANIFEST_NAME), _read(rebuilt / MANIFEST_NAME))
            difference = difference.model_copy(update={"message": f"{difference.message}; {cause}"})
        if difference is not None:
            differing.append(difference)
    return RebuildOutcome(compared=compared, differing=tuple(differing))


_READING = ("sha256", "size_bytes", "format", "plugin", "tool", "tool_version", "warnings")
"""What the manifest records of how each input was read (its bytes, and the reader's reading)."""


def input_cause(packed: bytes | None, recomputed: bytes | None) -> str:
    """Which input made the recomputed decision differ: the first input (by pack path) whose
    bytes or reading (format, plug-in, tool version, warnings) the rebuilt manifest records
    otherwise, with both values; or that every input was read the same."""
    old, new = parse_object(packed or b""), parse_object(recomputed or b"")
    if old is None or new is None:
        return "no manifest to say which input"

    def entries(document: dict[str, object]) -> dict[str, dict[str, object]]:
        items = document.get("inputs")
        return {
            str(i.get("pack_path")): i
            for i in (items if isinstance(items, list) else [])
            if isinstance(i, dict)
        }

    before, after = entries(old), entries(new)
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if a is None or b is None:
            state = "not read by the rebuild" if b is None else "read only by the rebuild"
            return f"the first input read differently: {path} ({state})"
        for key in _READING:
            if a.get(key) != b.get(key):
                return (
                    f"the first input read differently: {path} ({key} {show(a.get(key))}; "
                    f"recomputed: {show(b.get(key))})"
                )
    return (
        "every input was read with the same bytes and the same reading: the difference is in "
        "the analysis (another evidencepack version, or another reader installed)"
    )
