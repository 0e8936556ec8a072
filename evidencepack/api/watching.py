"""A signed decision re-asked in production, as functions: ``watch`` and ``watch_text``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .options import PathLike, WatchOptions, path_or_none
from .signing import verify_policy

if TYPE_CHECKING:
    from ..watch.models import WatchReport
    from ..watch.run import WatchResult


def watch(
    pack: PathLike, options: WatchOptions, *, progress: Callable[[str], None] | None = None
) -> WatchResult:
    """Verify the signed pack (folder or ``.tar.gz``), re-measure its endpoint at the
    decision's operating point X*, judge each SLO figure beside the pack's (holds, degraded,
    broken), re-check prices, waivers and approvals at a date, and write the watch folder
    ``options.out``; ``progress`` receives a line per step."""
    from ..watch.run import WatchOptions as RunOptions
    from ..watch.run import watch as run_watch

    run = RunOptions(
        endpoint=options.endpoint,
        prompts=Path(options.prompts),
        out=Path(options.out),
        policy=verify_policy(options.policy),
        spec=path_or_none(options.spec),
        as_of=options.as_of,
        duration_s=options.duration_s,
        max_requests=options.max_requests,
        candidate=options.candidate,
        tolerance=options.tolerance,
        approval_max_days=options.approval_max_days,
        api_key_env=options.api_key_env,
        timeout_s=options.timeout_s,
        sign_key=path_or_none(options.sign_key),
        force=options.force,
    )
    return run_watch(Path(pack), run, progress=progress)


def watch_text(report: WatchReport) -> str:
    """The watch report for a terminal: status, summary, the figures and the findings."""
    from ..watch.report import text

    return text(report)
