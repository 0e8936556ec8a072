"""The model's own files a spec cites besides its evidence: today its tokenizer
(``envelope.model.tokenizer``), packed like any input (role ``model``) and pinned by its sha256,
so that a pack whose runs were counted with it carries the very file."""

from __future__ import annotations

from ..spec.load import LoadedSpec
from ..spec.models import EvidenceRef
from .collect import Collector
from .records import FileProblem


def take_tokenizer(loaded: LoadedSpec, collector: Collector) -> list[FileProblem]:
    """Pack the tokenizer the envelope names (nothing if it names none); the problems reading
    it (missing, not a single file, a pin that differs, over the size limit) for PROV-FILES."""
    cited = loaded.spec.envelope.model.tokenizer
    if cited is None:
        return []
    got = collector.add_ref(EvidenceRef(path=cited.path, sha256=cited.sha256), "model", None)
    if not got.problems and len(got.files) != 1:
        return [FileProblem(f"{cited.path}: not a single file (give the tokenizer.json)")]
    return list(got.problems)
