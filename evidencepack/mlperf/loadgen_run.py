"""One LoadGen run: its detail log (the truth) cross-checked against its summary.

``parse_loadgen_dir(path)`` reads a LoadGen output folder; ``parse_run(detail, summary)`` reads
the two files wherever they are. A summary that contradicts its detail log raises
``LoadgenLogError`` naming each value.
"""

from __future__ import annotations

from pathlib import Path

from .loadgen_log import DETAIL_NAME, SUMMARY_NAME, LoadgenLog, LoadgenLogError, parse_detail
from .loadgen_summary import cross_check, parse_summary_raw


def parse_run(
    detail: Path | None,
    summary: Path | None,
    *,
    detail_name: str | None = None,
    summary_name: str | None = None,
) -> LoadgenLog:
    """One run from its detail log (the truth) cross-checked against its summary, or the summary
    alone where no detail log exists (older published trees). Contradictions raise. The log and
    its messages call the files ``detail_name`` and ``summary_name`` (default: their paths)."""
    if detail is None and summary is None:
        raise LoadgenLogError(f"neither {DETAIL_NAME} nor {SUMMARY_NAME} was found")
    if detail is None:
        assert summary is not None
        return parse_summary_raw(summary, summary_name).to_log()
    shown = str(detail) if detail_name is None else detail_name
    log = parse_detail(detail, shown)
    if summary is not None:
        raw = parse_summary_raw(summary, summary_name)
        problems = cross_check(log, raw)
        if problems:
            raise LoadgenLogError(
                f"{raw.path}: contradicts {shown} in {len(problems)} value(s)", problems
            )
        log = log.model_copy(update={"summary_path": str(raw.path)})
    return log


def parse_loadgen_dir(path: Path) -> LoadgenLog:
    """A LoadGen output folder (``mlperf_log_detail.txt`` and/or ``mlperf_log_summary.txt``)."""
    if not path.is_dir():
        raise LoadgenLogError(f"{path}: not a folder")
    detail, summary = path / DETAIL_NAME, path / SUMMARY_NAME
    if not detail.is_file() and not summary.is_file():
        raise LoadgenLogError(f"{path}: no {DETAIL_NAME} or {SUMMARY_NAME} in this folder")
    return parse_run(detail if detail.is_file() else None, summary if summary.is_file() else None)
