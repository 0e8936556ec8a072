"""A team's own run folder, cited as one reference: the request rows beside its LoadGen log, the
engine's metrics beside them, and its LoadGen summary checked against its detail log.

``evidencepack measure`` writes such a folder (``mlperf_log_detail.txt``, ``requests.jsonl``,
``run.json``, and ``server_metrics.json`` when it scraped the engine); a team's own LoadGen run
has the two logs. The intake reads the folder's run from its detail log; what lies beside it is
read here. The rows of many folders can be staged together first (``stage_beside``): each
folder's rows are then what they are read alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..readers.formats.measure_server_metrics import (
    SERVER_METRICS_FILE,
    ServerMetricsDocument,
    read_server_metrics,
)
from ..readers.models import RunFinding, ServingRun
from ..readers.registry import read_input, stage_small_runs
from ..spec.models import Candidate, EvidenceRef
from ..staging.context import DEFAULT, ReadContext
from ..staging.run_profile import RowProfile, profile_of
from ..store import Store
from .collect import Collector, input_limit
from .crosscheck import loadgen_pair
from .records import InputFile
from .stored import replace_many_findings, runs_of_files

LOADGEN_DETAIL = "mlperf_log_detail.txt"
LOADGEN_SUMMARY = "mlperf_log_summary.txt"
MEASURE_REQUESTS = "requests.jsonl"


@dataclass(frozen=True)
class FolderRows:
    """The request rows found beside a run's log: their file and the run they describe, and
    the engine's own metrics when the run scraped them (or why they could not be read)."""

    file: InputFile
    run: ServingRun
    metrics_file: InputFile | None = None
    metrics: ServerMetricsDocument | None = None
    metrics_problem: str | None = None
    profile: RowProfile | None = None
    """What the rows say about the run's shape: token-length tails, steady-state window."""


@dataclass(frozen=True)
class Beside:
    """A run folder's LoadGen log and the files of its folder (``beside``)."""

    log: InputFile
    beside: tuple[InputFile, ...]

    def named(self, name: str) -> InputFile | None:
        """The folder's file of that name, if it has one."""
        return next((f for f in self.beside if Path(f.pack_path).name == name), None)


def beside_log(
    folder: bool, read: Sequence[InputFile], added: Sequence[InputFile]
) -> Beside | None:
    """A cited run folder (``folder``) read by its one LoadGen log (``read``: the files of the
    reference that were read and stored, ``added``: all its files): the log and the files in
    its folder; None for a file, or a folder not read by one log."""
    logs = [f for f in read if Path(f.pack_path).name == LOADGEN_DETAIL]
    if len(logs) != 1 or not folder:
        return None
    parent = Path(logs[0].pack_path).parent
    return Beside(logs[0], tuple(f for f in added if Path(f.pack_path).parent == parent))


def stage_beside(collector: Collector, folders: Sequence[Beside]) -> ReadContext:
    """The request rows beside the logs of ``folders`` staged together: the context
    ``folder_rows`` reads each folder's rows under (each as read alone, ``DEFAULT``)."""
    copies: dict[Path, str] = {}
    for folder in folders:
        rows = folder.named(MEASURE_REQUESTS)
        if rows is not None:
            copy = collector.result.sources[rows.pack_path]
            copies[copy] = collector.shown(copy)
    if len(copies) < 2:
        return DEFAULT
    return ReadContext(DEFAULT.empty_output_valid, stage_small_runs(copies, DEFAULT))


def folder_rows(
    collector: Collector,
    ref: EvidenceRef,
    folder: Beside | None,
    context: ReadContext = DEFAULT,
) -> dict[str, FolderRows]:
    """The request rows beside a run folder's log, read from the build's private copy (under
    ``context``: ``stage_beside``'s, or each read alone); none when the folder has none or they
    cannot be read (the folder's log is still read)."""
    rows = folder.named(MEASURE_REQUESTS) if folder is not None else None
    if folder is None or rows is None:
        return {}
    try:
        copy = collector.result.sources[rows.pack_path]
        parsed = read_input(
            copy,
            record=rows.as_read(),
            name=collector.shown(copy),
            max_bytes=input_limit(ref),
            context=context,
        )
    except InputError:
        return {}
    if len(parsed.runs) != 1:
        return {}
    columns = parsed.requests if isinstance(parsed.requests, Mapping) else None
    found = FolderRows(
        collector.result.files[rows.pack_path],
        parsed.runs[0],
        profile=profile_of(columns) if columns is not None else None,
    )
    metrics = folder.named(SERVER_METRICS_FILE)
    if metrics is not None:
        update: dict[str, Any] = {"metrics_file": collector.result.files[metrics.pack_path]}
        try:
            copy = collector.result.sources[metrics.pack_path]
            update["metrics"] = read_server_metrics(copy, collector.shown(copy))
        except InputError as exc:
            update["metrics_problem"] = exc.message
        found = replace(found, **update)
    return {folder.log.pack_path: found}


def check_loadgen_summaries(
    store: Store, collector: Collector, candidate: Candidate, folders: Sequence[Sequence[InputFile]]
) -> None:
    """Each of a candidate's own LoadGen folders (its files): its summary checked against its
    detail log, the findings stored on the detail log's run (one query and one transaction for
    all)."""
    found: dict[str, list[RunFinding]] = {}
    for added in folders:
        by_name = {Path(f.pack_path).name: f for f in added}
        detail, summary = by_name.get(LOADGEN_DETAIL), by_name.get(LOADGEN_SUMMARY)
        if detail is None or summary is None:
            continue
        copies = [collector.result.sources[f.pack_path] for f in (detail, summary)]
        found[detail.sha256] = loadgen_pair(
            copies[0], copies[1], (collector.shown(copies[0]), collector.shown(copies[1]))
        )
    if not found:
        return
    runs = runs_of_files(store, list(found), candidate.id)
    by_run = {run.run_id: found[sha] for sha, of_file in runs.items() for run in of_file}
    if by_run:
        replace_many_findings(store, "summary-disagrees", by_run)
