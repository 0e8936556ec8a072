"""The one way in for a file cited as a public result to compare against (``evidence.references``).

``read_reference_points(path, record=...)`` reads the file as ``registry.read_input`` does (by
content) and returns its ``ReferencePoint``s; a file of another kind (a team's own serving run, a
score file) is refused with what it is instead, so a run is never taken for a reference nor a
reference for a run. One exception: a GenAI-Perf / AIPerf profile export holding GPU telemetry
is read, when cited as a reference, for its telemetry alone (``profile_telemetry``): measured
accelerator energy, never a run that sizes.
"""

from __future__ import annotations

from pathlib import Path

from ..core.provenance import FileRecord, file_record
from ..errors import InputError
from .base import ParsedInput
from .detect import probe_file
from .formats import aiperf, profile_telemetry
from .registry import read_input


def read_reference_points(
    path: Path, *, record: FileRecord | None = None, name: str | None = None
) -> ParsedInput:
    """The reference points of one file (``ParsedInput.references``, never empty); InputError
    when the file cannot be read or holds serving runs or scores instead. Messages call the
    file ``name`` (default: ``path``)."""
    parsed = read_input(path, record=record, name=name)
    if parsed.kind == "runs" and parsed.format_id == aiperf.FORMAT.id:
        probe = probe_file(path, name)
        if profile_telemetry.has_telemetry(probe.first):
            return profile_telemetry.parse_profile_telemetry(probe, record or file_record(path))
    if parsed.kind != "references":
        holds = "serving runs" if parsed.kind == "runs" else "scores"
        raise InputError(
            f"a {parsed.format_id} file holds {holds}, not a public result to compare against: "
            "cite it under runs or scores",
            file=str(path) if name is None else name,
        )
    return parsed
