"""MLPerf Power: a result's measured system power, read and re-checked as the checker does.

A power-measured result has, beside ``performance/run_1``'s LoadGen logs, the analyzer's
readings ``performance/run_1/spl.txt`` (``Time,<MM-DD-YYYY HH:MM:SS.fff>,Watts,<W>,...``), a
``performance/ranging`` run, and the power client/server records ``performance/power/
{client,server}.{json,log}`` and ``ptd_logs.txt``. The checker's power metric
(``power_check.get_power_metric_check``): the mean of the positive ``Watts`` readings strictly
inside LoadGen's ``power_begin``..``power_end`` (detail log, UTC), in W for Offline, Server and
Interactive; for SingleStream and MultiStream the energy per query, ``W x window_s x 1000 /
result_query_count`` mJ. The wattage is the whole system under test at the wall.

Checks re-applied here (``power.*`` rows): the required files are there; the power client and
server agree on the session and its uuids; LoadGen's window lies in the server's ``testing``
phase; every file the power client and server hashed (SHA-1, ``results``) and that is published
hashes the same; the figure equals the official table's power row. Located errors: readings that
do not cover LoadGen's window, a reading that is not a number, no reading inside the window.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..errors import InputError
from ._files import read_text
from .context import ImportContext
from .loadgen_log import DETAIL_NAME, SUMMARY_NAME, LoadgenLog, read_detail_records
from .models import CheckRow, MlperfPower, SourceFile
from .official_table import TableRow
from .power_checks import POWER_FILES, RUN_FILES, PowerFiles, check_rows
from .tree import ResultFiles

_LOADGEN_FILES = (DETAIL_NAME, SUMMARY_NAME)

_TIME = "%m-%d-%Y %H:%M:%S.%f"
_ENERGY_SCENARIOS = ("SingleStream", "MultiStream")
# readings come once a second: a reading this close to an edge of the window covers it
_EDGE_S = 2.0


def read_power(
    files: PowerFiles | None,
    *,
    scenario: str,
    query_count: int | None,
    tokens_per_s: float | None,
    samples_per_s: float | None,
    table_row: TableRow | None,
    design_power_watts: float | None,
) -> tuple[MlperfPower | None, tuple[CheckRow, ...]]:
    """The power figure and its check rows; (None, ()) for a result without power."""
    if files is None:
        if table_row is None:
            return None, ()
        watts = table_row.value if (table_row.unit or "").lower() == "watts" else None
        power = MlperfPower(
            source="table",
            average_watts=watts,
            metric_value=table_row.value,
            metric_unit=table_row.unit,
            table_value=table_row.value,
            table_unit=table_row.unit,
            table_row=table_row.row,
            design_power_watts=design_power_watts,
        )
        return _per_output(power, tokens_per_s, samples_per_s), ()
    values, lines, _ = read_detail_records(files.taken[files.detail_file][1], files.detail)
    begin, end = (
        _logged_time(values, lines, key, files.detail) for key in ("power_begin", "power_end")
    )
    if end <= begin:
        raise InputError(
            f"{files.detail}:{lines['power_end']}: power_end {values['power_end']} is not after "
            f"power_begin {values['power_begin']}"
        )
    spl = files.taken[files.spl_file][1]
    readings = _readings(spl, files.spl, begin, end, files.detail, lines)
    average = sum(readings) / len(readings)
    window = (end - begin).total_seconds()
    if scenario in _ENERGY_SCENARIOS:
        if not query_count:
            raise InputError(
                f"{files.detail}: no result_query_count (the energy per query needs it)"
            )
        metric, unit = average * window * 1000 / query_count, "millijoules"
    else:
        metric, unit = average, "Watts"
    power = MlperfPower(
        source="measured",
        average_watts=average,
        metric_value=metric,
        metric_unit=unit,
        window_begin=str(values["power_begin"]),
        window_end=str(values["power_end"]),
        window_s=window,
        readings=len(readings),
        readings_path=files.spl,
        table_value=table_row.value if table_row else None,
        table_unit=table_row.unit if table_row else None,
        table_row=table_row.row if table_row else None,
        design_power_watts=design_power_watts,
    )
    rows = check_rows(files, power.metric_value, table_row, begin, end)
    return _per_output(power, tokens_per_s, samples_per_s), rows


def _per_output(
    power: MlperfPower, tokens_per_s: float | None, samples_per_s: float | None
) -> MlperfPower:
    watts = power.average_watts
    if watts is None:
        return power
    return power.model_copy(
        update={
            "joules_per_token": watts / tokens_per_s if tokens_per_s else None,
            "joules_per_sample": watts / samples_per_s if samples_per_s else None,
        }
    )


def _logged_time(
    values: dict[str, object], lines: dict[str, int], key: str, path: str
) -> dt.datetime:
    if key not in values:
        raise InputError(f"{path}: no {key} (a power-measured run logs LoadGen's power window)")
    try:
        return dt.datetime.strptime(str(values[key]), _TIME)
    except ValueError:
        raise InputError(
            f"{path}:{lines[key]}: {key} {values[key]!r} is not MM-DD-YYYY HH:MM:SS.fff"
        ) from None


def _readings(
    path: Path, named: str, begin: dt.datetime, end: dt.datetime, detail: str, lines: dict[str, int]
) -> list[float]:
    """Positive ``Watts`` readings strictly inside the window; the readings must span it."""
    inside: list[float] = []
    first: tuple[int, dt.datetime] | None = None
    last: tuple[int, dt.datetime] | None = None
    for number, line in enumerate(read_text(path, name=named).splitlines(), start=1):
        if not line.startswith("Time"):
            continue
        parts = line.split(",")
        try:
            when = dt.datetime.strptime(parts[1], _TIME)
            watts = float(parts[3])
        except (IndexError, ValueError):
            raise InputError(
                f"{named}:{number}: not a 'Time,<time>,Watts,<W>,...' reading"
            ) from None
        first = first or (number, when)
        last = (number, when)
        if begin < when < end and watts > 0:
            inside.append(watts)
    cite = f"{detail}:{lines['power_begin']}"
    window = f"LoadGen's power window {begin:%H:%M:%S.%f}..{end:%H:%M:%S.%f} ({cite})"
    if first is None or last is None:
        raise InputError(f"{named}: no 'Time,...' readings")
    if (first[1] - begin).total_seconds() > _EDGE_S or (end - last[1]).total_seconds() > _EDGE_S:
        raise InputError(
            f"{named}:{first[0]}-{last[0]}: the readings ({first[1]:%H:%M:%S}..{last[1]:%H:%M:%S}) "
            f"do not cover {window}"
        )
    if not inside:
        raise InputError(f"{named}: no positive reading inside {window}")
    return inside


def result_power(
    files: ResultFiles,
    names: ImportContext,
    *,
    scenario: str,
    log: LoadgenLog,
    system_watts: float | None,
) -> tuple[MlperfPower | None, tuple[CheckRow, ...], tuple[SourceFile, ...], float | None]:
    """A tree result's power (its files and the official table's power row), the power check
    rows, the files read for it, and the system's design power (its JSON, else the table's)."""
    table = names.table(files)
    perf_row = table.row(files.location, "performance") if table else None
    power_row = table.row(files.location, "power") if table else None
    design = (
        system_watts if system_watts is not None else (perf_row and perf_row.design_power_watts)
    )
    sources: list[SourceFile] = []
    table_path = names.table_path(files)
    if table_path is not None and power_row is not None:
        sources.append(names.source("official_table", table_path))
    power_files = None
    if files.spl is not None and files.detail is not None:
        power_files = _power_files(files.detail, files.spl, names)
        performance = files.spl.parent.parent
        for relative in power_files.taken:
            path = performance / relative
            if path != files.detail:
                if path.parent == files.spl.parent and path.name in _LOADGEN_FILES:
                    continue  # the result's own detail and summary logs, already sources
                sources.append(names.source(f"power:{relative}", path))
    power, rows = read_power(
        power_files,
        scenario=scenario,
        query_count=log.query_count,
        tokens_per_s=log.tokens_per_s,
        samples_per_s=log.samples_per_s,
        table_row=power_row,
        design_power_watts=design or None,
    )
    return power, rows, tuple(sources), design or None


def _power_files(detail: Path, spl: Path, names: ImportContext) -> PowerFiles:
    """A power-measured result's files, each taken once (``run_1``, ``ranging``, ``power``),
    by name and private copy, and the files the checker requires that are not there."""
    run, performance = spl.parent, spl.parent.parent
    folders = (run, performance / "ranging", performance / "power")
    taken = {
        path.relative_to(performance).as_posix(): (names.name(path), names.private(path))
        for folder in folders
        if folder.is_dir()
        for path in sorted(p for p in folder.iterdir() if p.is_file())
    }
    required = (*((f, RUN_FILES) for f in folders[:2]), (folders[2], POWER_FILES))
    return PowerFiles(
        detail=names.name(detail),
        spl=names.name(spl),
        detail_file=detail.relative_to(performance).as_posix(),
        spl_file=spl.relative_to(performance).as_posix(),
        power_dir=names.name(folders[2]),
        ranging_dir=names.name(folders[1]),
        missing=tuple(
            names.name(folder / name)
            for folder, listed in required
            for name in listed
            if not (folder / name).is_file()
        ),
        taken=taken,
    )
