"""The diff as text for a terminal, or as Markdown for a pull-request comment or a CI step summary.

Both are built from the same rows. Markdown cells escape everything that comes from a pack
(``|``, ``<``, ``>``, ``&``, backticks, brackets): a reason or a file name cannot add markup.
Mentions (``@someone``, ``@org/team``), e-mail addresses and URLs are set in code spans, which
GitHub neither links nor turns into notifications. In both outputs every control, bidi and
invisible character is shown as a visible ``\\uXXXX`` escape (``_display.visible``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from ..core._display import visible, visible_lines
from ..render.formatting import MISSING
from .models import Change, DiffDocument, FieldChange, PackSide

ARROW = "\u2192"
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!~])")
_LINKED = re.compile(
    # URLs GitHub would autolink (ending before trailing punctuation, as GitHub does)
    r"((?:[A-Za-z][A-Za-z0-9+.-]{0,30}://|www\.)(?:[^\s`|<>()\[\]]*[^\s`|<>()\[\].,;:!?'\"])?"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail addresses
    r"|(?<![\w`])@[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?)"  # @user and @org/team mentions
)


def _escape(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def md(text: str) -> str:
    """``text`` safe inside a Markdown table cell: no markup, no HTML, no mention, no link,
    no hidden character, one line."""
    parts = _LINKED.split(visible(" ".join(str(text).split())))
    # split() with one group alternates: plain text, a linked token, plain text, ...
    return "".join(
        _escape(part) if index % 2 == 0 else "`" + part.replace("|", "\\|") + "`"
        for index, part in enumerate(parts)
    )


def _number(value: float | None, kind: str) -> str:
    if value is None:
        return MISSING
    if kind == "count":
        return f"{value:,.0f}"
    if kind == "money":
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"
    if kind == "score":
        return f"{value:.3f}"
    return f"{value:,.2f}"


def change_cell(c: Change, kind: str) -> str:
    """``8 -> 7 (-1, -12.5%)``, or the one value when it did not change."""
    old, new = _number(c.old, kind), _number(c.new, kind)
    if old == new:
        return new
    text = f"{old} {ARROW} {new}"
    if c.absolute is not None:
        delta = _number(c.absolute, kind)
        sign = "+" if c.absolute > 0 else ""
        rel = f", {c.relative:+.1%}" if c.relative is not None else ""
        text += f" ({sign}{delta}{rel})"
    return text


def _pair(old: str | None, new: str | None) -> str:
    old, new = old or MISSING, new or MISSING
    return new if old == new else f"{old} {ARROW} {new}"


def _eligible(value: bool | None) -> str:
    return MISSING if value is None else ("eligible" if value else "NOT eligible")


def _quality(low: Change, high: Change, estimate: Change) -> str:
    def one(e: float | None, lo: float | None, hi: float | None) -> str:
        if e is None:
            return MISSING
        interval = f" [{lo:.3f}, {hi:.3f}]" if lo is not None and hi is not None else ""
        return f"{e:.3f}{interval}"

    old = one(estimate.old, low.old, high.old)
    new = one(estimate.new, low.new, high.new)
    if old == new:
        return new
    rel = f" ({estimate.relative:+.1%})" if estimate.relative is not None else ""
    return f"{old} {ARROW} {new}{rel}"


def threshold_lines(doc: DiffDocument) -> list[str]:
    """Each --fail-on-* limit and what the chosen candidate did against it."""
    lines = []
    for t in doc.outcome.thresholds if doc.outcome else ():
        seen = MISSING if t.change is None else f"{t.change:+.1%}"
        what = "cost per month" if t.name == "cost_increase" else "X*"
        state = "BREACHED" if t.breached else "within"
        lines.append(
            f"limit {t.name.replace('_', ' ')} {t.limit:.1%}: {t.candidate or MISSING} {what} "
            f"{seen}, {state}"
        )
    return lines


def headline(doc: DiffDocument) -> str:
    """The one-line outcome: the decision holds, does not hold, or was not compared; a failing
    diff never reads as holding, and packs of different decisions say so."""
    if not doc.compared:
        if doc.not_compared_because == "different decisions":
            return (
                f"NOT COMPARED: the packs are of different decisions ({doc.old.decision_id}, "
                f"{doc.new.decision_id}); pass --allow-other-decision to compare them"
            )
        return "NOT COMPARED: a pack failed verification"
    assert doc.outcome is not None
    if doc.outcome.holds:
        said = "the decision holds: no change" if doc.identical else "the decision holds"
    else:
        said = "the decision does NOT hold"
        if doc.identical:
            said += " (no change between the packs: it did not hold before either)"
    if doc.other_decision:
        said += (
            f" (different decisions compared as asked: {doc.old.decision_id} -> "
            f"{doc.new.decision_id})"
        )
    return said


def _side_text(side: PackSide) -> str:
    return f"{side.source} ({side.kind}): {side.verification}"


CANDIDATE_HEADER = (
    "candidate",
    "eligible",
    "X* req/s per replica",
    "accelerators",
    "servers",
    "cost per month",
    "cost per 1M output tokens",
    "quality [interval]",
)


def candidate_rows(doc: DiffDocument) -> list[tuple[str, ...]]:
    """One table row per candidate: capacity, cost and quality, old against new."""
    rows: list[tuple[str, ...]] = []
    for c in doc.candidates:
        currency = f" {c.currency}" if c.currency else ""
        name = c.id if c.presence == "both" else f"{c.id} ({c.presence})"
        rows.append(
            (
                name,
                _pair(_eligible(c.old_eligible), _eligible(c.new_eligible)),
                change_cell(c.operating_point_rps, "rate"),
                change_cell(c.accelerators, "count"),
                change_cell(c.servers, "count"),
                change_cell(c.cost_per_month, "money") + currency,
                change_cell(c.cost_per_million_output_tokens, "money") + currency,
                _quality(c.quality_ci_low, c.quality_ci_high, c.quality_estimate),
            )
        )
    return rows


def _field_rows(prefix: str, fields: Sequence[FieldChange]) -> list[tuple[str, str]]:
    return [(f"{prefix}{f.field}", _pair(f.old, f.new)) for f in fields]


def condition_rows(doc: DiffDocument) -> list[tuple[str, str]]:
    """Envelope, stack and other spec changes as (what, old -> new)."""
    rows = _field_rows("", doc.envelope)
    for s in doc.stacks:
        if s.change == "changed":
            rows += _field_rows(f"{s.candidate}: ", s.fields)
        else:
            rows.append((f"{s.candidate}: candidate {s.change}", _pair(s.old, s.new)))
    rows += _field_rows("", doc.spec)
    return rows


CHECK_HEADER = ("check", "candidate", "status", "old reason", "new reason")


def check_rows(doc: DiffDocument) -> list[tuple[str, ...]]:
    """One table row per check whose status changed, old against new."""

    def status(value: str | None, waived: bool) -> str:
        return (value or "absent") + (" (waived)" if waived else "")

    return [
        (
            c.id + (" (hard)" if c.hard else ""),
            c.candidate or MISSING,
            _pair(status(c.old_status, c.old_waived), status(c.new_status, c.new_waived))
            + (" NEWLY BLOCKING" if c.newly_blocking else ""),
            c.old_reason or MISSING,
            c.new_reason or MISSING,
        )
        for c in doc.checks
    ]


INPUT_HEADER = ("change", "candidate", "role", "pack path", "old sha256", "new sha256")


def input_rows(doc: DiffDocument, digits: int = 12) -> list[tuple[str, ...]]:
    """One table row per input file added, removed or changed (digests cut to ``digits``)."""
    return [
        (
            i.change,
            i.candidate or MISSING,
            i.role,
            i.pack_path,
            i.old_sha256[:digits] if i.old_sha256 else MISSING,
            i.new_sha256[:digits] if i.new_sha256 else MISSING,
        )
        for i in doc.inputs
    ]


GROUP_HEADER = ("change", "candidate", "role", "files under", "files", "sha256 (one file)")


def input_group_rows(doc: DiffDocument, digits: int = 12) -> list[tuple[str, ...]]:
    """The input changes grouped by change, candidate and role, each under its files' common
    folder (for the change note: every file and digest is in diff.json)."""
    groups: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for i in doc.inputs:
        key: tuple[str, str, str] = (str(i.change), i.candidate or MISSING, i.role)
        groups.setdefault(key, []).append((i.pack_path, i.new_sha256 or i.old_sha256 or ""))
    rows: list[tuple[str, ...]] = []
    for key, files in groups.items():
        paths = [path for path, _ in files]
        where = posixpath.commonpath(paths) if len(paths) > 1 else paths[0]
        one = files[0][1][:digits] if len(files) == 1 else MISSING
        rows.append((*key, where, str(len(files)), one))
    return rows


def _margin(value: float | None) -> str:
    return MISSING if value is None else f"{value:+.1%}"


def decision_rows(doc: DiffDocument) -> list[tuple[str, str, str]]:
    """The decision's id, verdict and recommendation, old against new."""
    o, n = doc.old, doc.new
    rows = [
        ("decision", f"{o.decision_id} as of {o.as_of}", f"{n.decision_id} as of {n.as_of}"),
        ("verdict", o.verdict or MISSING, n.verdict or MISSING),
        ("recommendation", o.recommendation or "none", n.recommendation or "none"),
        ("chosen", o.chosen or "none", n.chosen or "none"),
    ]
    outcome = doc.outcome
    if outcome is not None and (outcome.old_margin is not None or outcome.new_margin is not None):
        rows.append(
            ("margin to the runner-up", _margin(outcome.old_margin), _margin(outcome.new_margin))
        )
    rows += [
        (
            "evidence digest",
            (o.evidence_digest or MISSING)[:16],
            (n.evidence_digest or MISSING)[:16],
        ),
    ]
    return rows


