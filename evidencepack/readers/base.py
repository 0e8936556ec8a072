"""What every format module shares: the probe it detects on and the ParsedInput it returns.

A format module exposes one ``Format`` (id, ``runs``, ``scores`` or ``references``, tool,
``detect(probe)``, ``parse(probe, record)``) per kind of file it reads; ``registry.FORMATS``
lists them. Ids of runs, score sets and reference points are ``<first 12 hex of the file's
sha256>#<index>``, stable for the same bytes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..core.provenance import FileRecord
from ..errors import InputError
from ..staging.context import ReadContext
from ..staging.figures import Columns as Columns
from ..store.staged import StagedRows
from .models import ReferencePoint, ScoreSet, ServingRun

if TYPE_CHECKING:  # numpy loads with the first columns built (small files), not at import
    pass

Container = Literal["json", "jsonl", "csv", "zip", "text", "binary", "empty"]


@dataclass(frozen=True)
class Probe:
    """What detection saw: the container kind and the first value in it.

    ``first`` is the whole document for ``json``, the first record for ``jsonl``, the header
    row (a list of cells) for ``csv``, the first line for ``text`` and the member names for
    ``zip``. ``head`` is the file's first 64 KiB, for detectors of plain-text formats.

    ``path`` is where the bytes are (a build reads a private copy); ``name`` is what every
    message calls the file: its path in the spec or the pack, the user's path on the command
    line. A reader opens ``path`` and names ``name``; nothing rewrites its messages afterwards.

    ``context`` is what the build says about reading the file (``ReadContext``: whether an
    empty output is a success, the runs already staged in a batch); a reader hands it to the
    ``Staging`` it opens.
    """

    path: Path
    container: Container
    first: Any
    head: bytes
    name: str = ""
    context: ReadContext = field(default_factory=ReadContext)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", str(self.path))


@dataclass(frozen=True)
class ParsedInput:
    """One file, read and normalised; nothing is in a store yet.

    ``requests`` holds the per-request rows of every run (column ``run_id`` says which) and
    ``items`` the per-item scores of every score set (column ``set_id``), ready for a bulk
    insert by ``load_input``: numpy columns, or, for a large file read within
    ``staging_db.shared_staging(store)``, ``StagedRows`` left in that store's database.
    """

    format_id: str
    file: FileRecord
    runs: tuple[ServingRun, ...] = ()
    score_sets: tuple[ScoreSet, ...] = ()
    warnings: tuple[str, ...] = ()
    requests: Columns | StagedRows | None = field(default=None, repr=False)
    items: Columns | StagedRows | None = field(default=None, repr=False)
    references: tuple[ReferencePoint, ...] = ()
    plugin: str | None = None
    """``name version`` of the plug-in whose format read the file (None: a built-in reader)."""

    @property
    def kind(self) -> Literal["runs", "scores", "references"]:
        """``references`` for public results to compare against, ``scores`` when the file holds
        score sets or items, else ``runs``."""
        if self.references:
            return "references"
        return "scores" if self.score_sets or self.items is not None else "runs"

    def summary(self) -> dict[str, Any]:
        """A JSON-ready description (``evidencepack inspect --json``)."""
        return {
            "file": self.file.model_dump(mode="json"),
            "format": self.format_id,
            "runs": [run.model_dump(mode="json") for run in self.runs],
            "score_sets": [s.model_dump(mode="json") for s in self.score_sets],
            "references": [r.model_dump(mode="json") for r in self.references],
            "warnings": list(self.warnings),
        }


Detector = Callable[[Probe], bool]
Parser = Callable[[Probe, FileRecord], ParsedInput]


@dataclass(frozen=True)
class Format:
    """One input format: an id, what it yields, how to recognise it and how to read it."""

    id: str
    kind: Literal["runs", "scores", "references"]
    tool: str
    detect: Detector
    parse: Parser
    plugin: str | None = None
    """``name version`` of the installed plug-in that registered this format (None: built in);
    a pack read by a plug-in says so in its inputs and its report."""


def item_id(record: FileRecord, index: int) -> str:
    """The stable id of the ``index``-th run or score set of a file."""
    return f"{record.sha256[:12]}#{index}"


def with_tool(
    record: FileRecord, tool: str, version: str | None, warnings: list[str]
) -> FileRecord:
    """The file record completed with what was detected."""
    return record.model_copy(
        update={"tool": tool, "tool_version": version, "warnings": tuple(warnings)}
    )


def require_completed(name: Path | str, where: str, completed: int) -> None:
    """A run with no completed request measures nothing: refuse it (``name``: the file as
    messages call it)."""
    if completed <= 0:
        raise InputError(
            "zero completed requests; nothing was measured", file=str(name), where=where
        )


def iso_from_epoch(seconds: float | None) -> str | None:
    """An ISO 8601 UTC timestamp from epoch seconds in the file (never from the clock)."""
    if seconds is None or seconds <= 0:
        return None
    try:
        moment = dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
