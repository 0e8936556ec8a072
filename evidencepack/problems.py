"""Problems as objects: the file, line, column, field path, code, message and hint of each finding.

``InputError.problems`` holds one ``file:line:col: field: message`` line per finding. The lines
the spec validator writes are ``ProblemText``: a ``str`` (printed, sorted and compared as before)
that also carries its ``Problem``. ``problem_of`` returns that object, or, for a line some other
reader wrote, the object its ``file:line:col:`` form states. ``validate --json`` and
``check --json`` print these objects (``ValidationReport``, schemas/validation-report.v1).
"""

from __future__ import annotations

import re
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


class ProblemText(str):
    """A problem line that carries its ``Problem`` (``problem_of`` reads it back)."""

    problem: Problem

    def __new__(cls, problem: Problem) -> ProblemText:
        """The line ``problem.text``, remembering ``problem``."""
        made = super().__new__(cls, problem.text)
        made.problem = problem
        return made


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
) -> ProblemText:
    """A ``file:line:col: field: message`` line, then ``; hint`` (or `` (hint)`` with ``paren``),
    and its Problem."""
    where = f"{file}:{line}:{column}: " + (f"{field}: " if field else "")
    body = message + ((f" ({hint})" if paren else f"; {hint}") if hint else "")
    problem = Problem(
        file=file,
        line=line,
        column=column,
        field=field or None,
        code=code,
        message=message,
        hint=hint,
        text=where + body,
    )
    return ProblemText(problem)


_LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<column>\d+))?: (?P<rest>.*)$")
_FILE_ONLY = re.compile(r"^(?P<file>[^\s:][^:]*?): (?P<rest>.*)$")
_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*): (?P<rest>.*)$")
_HINT = re.compile(
    r"^(?P<message>.*?); (?P<hint>(?:did you mean|write |pass --|expected one of).*)$"
)


def problem_of(text: str, *, code: str = "input") -> Problem:
    """The Problem of one problem line: the one it carries, else the one its form states."""
    if isinstance(text, ProblemText):
        return text.problem
    file: str | None = None
    line = column = None
    rest = text
    if match := _LOCATED.match(text):
        file, rest = match["file"], match["rest"]
        line, column = int(match["line"]), int(match["column"]) if match["column"] else None
    elif match := _FILE_ONLY.match(text):
        file, rest = match["file"], match["rest"]
    field = None
    if line is not None and (named := _FIELD.match(rest)):
        field, rest = named["field"], named["rest"]
    message, hint = split_hint(rest)
    if code == "input" and message.startswith("YAML syntax error"):
        code = "yaml_syntax"
    return Problem(
        file=file,
        line=line,
        column=column,
        field=field,
        code=code,
        message=message,
        hint=hint,
        text=text,
    )


def split_hint(message: str) -> tuple[str, str | None]:
    """``(message, hint)``: a trailing ``; did you mean ...`` or ``; write ...`` is the hint."""
    if match := _HINT.match(message):
        return match["message"], match["hint"]
    return message, None


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


def report_of(spec: str, message: str, problems: tuple[str, ...]) -> ValidationReport:
    """The report of a spec (or input) that failed: every problem line as an object."""
    return ValidationReport(
        spec=spec,
        valid=False,
        message=message,
        problems=tuple(problem_of(p) for p in problems),
    )