# --- text ---------------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    table = [tuple(header), *[tuple(r) for r in rows]]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return [
        indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]


def format_text(doc: DiffDocument) -> str:
    """The terminal report: the verdict first, then what changed."""
    lines = [f"evidencepack diff: {headline(doc)}"]
    lines += [f"  old  {_side_text(doc.old)}", f"  new  {_side_text(doc.new)}"]
    if not doc.compared:
        lines += [f"  problem: {p}" for p in doc.problems]
        return visible_lines("\n".join(lines))
    assert doc.outcome is not None
    lines += [f"  why: {reason}" for reason in doc.outcome.reasons]
    lines += [f"  cost basis: {flip}" for flip in doc.outcome.basis_flips]
    lines += [f"  {line}" for line in threshold_lines(doc)]
    lines += ["", "decision:"]
    lines += _table(("", "old", "new"), decision_rows(doc))
    if doc.identical:
        lines += ["", "no change: same inputs, run conditions, checks and figures"]
        return visible_lines("\n".join(lines))
    lines += ["", "candidates:"] + _table(CANDIDATE_HEADER, candidate_rows(doc))
    if condition_rows(doc):
        lines += ["", "run conditions and spec:"]
        lines += [f"  {what}: {change}" for what, change in condition_rows(doc)]
    if doc.checks:
        lines += ["", "checks whose status changed:"]
        lines += _table(CHECK_HEADER, check_rows(doc))
    if doc.inputs:
        lines += ["", f"inputs ({len(doc.inputs)} changed):"]
        lines += _table(INPUT_HEADER, input_rows(doc))
    return visible_lines("\n".join(lines))


