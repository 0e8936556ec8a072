"""Two packs compared, as functions: ``diff_packs``, its text and Markdown, the change note."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .options import DiffOptions, PathLike
from .signing import verify_policy

if TYPE_CHECKING:
    from ..diff.models import DiffDocument
    from ..diff.run import DiffResult


def diff_packs(old: PathLike, new: PathLike, options: DiffOptions | None = None) -> DiffResult:
    """Compare two packs (folders or ``.tar.gz``; ``new`` may be a spec, built first): what
    changed and whether the decision still holds (``DiffResult.holds``). With
    ``options.policy`` both packs are verified first."""
    from ..diff.compare import Thresholds
    from ..diff.run import DiffOptions as RunOptions
    from ..diff.run import diff_packs as run_diff

    options = options or DiffOptions()
    run = RunOptions(
        policy=verify_policy(options.policy) if options.policy is not None else None,
        thresholds=Thresholds(options.fail_on_cost_increase, options.fail_on_capacity_loss),
        allow_outside=options.allow_outside,
        as_of=options.as_of,
        allow_other_decision=options.allow_other_decision,
    )
    return run_diff(Path(old), Path(new), run)


def diff_text(document: DiffDocument) -> str:
    """The comparison for a terminal (``diff``'s output)."""
    from ..diff.summary import format_text

    return format_text(document)


def diff_markdown(document: DiffDocument) -> str:
    """The comparison as Markdown (``diff --markdown``: a PR comment, a CI summary)."""
    from ..diff.summary import format_markdown

    return format_markdown(document)


def change_note(result: DiffResult, out: PathLike, *, force: bool = False) -> Path:
    """Write the change note (``diff --report``): a folder with the comparison as HTML and
    JSON and the NEW spec; an existing folder is replaced only with ``force``."""
    from ..diff.note import write_change_note

    return write_change_note(result, Path(out), force=force)
