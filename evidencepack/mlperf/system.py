"""A submission's system description JSON, normalised: numbers, text, accelerators, stack.

Real files mix ``8`` and ``"8"``, carry dicts (``other_software_stack``), stray whitespace and
U+202F, and ``"TODO"``. Total accelerators = nodes x accelerators per node. Anything that cannot
be read as intended becomes None with a note saying why; the raw JSON is kept beside.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from ..core._models import StrictModel
from ..errors import InputError
from ._files import read_json
from .stack import Stack, normalise_space, parse_stack, stack_text

_PLACEHOLDERS = {"", "todo", "n/a", "na", "none", "null", "-", "tbd", "unknown"}
_INT = re.compile(r"^\d+(?:\.0+)?$")


class AcceleratorType(StrictModel):
    """One kind of accelerator in a system, and how many of it a node holds (None: not said)."""

    name: str = Field(description="the accelerator's name as the system description writes it")
    per_node: int | None = Field(
        default=None,
        description="how many of it a node holds; None when the description does not say",
    )


class SystemInfo(StrictModel):
    """One ``systems/<system>.json`` after normalisation.

    ``accelerator_types`` lists each kind of accelerator; a system that mixes two (v6.1) has two
    entries, written as a list or as ``"A + B"`` in ``accelerator_model_name`` with a list or a
    single total in ``accelerators_per_node``. ``accelerator`` is then their names joined by
    `` + `` and ``accelerators_per_node`` their sum. ``design_power_watts`` is v6.1's field.
    """

    path: str
    system_id: str
    submitter: str | None = None
    division: str | None = None
    status: str | None = None
    system_name: str | None = None
    system_type: str | None = None
    accelerator: str | None = None
    accelerator_memory: str | None = None
    accelerators_per_node: int | None = None
    nodes: int | None = None
    accelerators_total: int | None = None
    host_processor: str | None = None
    host_processors_per_node: int | None = None
    operating_system: str | None = None
    design_power_watts: float | None = None
    accelerator_types: tuple[AcceleratorType, ...] = ()
    stack: Stack = Stack()
    notes: tuple[str, ...] = ()
    raw_json: str = "{}"


def clean_text(value: object) -> str | None:
    """Free text with whitespace (U+202F included) collapsed; placeholders become None."""
    if value is None:
        return None
    text = normalise_space(stack_text(value))
    return None if text.lower() in _PLACEHOLDERS else text


def clean_int(value: object, field: str, notes: list[str]) -> int | None:
    """A count given as a number or a string; anything else is None with a note."""
    if isinstance(value, bool):
        notes.append(f"{field}: {value!r} is not a count")
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = clean_text(value)
    if text is None:
        if value is not None:
            notes.append(f"{field}: {value!r} is a placeholder, not a count")
        return None
    if _INT.match(text):
        return int(float(text))
    notes.append(f"{field}: {value!r} is not a count")
    return None


MAX_COUNT = 2**31 - 1
"""The largest count the store holds (a 32-bit column): no real system comes near it."""


def within_count(value: int | None, field: str, notes: list[str]) -> int | None:
    """``value`` if it is a count the store can hold (0 to ``MAX_COUNT``); else None with a note
    (an absurd count is not read, never an overflow when it is stored)."""
    if value is None or 0 <= value <= MAX_COUNT:
        return value
    notes.append(f"{field}: {value:,} is not a plausible count (0 to {MAX_COUNT:,}); not read")
    return None


def clean_watts(value: object, notes: list[str]) -> float | None:
    """A positive wattage given as a number or a string; anything else None with a note."""
    if value is None or isinstance(value, bool):
        return None
    text = clean_text(value)
    try:
        watts = float(value) if isinstance(value, int | float) else float(text or "")
    except ValueError:
        if text is not None:
            notes.append(f"design_power_watts: {value!r} is not a wattage")
        return None
    if watts <= 0:
        notes.append(f"design_power_watts: {value!r} is not a positive wattage")
        return None
    return watts


def accelerator_types(data: dict[str, Any], notes: list[str]) -> tuple[AcceleratorType, ...]:
    """The accelerator kinds a system description names, with per-node counts where given."""
    raw = data.get("accelerator_model_name")
    if isinstance(raw, list):
        names = [n for n in (clean_text(v) for v in raw) if n]
    else:
        text = clean_text(raw)
        names = [part.strip() for part in text.split(" + ")] if text else []
    names = [n for n in names if n]
    counts = data.get("accelerators_per_node")
    if len(names) > 1 and isinstance(counts, list):
        if len(counts) != len(names):
            notes.append(
                f"accelerators_per_node: {len(counts)} count(s) for {len(names)} accelerator types"
            )
            return tuple(AcceleratorType(name=n) for n in names)
        return tuple(
            AcceleratorType(name=n, per_node=clean_int(c, "accelerators_per_node", notes))
            for n, c in zip(names, counts, strict=True)
        )
    if len(names) == 1:
        per_node = (
            None if isinstance(counts, list) else clean_int(counts, "accelerators_per_node", [])
        )
        return (AcceleratorType(name=names[0], per_node=per_node),)
    return tuple(AcceleratorType(name=n) for n in names)


def available_by(system: SystemInfo) -> str | None:
    """The date a preview system is to be available by, where its description says
    (MLPerf Endpoints' ``target_availability_date``, or an ``availability_date``)."""
    data = json.loads(system.raw_json)
    for field in ("target_availability_date", "availability_date", "available_by"):
        text = clean_text(data.get(field))
        if text:
            return text
    return None


def read_system(path: Path, system_id: str, *, name: str | None = None) -> SystemInfo:
    """Read and normalise a system description; raise InputError if it is not a JSON object.
    The description and its messages call the file ``name`` (default: ``path``)."""
    shown = str(path) if name is None else name
    data = read_json(path, name=shown)
    if not isinstance(data, dict):
        raise InputError("a system description must be a JSON object", file=shown)
    return normalise_system(data, path=shown, system_id=system_id)


def normalise_system(data: dict[str, Any], *, path: str, system_id: str) -> SystemInfo:
    """A submission's system description, cleaned; what could not be read is noted."""
    notes: list[str] = []
    types = accelerator_types(data, notes)
    if len(types) > 1:
        counts = [t.per_node for t in types]
        per_node = None if None in counts else sum(c or 0 for c in counts)
        if per_node is None:
            per_node = clean_int(data.get("accelerators_per_node"), "accelerators_per_node", notes)
    else:
        per_node = clean_int(data.get("accelerators_per_node"), "accelerators_per_node", notes)
    nodes = clean_int(data.get("number_of_nodes"), "number_of_nodes", notes)
    per_node = within_count(per_node, "accelerators_per_node", notes)
    nodes = within_count(nodes, "number_of_nodes", notes)
    total = per_node * nodes if per_node is not None and nodes is not None else None
    total = within_count(
        total, "accelerators in all (accelerators_per_node x number_of_nodes)", notes
    )
    division = clean_text(data.get("division"))
    return SystemInfo(
        path=path,
        system_id=system_id,
        submitter=clean_text(data.get("submitter")),
        division=division.lower() if division else None,
        status=clean_text(data.get("status")),
        system_name=clean_text(data.get("system_name")),
        system_type=clean_text(data.get("system_type")),
        accelerator=" + ".join(t.name for t in types) or None,
        accelerator_memory=clean_text(data.get("accelerator_memory_capacity")),
        accelerators_per_node=per_node,
        nodes=nodes,
        accelerators_total=total,
        host_processor=clean_text(data.get("host_processor_model_name")),
        host_processors_per_node=within_count(
            clean_int(data.get("host_processors_per_node"), "host_processors_per_node", notes),
            "host_processors_per_node",
            notes,
        ),
        operating_system=clean_text(data.get("operating_system")),
        design_power_watts=clean_watts(data.get("design_power_watts"), notes),
        accelerator_types=types,
        stack=parse_stack(
            {
                "framework": data.get("framework"),
                "other_software_stack": data.get("other_software_stack"),
            }
        ),
        notes=tuple(notes),
        raw_json=json.dumps(data, sort_keys=True, ensure_ascii=False),
    )
