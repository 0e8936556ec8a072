"""Load a pack spec: ``load_spec()`` reads ``pack.yaml`` with the safe YAML loader, validates it
against the models (``spec/models.py``) and the problems no field type catches
(``spec/semantic.py``), and reports every problem as ``pack.yaml:LINE:COL: field.path: message``.
A ``LoadedSpec`` resolves evidence paths relative to the spec's folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from ..core.problems import Problem, by_position
from ..errors import SpecError
from .located import Loc, load_located
from .models import EvidenceRef, PackSpec
from .semantic import id_problems, path_problem, raw_paths, semantic_problems
from .validation import located_problem, validate_located


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec with the file it came from; resolves evidence paths."""

    spec: PackSpec
    path: Path
    allow_outside: bool = False

    @cached_property
    def base_dir(self) -> Path:
        """The spec's folder: evidence paths are relative to it (resolved once: a build
        resolves every cited path from it)."""
        return self.path.resolve().parent

    def resolve(self, relative: str) -> Path:
        """An evidence path of the spec, as an absolute path."""
        return (self.base_dir / relative).resolve()

    def evidence_refs(self) -> Iterator[tuple[Loc, str, EvidenceRef]]:
        """Every evidence reference with its spec location and role (mlperf, runs, scores)."""
        yield from _evidence_refs(self.spec)


def _evidence_refs(spec: PackSpec) -> Iterator[tuple[Loc, str, EvidenceRef]]:
    for ci, candidate in enumerate(spec.candidates):
        for role in ("mlperf", "runs", "scores", "references"):
            refs: list[EvidenceRef] = list(getattr(candidate.evidence, role))
            for ri, ref in enumerate(refs):
                yield ("candidates", ci, "evidence", role, ri, "path"), role, ref


def load_spec(
    path: Path,
    *,
    allow_outside: bool = False,
    read_from: Path | None = None,
    label: str | None = None,
) -> LoadedSpec:
    """Load and validate ``path``; raise SpecError listing every problem with line and column.

    ``read_from`` is the file whose bytes are parsed (a build's snapshot of ``path``, so that
    the spec the analysis follows is the one packed); evidence paths still resolve from ``path``.
    ``label`` is what messages call the spec (default: ``path``; a rebuild: its pack path).
    """
    shown = path if label is None else Path(label)
    from ..errors import InputError

    try:
        doc = load_located(shown, read_from=read_from or path)
    except InputError as exc:
        raise SpecError(exc.message, exc.found) from exc
    base = path.resolve().parent
    folder = None if label is None else str(PurePosixPath(label).parent)
    # Evidence paths and candidate ids are checked from the raw document, so that a spec with
    # type errors reports its missing files and unknown ids in the same pass, not a second one.
    early = [
        located_problem(doc, shown, loc, *problem)
        for loc, relative in raw_paths(doc.data)
        if (problem := path_problem(base, relative, allow_outside=allow_outside, base_name=folder))
    ]
    early += [located_problem(doc, shown, loc, msg) for loc, msg in id_problems(doc.data)]
    try:
        spec = validate_located(PackSpec, doc, shown)
    except InputError as exc:
        problems = sorted({*exc.found, *early}, key=by_position)
        raise SpecError(f"{shown}: {len(problems)} problem(s) in the spec", problems) from exc

    problems = [located_problem(doc, shown, loc, msg) for loc, msg in semantic_problems(spec)]
    problems = sorted([*problems, *early], key=by_position)
    if problems:
        raise SpecError(f"{shown}: {len(problems)} problem(s) in the spec", problems)
    return LoadedSpec(spec=spec, path=path, allow_outside=allow_outside)


def outside_paths(spec: Path, label: str) -> list[Problem]:
    """Each evidence path of ``spec`` that is absolute or leaves the spec's folder, located
    (``inputs/pack.yaml:12:15: candidates[0].evidence.runs[0].path: ...``)."""
    doc = load_located(Path(label), read_from=spec)
    base = spec.resolve().parent
    return [
        located_problem(doc, Path(label), loc, f"{relative!r} is outside the pack")
        for loc, relative in raw_paths(doc.data)
        if Path(relative).is_absolute() or not (base / relative).resolve().is_relative_to(base)
    ]
