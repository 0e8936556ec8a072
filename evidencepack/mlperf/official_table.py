"""A round's official results table at the root of its results tree, in its two layouts.

- ``summary_results.json`` (v5.x, v6.0): a list of rows; each row carries the performance result
  (``Performance_Result``/``Performance_Units``) and, for a power-measured result, the power
  result in the same row (``Power_Result``/``Power_Units``).
- ``summary.json`` (v6.1): a dict of rows keyed by row number; a power result is a **second row**
  for the same system, model and scenario whose ``Units`` is ``Watts`` (Offline, Server,
  Interactive) or ``millijoules`` (SingleStream, MultiStream: energy per query), the checker's
  ``POWER_UNIT_DICT``. Rows also carry ``design_power_watts``.

Rows are keyed by result folder (``Location`` without ``./`` and ``/performance/run_1``) and
kind (performance or power), so a power row never overwrites or doubles a performance row. Two
rows of one kind for one result are an error naming both rows.
"""

from __future__ import annotations

import math
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from ..core._models import StrictModel
from ..errors import InputError
from ._files import read_json

TABLE_NAMES = ("summary.json", "summary_results.json")
# table column (v6.1 or v5.x) -> systems JSON field: a row describes its system too
_SYSTEM_FIELDS = {
    "Organization": "submitter",
    "Submitter": "submitter",
    "Division": "division",
    "Category": "division",
    "Availability": "status",
    "SystemName": "system_name",
    "System": "system_name",
    "SystemType": "system_type",
    "Suite": "system_type",
    "accelerator_model_name": "accelerator_model_name",
    "Accelerator": "accelerator_model_name",
    "accelerators_per_node": "accelerators_per_node",
    "a#": "accelerators_per_node",
    "number_of_nodes": "number_of_nodes",
    "Nodes": "number_of_nodes",
    "host_processor_model_name": "host_processor_model_name",
    "Processor": "host_processor_model_name",
    "host_processors_per_node": "host_processors_per_node",
    "framework": "framework",
    "Software": "framework",
    "operating_system": "operating_system",
    "design_power_watts": "design_power_watts",
}
POWER_UNITS = frozenset({"watts", "millijoules"})


class TableRow(StrictModel):
    """One official figure: a performance or a power result of one result folder."""

    row: str
    location: str
    model: str
    scenario: str
    kind: Literal["performance", "power"]
    value: float | None
    unit: str | None
    design_power_watts: float | None = None
    version: str | None = None
    system: dict[str, str | int | float | None] = {}


class OfficialTable(StrictModel):
    """The rows of one official table, in file order."""

    path: str
    rows: tuple[TableRow, ...]

    def model_by_location(self) -> dict[str, str]:
        """``Model`` per result folder (what an open-division folder name answers)."""
        return {row.location: row.model for row in self.rows}

    @cached_property
    def _by_location(self) -> dict[tuple[str, str], list[TableRow]]:
        """The rows of each result folder and kind, in file order (a search of every row per
        result was O(results x rows): 1,448 rows for each of v5.1's 416 results)."""
        found: dict[tuple[str, str], list[TableRow]] = {}
        for row in self.rows:
            found.setdefault((row.location, row.kind), []).append(row)
        return found

    def row(self, location: str, kind: Literal["performance", "power"]) -> TableRow | None:
        """The one row of ``kind`` for a result folder; InputError naming both if there are two."""
        found = self._by_location.get((location, kind), [])
        if len(found) > 1:
            raise InputError(
                f"{self.path}: {len(found)} {kind} rows for one result ({location}): "
                f"{', '.join(r.row for r in found)} (one result has one {kind} figure)"
            )
        if kind == "power" and found:
            self._same_system(found[0], location)
        return found[0] if found else None

    def _same_system(self, power: TableRow, location: str) -> None:
        """A power row belongs to the result of its own system: one whose system fields differ
        from the performance row's at that folder is an error naming both rows."""
        (performance,) = self._by_location.get((location, "performance"), [None])[:1]
        if performance is None:
            return
        for field in ("system_name", "submitter", "accelerator_model_name"):
            mine, theirs = power.system.get(field), performance.system.get(field)
            if mine is not None and theirs is not None and str(mine) != str(theirs):
                raise InputError(
                    f"{self.path}: the power row {power.row} is for {field} {mine!r}, the "
                    f"performance row {performance.row} of the same result ({location}) for "
                    f"{theirs!r}: a power figure is attached only to its own system's result"
                )


