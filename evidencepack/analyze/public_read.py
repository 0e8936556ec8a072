"""Read the public results and estimates a candidate cites (``evidence.references``) into the
analysis' view: each point of each file, named by the spec's path; a file that cannot be read
as one is a PROV-FILES problem naming it."""

from __future__ import annotations

from ..errors import InputError
from ..inputs.collect import Collector
from ..inputs.records import FileProblem, in_spec
from ..inputs.reference_points import read_reference_points
from ..spec import EvidenceRef, LoadedSpec
from .evidence import PublicEvidence


def public_points(
    loaded: LoadedSpec,
    collector: Collector,
    candidate: str,
    ref: EvidenceRef,
    problems: list[FileProblem],
) -> list[PublicEvidence]:
    """The points of one cited reference (a file, or a folder of them)."""
    ref_files = collector.add_ref(ref, "references", candidate)
    problems += ref_files.problems
    out: list[PublicEvidence] = []
    several = len(ref_files.files) > 1
    for file in ref_files.files:
        path = collector.result.sources[file.pack_path]
        try:
            parsed = read_reference_points(path, record=file.as_read())
        except InputError as exc:
            message = exc.message.replace(str(path), in_spec(file))
            problems.append(FileProblem(f"{ref.path}: cannot read: {message}", file))
            continue
        collector.annotate(
            file.pack_path,
            fmt=parsed.format_id,
            tool=parsed.references[0].source_tool,
            tool_version=parsed.references[0].tool_version,
            warnings=parsed.warnings,
            plugin=parsed.plugin,
        )
        base = in_spec(file) if several else ref.path
        for point in parsed.references:
            label = base if len(parsed.references) == 1 else f"{base}#{point.index}"
            out.append(PublicEvidence(label, collector.result.files[file.pack_path], point))
    return out
