"""Problems as objects: the file, line, column, field path, code, message and hint of each finding.

A problem is made as a ``Problem`` where it is found (the spec validator, ``located``; a reader's
``InputError`` from its file, place and message) and travels as that object
(``InputError.found``); its ``text`` is composed once, when it is made, and is what the text
edges print (``InputError.problems``). Nothing parses a problem's text back into a problem.
``validate --json`` and ``check --json`` print the objects (``ValidationReport``,
schemas/validation-report.v1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from ._models import StrictModel

VALIDATION_API_VERSION: Literal["evidencepack/validation/v1"] = "evidencepack/validation/v1"


class Problem(StrictModel):
    """One finding in an input: where it is, what is wrong, and how to fix it."""

    file: str | None = Field(description="the file the problem is in, as given; None if unknown")
    line: int | None = Field(default=None, ge=1, description="1-based line, None if unknown")
    column: int | None = Field(default=None, ge=1, description="1-based column, None if unknown")
    field: str | None = Field(
        default=None,
        description="the dotted path of the field in the document (candidates[0].price), "
        "None when the problem is not about one field",
    )
    code: str = Field(
        description="what kind of problem: pydantic's error type for a wrong value "
        "(missing, extra_forbidden, float_parsing, literal_error, ...), todo for a value "
        "`init` left to fill, yaml_syntax, spec_rule for a rule across fields, input for a "
        "problem another reader reported"
    )
    message: str = Field(description="what is wrong, without the location and the hint")
    hint: str | None = Field(
        default=None, description="how to fix it (did you mean ..., the expected form), if known"
    )
    text: str = Field(description="the whole problem as one line, as the text output prints it")


def located(
    file: str,
    line: int,
    column: int,
    field: str | None,
    code: str,
    message: str,
    hint: str | None = None,
    *,
    paren: bool = False,
) -> Problem:
    """The problem at ``file:line:col``; its ``text`` is the one line every edge prints:
    ``file:line:col: field: message``, then ``; hint`` (or `` (hint)`` with ``paren``)."""
    where = f"{file}:{line}:{column}: " + (f"{field}: " if field else "")
    body = message + ((f" ({hint})" if paren else f"; {hint}") if hint else "")
    return Problem(
        file=file,
        line=line,
        column=column,
        field=field or None,
        code=code,
        message=message,
        hint=hint,
        text=where + body,
    )


def unlocated(text: str, *, file: str | None = None, code: str = "input") -> Problem:
    """A problem a reader stated as one line with no position: the whole line is its message
    (never parsed for a position or a hint: what is not handed over as a value is not known)."""
    return Problem(file=file, code=code, message=text, text=text)


def by_position(problem: Problem) -> tuple[int, int, str]:
    """Sort key of problems: by line and column (unlocated first), then text."""
    return (problem.line or 0, problem.column or 0, problem.text)


class ValidationReport(StrictModel):
    """``validate --json``, and ``check --json`` when the spec or an input cannot be read."""

    api_version: Literal["evidencepack/validation/v1"] = Field(
        default=VALIDATION_API_VERSION,
        alias="apiVersion",
        description="the document type and version: evidencepack/validation/v1",
    )
    spec: str = Field(description="the spec file, as given")
    valid: bool = Field(description="true when the spec (and, for check, every input) is valid")
    message: str | None = Field(
        default=None, description="the one-line summary of the error; None when valid"
    )
    decision: str | None = Field(default=None, description="the spec's decision id, when valid")
    candidates: tuple[str, ...] = Field(
        default=(), description="the candidate ids, when the spec is valid"
    )
    evidence_files: int | None = Field(
        default=None, description="how many evidence references the spec makes, when valid"
    )
    problems: tuple[Problem, ...] = Field(
        default=(), description="every problem found, in file order; empty when valid"
    )


def report_of(spec: str, message: str, problems: Sequence[Problem]) -> ValidationReport:
    """The report of a spec (or input) that failed: every problem as the object it was made."""
    return ValidationReport(spec=spec, valid=False, message=message, problems=tuple(problems))