# --- markdown -----------------------------------------------------------------------------------


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(md(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in rows]
    return lines


def format_markdown(doc: DiffDocument) -> str:
    """A short summary for a pull-request comment or ``$GITHUB_STEP_SUMMARY``."""
    mark = "PASS" if doc.compared and doc.outcome and doc.outcome.holds else "FAIL"
    lines = [f"### evidencepack diff: {md(headline(doc))} ({mark})", ""]
    lines += [
        f"- old: {md(_side_text(doc.old))}",
        f"- new: {md(_side_text(doc.new))}",
    ]
    if not doc.compared:
        lines += [f"- problem: {md(p)}" for p in doc.problems]
        return "\n".join(lines) + "\n"
    assert doc.outcome is not None
    lines += [f"- **why**: {md(reason)}" for reason in doc.outcome.reasons]
    lines += [f"- cost basis: {md(flip)}" for flip in doc.outcome.basis_flips]
    lines += [f"- {md(line)}" for line in threshold_lines(doc)]
    lines += ["", *_md_table(("", "old", "new"), decision_rows(doc))]
    if doc.identical:
        lines += ["", "No change: same inputs, run conditions, checks and figures."]
        return "\n".join(lines) + "\n"
    lines += ["", "#### Candidates", "", *_md_table(CANDIDATE_HEADER, candidate_rows(doc))]
    conditions = condition_rows(doc)
    if conditions:
        lines += ["", "#### Run conditions and spec", ""]
        lines += _md_table(("field", f"old {ARROW} new"), conditions)
    if doc.checks:
        lines += ["", "#### Checks whose status changed", ""]
        lines += _md_table(CHECK_HEADER, check_rows(doc))
    if doc.inputs:
        lines += [
            "",
            f"<details><summary>Inputs: {len(doc.inputs)} added, removed or changed</summary>",
            "",
            *_md_table(INPUT_HEADER, input_rows(doc)),
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"
