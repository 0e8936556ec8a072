"""One evidence file read as a build reads it, as functions: ``read_input`` and what
``inspect`` shows of it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.limits import MAX_RAISED_INPUT_FILE_BYTES as _MAX_RAISED
from .options import PathLike

if TYPE_CHECKING:
    from ..readers.base import ParsedInput

MAX_RAISED_INPUT_FILE_BYTES = _MAX_RAISED
"""The most ``max_file_bytes`` may raise the size limit to: 1 TiB."""


def read_input(path: PathLike, *, max_file_bytes: int | None = None) -> ParsedInput:
    """Detect and read one evidence file (a serving benchmark's output, a LoadGen log, eval
    scores): its format, the runs or score sets it holds, and warnings (``inspect``).
    ``max_file_bytes`` raises the 1 GiB size limit (``inspect --max-file-bytes``)."""
    from ..intake.snapshot import read_private

    return read_private(Path(path), max_bytes=max_file_bytes)


def run_folder_files(folder: PathLike) -> list[Path]:
    """The files of a run folder (what ``measure`` writes) that ``inspect`` reads, in the order
    a check uses them; empty when ``folder`` is no run folder."""
    from ..readers.describe import run_folder_files as files

    return files(Path(folder))


def describe_input(parsed: ParsedInput) -> list[str]:
    """The lines ``inspect`` prints for one read file (format, tool, digest, runs, warnings)."""
    from ..readers.describe import describe

    return describe(parsed)


def broken_plugin_warnings() -> tuple[str, ...]:
    """A warning for each installed reader plug-in that failed to load."""
    from ..readers.registry import broken_plugin_warnings as broken

    return broken()
