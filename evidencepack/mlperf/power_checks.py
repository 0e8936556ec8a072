"""The power checker's rules that a published result's files allow, as check rows.

From mlcommons/inference ``submission_checker/checks/power_check.py`` (required files) and the
power working group's ``power_checker.py`` (session and uuid agreement between the power client
and server, LoadGen's window inside the ``testing`` phase, SHA-1 of the result files the client
and server recorded), and the official table's power row (the figure it prints).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core._numbers import plain
from ..errors import InputError
from ._files import read_json
from .models import CheckRow, CheckStatus
from .official_table import TableRow

RUN_FILES = ("mlperf_log_detail.txt", "mlperf_log_summary.txt", "spl.txt")
POWER_FILES = ("client.json", "client.log", "ptd_logs.txt", "server.json", "server.log")
# the table prints the checker's float; ours is the same sum over the same readings
_TABLE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class PowerFiles:
    """A power-measured result's files: ``run_1`` (detail log, ``spl.txt``), ``ranging`` and
    ``power`` folders, each file by the name messages use and the private copy to read."""

    detail: str
    spl: str
    detail_file: str
    """The detail log's path relative to ``performance/`` (a key of ``taken``)."""
    spl_file: str
    """``spl.txt``'s path relative to ``performance/`` (a key of ``taken``)."""
    power_dir: str
    ranging_dir: str
    missing: tuple[str, ...]
    """Each file the checker requires that is not there, by name."""
    taken: Mapping[str, tuple[str, Path]]
    """Every file of ``run_1``, ``ranging`` and ``power``, by its path relative to
    ``performance/``: its name and its private copy."""


def _row(rule: str, expected: str, actual: str, ok: bool | None, source: str) -> CheckRow:
    status: CheckStatus = "skip" if ok is None else ("pass" if ok else "fail")
    return CheckRow(
        rule=rule, round=None, expected=expected, actual=actual, status=status, source=source
    )


def check_rows(
    files: PowerFiles,
    metric: float | None,
    table_row: TableRow | None,
    begin: dt.datetime,
    end: dt.datetime,
) -> tuple[CheckRow, ...]:
    """Every power rule's row for one result, in a fixed order."""
    missing = files.missing
    rows = [
        _row(
            "power.files",
            "run_1 and ranging: detail, summary, spl.txt; power: client/server json and log, "
            "ptd_logs.txt",
            "all present" if not missing else "missing " + ", ".join(missing),
            not missing,
            files.power_dir,
        )
    ]
    found_client, found_server = (
        files.taken.get("power/client.json"),
        files.taken.get("power/server.json"),
    )
    if found_client is not None and found_server is not None:
        (client_path, client_copy), (server_path, server_copy) = found_client, found_server
        client = _record(client_copy, client_path)
        server = _record(server_copy, server_path)
        rows.extend(_session_rows(client, server, client_path, server_path, begin, end))
        rows.append(_hash_row(client, server, files.taken, client_path))
    if table_row is not None:
        agrees = (
            metric is not None
            and table_row.value is not None
            and abs(metric - table_row.value) <= _TABLE_TOLERANCE * max(1.0, abs(table_row.value))
        )
        rows.append(
            _row(
                "power.official_table",
                f"{plain(table_row.value) if table_row.value is not None else '-'} "
                f"{table_row.unit or ''} ({table_row.row})".strip(),
                "-" if metric is None else plain(metric),
                agrees,
                files.spl,
            )
        )
    return tuple(rows)


def _session_rows(
    client: dict[str, object],
    server: dict[str, object],
    client_path: str,
    server_path: str,
    begin: dt.datetime,
    end: dt.datetime,
) -> list[CheckRow]:
    rows = []
    same = client.get("session_name") == server.get("session_name") and client.get(
        "uuid"
    ) == server.get("uuid")
    rows.append(
        _row(
            "power.session",
            "client and server name the same session and uuids",
            f"client {client.get('session_name')} {client.get('uuid')}, server "
            f"{server.get('session_name')} {server.get('uuid')}",
            same,
            f"{client_path}, {server_path}",
        )
    )
    phases = server.get("phases")
    testing = phases.get("testing") if isinstance(phases, dict) else None
    span = _phase_span(testing)
    utc = dt.UTC
    window = f"{begin:%Y-%m-%d %H:%M:%S.%f}..{end:%Y-%m-%d %H:%M:%S.%f} UTC"
    if span is None:
        rows.append(
            _row("power.window", "inside the testing phase", "no testing phase", False, server_path)
        )
    else:
        start = dt.datetime.fromtimestamp(span[0], utc).replace(tzinfo=None)
        stop = dt.datetime.fromtimestamp(span[1], utc).replace(tzinfo=None)
        rows.append(
            _row(
                "power.window",
                f"LoadGen's window {window} inside the testing phase",
                f"testing {start:%H:%M:%S.%f}..{stop:%H:%M:%S.%f} UTC",
                start <= begin and end <= stop,
                server_path,
            )
        )
    return rows


def _phase_span(phase: object) -> tuple[float, float] | None:
    """The first and last wall-clock time of a phase (``[[time, monotonic], ...]``)."""
    if not isinstance(phase, list) or len(phase) < 2:
        return None
    try:
        return float(phase[0][0]), float(phase[-1][0])
    except (TypeError, ValueError, IndexError):
        return None


def _hash_row(
    client: dict[str, object],
    server: dict[str, object],
    taken: Mapping[str, tuple[str, Path]],
    source: str,
) -> CheckRow:
    recorded: dict[str, str] = {}
    for record in (client, server):
        results = record.get("results")
        if isinstance(results, dict):
            recorded.update({str(k): str(v) for k, v in results.items()})
    checked, wrong = 0, []
    for name, sha1 in sorted(recorded.items()):
        found = taken.get(PurePosixPath(name).as_posix())
        if found is None:
            continue  # not published (analyzer side files): nothing to compare
        checked += 1
        if sha1_of(found[1]) != sha1:
            wrong.append(name)
    actual = f"{checked} of {len(recorded)} recorded file(s) published and compared"
    if wrong:
        actual += "; differ: " + ", ".join(wrong)
    return _row(
        "power.file_hashes",
        "each published file hashes as the power client/server recorded (SHA-1)",
        actual,
        None if checked == 0 else not wrong,
        source,
    )


def _record(path: Path, named: str) -> dict[str, object]:
    data = read_json(path, name=named)
    if not isinstance(data, dict):
        raise InputError("a power client/server record must be a JSON object", file=named)
    return data


def sha1_of(path: Path) -> str:
    """The SHA-1 the power client and server record for each result file."""
    digest = hashlib.sha1(usedforsecurity=False)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