def table_location(location: str) -> str:
    """v5.1 tables name the scenario folder; v6.x write ``./...<scenario>/performance/run_1``."""
    text = location.removeprefix("./").rstrip("/")
    for suffix in ("/performance/run_1", "/performance"):
        text = text.removesuffix(suffix)
    return text


def find_table(root: Path) -> Path | None:
    """The official table at a tree root: ``summary.json`` (v6.1+), else
    ``summary_results.json``."""
    for name in TABLE_NAMES:
        if (root / name).is_file():
            return root / name
    return None


def read_table(path: Path, *, named: str | None = None) -> OfficialTable:
    """Read either layout; a row that is not an object, or lacks ``Location``, ``Model`` or
    ``Scenario``, is an error naming the row."""
    where = named or str(path)
    data = read_json(path, name=where)
    if isinstance(data, dict):
        items: list[tuple[str, Any]] = [(f"{where} row {k!r}", v) for k, v in data.items()]
    elif isinstance(data, list):
        items = [(f"{where}[{i}]", v) for i, v in enumerate(data)]
    else:
        raise InputError(f"{where}: an official table must be a JSON list or object of rows")
    rows: list[TableRow] = []
    for label, raw in items:
        if not isinstance(raw, dict):
            raise InputError(f"{label}: a table row must be a JSON object")
        missing = [k for k in ("Location", "Model", "Scenario") if k not in raw]
        if missing:
            raise InputError(f"{label}: no {', '.join(missing)}")
        rows.extend(_rows(label, raw))
    return OfficialTable(path=where, rows=tuple(rows))


def _rows(label: str, raw: dict[str, Any]) -> list[TableRow]:
    base = TableRow(
        row=label,
        location=table_location(str(raw["Location"])),
        model=str(raw["Model"]),
        scenario=str(raw["Scenario"]),
        kind="performance",
        value=None,
        unit=None,
        design_power_watts=_number(raw.get("design_power_watts"), label, "design_power_watts"),
        version=str(raw["version"]).strip() if raw.get("version") else None,
        system={
            ours: raw[theirs]
            for theirs, ours in _SYSTEM_FIELDS.items()
            if isinstance(raw.get(theirs), str | int | float) and not isinstance(raw[theirs], bool)
        },
    )
    if "Result" in raw:  # v6.1: one figure per row, its kind told by its unit
        unit = _unit(raw.get("Units"))
        kind: Literal["performance", "power"] = (
            "power" if unit and unit.lower() in POWER_UNITS else "performance"
        )
        value = _number(raw["Result"], label, "Result")
        return [base.model_copy(update={"kind": kind, "value": value, "unit": unit})]
    value = _number(raw.get("Performance_Result"), label, "Performance_Result")
    rows = [base.model_copy(update={"value": value, "unit": _unit(raw.get("Performance_Units"))})]
    if raw.get("Power_Result") not in (None, ""):
        power = _number(raw["Power_Result"], label, "Power_Result")
        unit = _unit(raw.get("Power_Units"))
        rows.append(base.model_copy(update={"kind": "power", "value": power, "unit": unit}))
    return rows


def _number(value: object, label: str, field: str) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InputError(f"{label}: {field} is {value!r}, not a number")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise InputError(f"{label}: {field} is {shown}, not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{label}: {field} is {value!r}, not a finite number")
    return number


def _unit(value: object) -> str | None:
    return str(value).strip() or None if value is not None else None
