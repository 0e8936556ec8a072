"""What the intake records about each input file, shared by every stage after it.

``InputFile`` is one cited file as the pack lists it (``decision.json`` and ``manifest.json``);
``FileProblem`` a PROV-FILES finding about one; ``SPEC_PATH`` where the spec itself sits in a
pack (the inputs folder mirrors the spec's folder). They live here, below the analysis and the
pack, so the intake never imports a later stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..core.pack_paths import INPUTS_DIR as INPUTS_DIR
from ..core.pack_paths import SPEC_PATH as SPEC_PATH
from ..core.provenance import FileRecord


class InputFile(StrictModel):
    """One input file of the pack: where it sits in the pack, what it is, its digest."""

    pack_path: str = Field(description="relative POSIX path inside the pack (inputs/...)")
    spec_path: str = Field(description="the path as the spec names it")
    role: Literal[
        "spec", "dataset", "mlperf", "runs", "scores", "references", "prices", "model"
    ] = Field(
        description=(
            "why the spec cites the file: the spec itself, a dataset, MLPerf "
            "results, serving runs, quality scores, public references, prices, or the "
            "model's signature and its signer's key or trusted root (model)"
        )
    )
    candidate: str | None = Field(
        default=None,
        description=(
            "the candidate whose evidence cites the file (the first one, when "
            "several cite it); None for the spec and shared datasets"
        ),
    )
    sha256: Sha256Hex = Field(
        description="sha256 hex of the file's bytes, as read once when the pack was built"
    )
    size_bytes: int = Field(ge=0, description="the file's size in bytes")
    format: str | None = Field(default=None, description="detected format id")
    tool: str | None = Field(
        default=None,
        description=(
            "the tool that wrote the file, as its reader detected it (e.g. "
            "mlperf-loadgen); None when not detected or not read by a reader"
        ),
    )
    tool_version: str | None = Field(
        default=None,
        description="that tool's version as the file records it; None when it records none",
    )
    warnings: tuple[str, ...] = Field(
        default=(), description="what the file's reader noticed while reading it (one line each)"
    )
    plugin: str | None = Field(
        default=None,
        description="name and version of the plug-in whose format read the file (None: a "
        "built-in reader)",
    )

    def as_read(self) -> FileRecord:
        """The file as a reader is handed it: named by its pack path, with the digest and size
        of the one read the collector made (a reader never hashes a pack input again)."""
        return FileRecord(path=self.pack_path, size_bytes=self.size_bytes, sha256=self.sha256)


def in_spec(file: InputFile) -> str:
    """A file's own path relative to the spec (inside a cited folder, the file, not the folder)."""
    return file.pack_path.removeprefix("inputs/")


@dataclass(frozen=True)
class FileProblem:
    """A PROV-FILES finding about one cited input: missing, unreadable, not matching its pinned
    digest, or holding nothing the spec cites it for. ``file`` is the input concerned once it is
    in the pack (None for a file that could not be read at all)."""

    reason: str
    file: InputFile | None = None
