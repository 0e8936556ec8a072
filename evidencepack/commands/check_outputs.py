"""The decision for CI systems: JUnit XML (``check --junit``) and Markdown (``check --markdown``).

JUnit: one ``<testsuite>`` per candidate (and one, ``decision``, for the checks about no single
candidate), one ``<testcase>`` per check result. A FAIL that no waiver covers is a ``<failure>``
whose message is the check's reason (``type`` says whether the check is hard, i.e. blocks the
gate, or soft). A WARN, and a FAIL a waiver covers, is a passed case whose ``<system-out>``
holds the reason: the check ran and did not fail the gate, so it is neither failed nor skipped.
Nothing time-dependent is written: the same decision gives the same bytes.

Markdown: a job-summary block (GitHub ``$GITHUB_STEP_SUMMARY``, a merge-request note); every
value read from the decision is escaped, so a reason or an id cannot add markup or HTML.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..diff.summary import md

if TYPE_CHECKING:
    from ..analyze.models import CheckResult, DecisionDocument
    from ..core.problems import ValidationReport
    from ..pipeline import BuildResult

DECISION_SUITE = "decision"


def gate_verdict(decision: DecisionDocument, *, allow_waivers: bool = True) -> str:
    """What the gate says, never contradicting its exit code: the decision's verdict, or, when
    ``allow_waivers`` is False (``check --no-waivers``) and a waived failure fails the gate, FAIL
    with why (the decision's own verdict, PASS WITH WAIVERS, is named beside it)."""
    if decision.gate_passes(allow_waivers=allow_waivers) or allow_waivers:
        return decision.verdict
    if not decision.waived_failures() or decision.verdict not in ("PASS", "PASS WITH WAIVERS"):
        return decision.verdict
    return (
        "FAIL (waived failures are not allowed by --no-waivers; "
        f"the decision's verdict is {decision.verdict})"
    )


def junit_xml(decision: DecisionDocument, *, allow_waivers: bool = True) -> bytes:
    """The decision's check results as JUnit XML (UTF-8, with an XML declaration). Without
    ``allow_waivers`` (``check --no-waivers``) a waived FAIL is a failure too."""
    suites: dict[str, list[CheckResult]] = {}
    for result in decision.checks:
        suites.setdefault(result.candidate or DECISION_SUITE, []).append(result)
    root = ET.Element("testsuites", name=f"evidencepack {decision.decision_id}")
    totals = {"tests": 0, "failures": 0}
    for name, results in suites.items():
        suite = ET.SubElement(root, "testsuite", name=name, package=decision.decision_id)
        failures = 0
        for result in results:
            failures += _testcase(suite, decision.decision_id, name, result, allow_waivers)
        suite.set("tests", str(len(results)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        suite.set("time", "0")
        totals["tests"] += len(results)
        totals["failures"] += failures
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    root.set("time", "0")
    return _xml_bytes(root)


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 forbids (controls, lone surrogates, U+FFFE and U+FFFF): no escape makes
them well-formed."""


def _xml_text(text: str) -> str:
    """``text`` with each character XML 1.0 forbids written as a visible ``\\uXXXX``."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _xml_bytes(root: ET.Element) -> bytes:
    """The document's bytes: UTF-8 with its declaration, indented, a trailing newline; every
    text and attribute value holds only characters XML 1.0 allows (a key of an evidence file
    may hold any)."""
    for element in root.iter():
        for key, value in element.attrib.items():
            element.set(key, _xml_text(value))
        if element.text:
            element.text = _xml_text(element.text)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    return data + b"\n"


def _testcase(
    suite: ET.Element, decision_id: str, name: str, result: CheckResult, allow_waivers: bool
) -> int:
    """Add one result's ``<testcase>``; return 1 if it is a failure."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"evidencepack.{decision_id}.{name}",
        name=f"{result.id}: {result.title}",
        time="0",
    )
    if result.status == "FAIL" and (result.waived is None or not allow_waivers):
        kind = "hard check failed" if result.hard else "soft check failed (does not block)"
        if result.waived is not None:
            kind = "waived failure (--no-waivers)"
        failure = ET.SubElement(case, "failure", message=result.reason, type=kind)
        failure.text = result.reason + _waiver_note(result)
        return 1
    if result.status != "PASS" or result.waived is not None:
        out = ET.SubElement(case, "system-out")
        out.text = f"{result.status}: {result.reason}" + _waiver_note(result)
    return 0


def _waiver_note(result: CheckResult) -> str:
    w = result.waived
    if w is None:
        return ""
    return f"\nwaived by {w.approver} until {w.expires.isoformat()}: {w.reason}"


def markdown(
    decision: DecisionDocument, built: BuildResult | None = None, *, allow_waivers: bool = True
) -> str:
    """The decision as a Markdown job summary: verdict, candidates, and every non-PASS check;
    with ``built``, the pack written (folder, signature, evidence digest, archive). The mark says
    whether the gate passes (``allow_waivers`` False: ``check --no-waivers``)."""
    mark = "\u2705" if decision.gate_passes(allow_waivers=allow_waivers) else "\u274c"
    command = "build" if built else "check"
    lines = [
        f"### {mark} evidencepack {command}: {md(decision.decision_id)}: "
        f"{md(gate_verdict(decision, allow_waivers=allow_waivers))}",
        "",
        md(decision.summary),
        "",
    ]
    if built is not None:
        signed = "signed" if built.signed else "not signed"
        lines += [
            f"Pack {md(str(built.out_dir))} ({signed}), evidence digest "
            f"{md(built.evidence_digest)}"
            + (f", archive {md(str(built.archive))}" if built.archive else "")
            + ".",
            "",
        ]
    lines += [
        "| candidate | eligible | accelerators | cost per month |",
        "|---|---|---|---|",
    ]
    for v in decision.candidates:
        accel = "-" if v.accelerators_needed is None else str(v.accelerators_needed)
        cost = "-" if v.cost_per_month is None else f"{v.cost_per_month:,.0f} {v.currency}"
        chosen = " (recommended)" if v.id == decision.recommendation else ""
        lines.append(
            f"| {md(v.id)}{chosen} | {'yes' if v.eligible else 'no'} | {md(accel)} | {md(cost)} |"
        )
    notable = [c for c in decision.checks if c.status != "PASS" or c.waived is not None]
    passed = len(decision.checks) - len(notable)
    lines += ["", f"{passed} of {len(decision.checks)} check results PASS."]
    if notable:
        lines += ["", "| status | check | candidate | reason |", "|---|---|---|---|"]
    for c in notable:
        flag = " (waived)" if c.waived else (" (hard)" if c.hard and c.status == "FAIL" else "")
        lines.append(
            f"| {md(c.status)}{flag} | {md(c.id)} | {md(c.candidate or '-')} | {md(c.reason)} |"
        )
    if decision.waivers_rejected:
        lines += ["", "Waivers rejected:", ""]
        lines += [f"- {md(text)}" for text in decision.waivers_rejected]
    return "\n".join(lines) + "\n"


def problems_junit_xml(report: ValidationReport) -> bytes:
    """An invalid spec or input as JUnit XML: one failed ``<testcase>`` per located problem."""
    root = ET.Element("testsuites", name=f"evidencepack {report.spec}")
    suite = ET.SubElement(root, "testsuite", name="spec", package=report.spec)
    for problem in report.problems:
        where = ":".join(str(p) for p in (problem.file, problem.line, problem.column) if p)
        case = ET.SubElement(
            suite, "testcase", classname="evidencepack.spec", name=where or report.spec, time="0"
        )
        failure = ET.SubElement(case, "failure", message=problem.message, type=problem.code)
        failure.text = problem.text
    count = str(len(report.problems))
    for element in (root, suite):
        element.set("tests", count)
        element.set("failures", count)
        element.set("errors", "0")
        element.set("time", "0")
    suite.set("skipped", "0")
    return _xml_bytes(root)


def problems_markdown(report: ValidationReport) -> str:
    """An invalid spec or input as a Markdown job summary: one row per located problem."""
    lines = [
        f"### \u274c evidencepack check: {md(report.spec)} cannot be checked",
        "",
        md(report.message or ""),
        "",
        "| where | field | problem | hint |",
        "|---|---|---|---|",
    ]
    for p in report.problems:
        where = ":".join(str(part) for part in (p.file, p.line, p.column) if part)
        lines.append(
            f"| {md(where or '-')} | {md(p.field or '-')} | {md(p.message)} | {md(p.hint or '-')} |"
        )
    return "\n".join(lines) + "\n"
