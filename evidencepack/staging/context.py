"""What a build says about reading one file, handed explicitly to every reader and to staging.

A reader gets it on its ``Probe`` (``probe.context``), so a format module's ``parse(probe,
record)`` stays the plug-in signature; it passes it on to the ``Staging`` it opens. Nothing is
read from a global or a context variable: two builds in two threads read by their own settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a batch-staged run is only named here, never built
    from .stage_batch import StagedRun


@dataclass(frozen=True)
class ReadContext:
    """The settings one read is made under (default: a file read on its own, as ``inspect``)."""

    empty_output_valid: bool = False
    """The spec's ``task.empty_output_is_valid``: a request with no output token is a success
    (for tasks where an empty answer is right), not the error ``EMPTY_OUTPUT``."""
    prestaged: Mapping[Path, StagedRun] = field(default_factory=dict)
    """Runs of small one-result files already staged in one batch (``stage_small_runs``), by
    the path read: a reader takes its file's run from here instead of staging it again."""


DEFAULT = ReadContext()
"""A file read on its own: empty outputs are errors, nothing staged beforehand."""
