"""Open two packs (or build the new one from a spec) and compare their decisions: ``diff_packs``."""

from __future__ import annotations

import datetime as dt
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..analyze.models import DecisionDocument
from ..errors import InputError
from .compare import Thresholds, compare, not_compared
from .models import DiffDocument
from .packs import BuildSpec, PackUnreadable, open_pack
from .watch_evidence import is_watch_folder, spec_with_watch

if TYPE_CHECKING:  # verification loads only when a policy asks for it (diff/packs.py)
    from ..signing.verify import VerifyPolicy


@dataclass(frozen=True)
class DiffOptions:
    """How to open the packs and when the decision stops holding."""

    policy: VerifyPolicy | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    allow_outside: bool = False
    """For a spec given as NEW: allow evidence paths outside its folder."""
    as_of: dt.date | None = None
    """For a spec given as NEW: judge waivers on this date."""
    allow_other_decision: bool = False
    """Compare packs of different decisions (another ``decision_id``); refused otherwise."""


@dataclass(frozen=True)
class DiffResult:
    """The comparison, both decisions (None where a pack could not be read) and the NEW spec."""

    document: DiffDocument
    old: DecisionDocument | None
    new: DecisionDocument | None
    new_spec: bytes | None
    """The NEW pack's ``inputs/pack.yaml`` bytes (the change note carries them)."""

    @property
    def holds(self) -> bool:
        """True when both packs were compared and the decision still holds."""
        outcome = self.document.outcome
        return self.document.compared and outcome is not None and outcome.holds


def _builder(options: DiffOptions) -> BuildSpec:
    def build_spec(spec: Path, work: Path) -> Path:
        from ..pipeline import BuildOptions, CompileOptions, build

        compile_options = CompileOptions(allow_outside=options.allow_outside, as_of=options.as_of)
        try:
            return build(spec, work / "pack", BuildOptions(compile=compile_options)).out_dir
        except InputError as exc:
            # Exit 1 means "the decision does not hold": a spec that does not build is exit 3.
            details = "".join(f"\n  {p}" for p in exc.problems if p != exc.message)
            raise PackUnreadable(
                f"NEW {spec}: the spec does not build: {exc.message}{details}", exc.problems
            ) from exc

    return build_spec


def diff_packs(old: Path, new: Path, options: DiffOptions) -> DiffResult:
    """Open, verify (with ``options.policy``) and compare two packs; NEW may be a spec, or a
    folder ``evidencepack watch`` wrote (OLD rebuilt with the watch's run as new evidence).

    Each pack is read once, and a pack that fails verification is not read: the result says
    why and compares nothing. Packs of different decisions are compared only when
    ``options.allow_other_decision``.
    """
    with ExitStack() as stack:
        watched = None
        if is_watch_folder(new):
            # A watch: OLD's checked inputs (copied from the one read of OLD) plus the
            # watch's run, built as NEW.
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="evidencepack-")))
            watched = work / "new"
        a = open_pack(old, "OLD", stack, policy=options.policy, inputs_to=watched)
        if watched is not None and a.decision is not None and watched.is_dir():
            new = spec_with_watch(new, watched)
        b = open_pack(new, "NEW", stack, policy=options.policy, build_spec=_builder(options))
    if a.decision is None or b.decision is None:
        problems = [
            f"{label} {side.source}: {problem}"
            for label, side in (("OLD", a.side), ("NEW", b.side))
            for problem in side.problems
        ]
        return DiffResult(not_compared(a.side, b.side, problems), None, None, None)
    other = a.decision.decision_id != b.decision.decision_id
    if other and not options.allow_other_decision:
        problem = (
            f"OLD decides {a.decision.decision_id}, NEW decides {b.decision.decision_id}: packs "
            "of different decisions are not compared (pass --allow-other-decision to compare "
            "them anyway)"
        )
        document = not_compared(a.side, b.side, [problem], reason="different decisions")
        return DiffResult(document, None, None, None)
    document = compare(a.decision, b.decision, a.side, b.side, options.thresholds)
    return DiffResult(document, a.decision, b.decision, b.spec)
