"""The change note of ``evidencepack diff --report OUTDIR``: HTML and PDF, signable like a pack.

OUTDIR holds ``change-note.html``, ``change-note.pdf`` (PDF/A-3b, ``diff.json`` embedded),
``diff.json``, the NEW pack's spec as ``inputs/pack.yaml`` and a ``predicate.json`` naming them,
so ``evidencepack sign OUTDIR`` and ``evidencepack verify OUTDIR`` work on it as on a pack. It is
written in a temporary folder beside OUTDIR and renamed into place when complete.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .. import __version__
from ..errors import CouldNotRun, RenderError
from ..pack.layout import PREDICATE_NAME, SPEC_PATH
from ..pack.manifest import document_bytes
from ..pack.predicate import DecisionSummary, PackPredicate, SpecRef, ToolInfo, write_predicate
from ..pack.toolchain import rendering_toolchain
from ..render.html import environment
from ..render.pdf import Attachment, render_pdf
from .models import DiffDocument
from .run import DiffResult
from .summary import (
    CANDIDATE_HEADER,
    CHECK_HEADER,
    GROUP_HEADER,
    candidate_rows,
    check_rows,
    condition_rows,
    decision_rows,
    input_group_rows,
)

TEMPLATE = "change-note.html.j2"
NOTE_FILES = ("change-note.html", "change-note.pdf")
DIFF_NAME = "diff.json"


@dataclass(frozen=True)
class NoteView:
    """The rows the template shows: the same as the Markdown summary's."""

    created: str
    question: str
    recommendation: str
    chosen: str
    tool_version: str
    decision: list[tuple[str, str, str]]
    candidate_header: tuple[str, ...]
    candidates: list[tuple[str, ...]]
    conditions: list[tuple[str, str]]
    check_header: tuple[str, ...]
    checks: list[tuple[str, ...]]
    input_header: tuple[str, ...]
    inputs: list[tuple[str, ...]]


def _pair(old: str | None, new: str | None) -> str:
    old, new = old or "none", new or "none"
    return new if old == new else f"{old} \u2192 {new}"


def render_note_html(result: DiffResult) -> str:
    """The change note's HTML (deterministic: its date is the NEW decision's)."""
    doc, new = result.document, result.new
    if new is None or doc.outcome is None or doc.new.as_of is None:
        raise CouldNotRun("a change note needs two compared packs")
    view = NoteView(
        created=doc.new.as_of.isoformat(),
        question=new.question,
        recommendation=_pair(doc.outcome.old_recommendation, doc.outcome.new_recommendation),
        chosen=_pair(doc.outcome.old_chosen, doc.outcome.new_chosen),
        tool_version=__version__,
        decision=decision_rows(doc)[1:-1],
        candidate_header=CANDIDATE_HEADER,
        candidates=candidate_rows(doc),
        conditions=condition_rows(doc),
        check_header=CHECK_HEADER,
        checks=check_rows(doc),
        input_header=GROUP_HEADER,
        inputs=input_group_rows(doc),
    )
    try:
        return environment().get_template(TEMPLATE).render(doc=doc, t=view)
    except jinja2.TemplateError as exc:
        raise RenderError(f"the change-note template failed: {exc}") from exc


def note_predicate(doc: DiffDocument, spec_sha256: str, created: dt.datetime) -> PackPredicate:
    """The predicate a signature of the note attests: the NEW decision, its spec, the note."""
    new = doc.new
    if new.decision_id is None or new.as_of is None or new.verdict is None:
        raise CouldNotRun("a change note needs the NEW pack's decision")
    outcome = doc.outcome
    holds = "holds" if outcome and outcome.holds else "does NOT hold"
    return PackPredicate(
        tool=ToolInfo(version=__version__),
        spec=SpecRef(pack_path=SPEC_PATH, sha256=spec_sha256),
        # Validated at run time: the verdict is the text the NEW pack states.
        decision=DecisionSummary.model_validate(
            {
                "decision_id": new.decision_id,
                "question": f"change note: {doc.old.source} -> {doc.new.source}",
                "as_of": new.as_of,
                "recommendation": new.recommendation,
                "chosen": new.chosen,
                "verdict": new.verdict,
                "summary": f"against the pack of {doc.old.as_of}, the decision {holds}",
            }
        ),
        toolchain=rendering_toolchain(),
        created_at=created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        rendered=NOTE_FILES,
    )


def write_change_note(result: DiffResult, out: Path, *, force: bool = False) -> Path:
    """Render the note into ``out`` (replaced only with ``force``); return ``out``."""
    from ..pack.publish import discard, publish, staging_dir

    doc, new = result.document, result.new
    if new is None or result.new_spec is None or doc.new.as_of is None:
        raise CouldNotRun("the change note needs the NEW pack's decision and its spec copy")
    html = render_note_html(result)
    diff_bytes = document_bytes(doc)
    created = dt.datetime.combine(doc.new.as_of, dt.time(0), tzinfo=dt.UTC)
    pdf = render_pdf(
        html,
        created=created,
        attachments=[
            Attachment(
                name=DIFF_NAME,
                data=diff_bytes,
                mime_type="application/json",
                description="the whole diff of the two packs",
            )
        ],
    )
    staging = staging_dir(out)
    try:
        (staging / "inputs").mkdir()
        for name, data in (
            (SPEC_PATH, result.new_spec),
            (DIFF_NAME, diff_bytes),
            (NOTE_FILES[0], html.encode("utf-8")),
            (NOTE_FILES[1], pdf),
        ):
            (staging / name).write_bytes(data)
        write_predicate(staging, note_predicate(doc, new.spec_sha256, created))
    except OSError as exc:
        discard(staging)
        raise CouldNotRun(f"cannot write the change note beside {out}: {exc}") from exc
    except BaseException:
        discard(staging)
        raise
    # --force replaces only an earlier change note (it holds these files).
    publish(staging, out, force=force, markers=(PREDICATE_NAME, DIFF_NAME))
    return out
