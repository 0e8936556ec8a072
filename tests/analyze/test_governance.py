"""Sign-off follows the rules of the house (issue 37 point 7), on copies of the sample: a waiver
approved by the decision's owner, an approval dated before the evidence, a departure from the
recommendation without a reason and a waiver with no end each fail a hard, unwaivable check
naming the people, the dates and the rule; the spec's `governance` block changes the rules."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from evidencepack.analyze.models import CheckResult, DecisionDocument
from evidencepack.pipeline import CompileOptions, check
from evidencepack.spec.governance import Governance

from .test_fit import _edit

OWNER = "  owner: ML Platform team (sample)\n"
APPROVALS = (
    "approvals:\n  - {name: A. Example (sample), role: Head of ML Platform, date: 2026-11-30}\n"
)
# With the bar at 0.86 mi325x-vllm fails QUALITY: a waiver is then needed to keep it.
BAR = "    threshold: 0.80\n"


def _decision(doc: DecisionDocument, check_id: str) -> CheckResult:
    return next(c for c in doc.checks if c.id == check_id and c.candidate is None)


def _waive(samples: Path, approver: str, expires: str = "2027-01-31") -> None:
    _edit(samples, BAR, "    threshold: 0.86\n")
    _edit(
        samples,
        APPROVALS,
        APPROVALS
        + "waivers:\n  - {check: QUALITY, candidate: mi325x-vllm, reason: accepted for launch, "
        f"approver: {approver}, expires: {expires}}}\n",
    )


def test_the_sample_passes_governance_and_says_why(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    governance = _decision(doc, "GOVERNANCE")
    assert governance.status == "PASS"
    assert governance.hard
    assert "approved by A. Example (sample) (Head of ML Platform, 2026-11-30)" in governance.reason
    assert "on or after the newest evidence" in governance.reason
    assert doc.verdict == "PASS"


def test_a_waiver_approved_by_the_owner_fails(samples: Path) -> None:
    _waive(samples, "ml platform  TEAM (sample)")  # the owner, however spelt
    doc = check(samples / "pack.yaml", CompileOptions())
    governance = _decision(doc, "GOVERNANCE")
    assert governance.status == "FAIL"
    assert (
        "the QUALITY waiver for mi325x-vllm is approved by ml platform  TEAM (sample), the "
        "decision's owner: a waiver's approver is not the decision's owner "
        "(governance.segregation)"
    ) in governance.reason
    assert doc.verdict == "FAIL"


def test_segregation_can_be_turned_off_and_then_the_waiver_holds(samples: Path) -> None:
    _waive(samples, "ML Platform team (sample)")
    _edit(
        samples,
        "stack_mismatch_discount:",
        "governance: {segregation: false}\nstack_mismatch_discount:",
    )
    doc = check(samples / "pack.yaml", CompileOptions())
    assert _decision(doc, "GOVERNANCE").status == "PASS"
    assert doc.verdict == "PASS WITH WAIVERS"


def test_a_waiver_with_no_end_fails(samples: Path) -> None:
    _waive(samples, "R. Auditor (risk)", expires="9999-12-31")
    doc = check(samples / "pack.yaml", CompileOptions())
    governance = _decision(doc, "GOVERNANCE")
    assert governance.status == "FAIL"
    assert (
        "the QUALITY waiver for mi325x-vllm approved by R. Auditor (risk) expires 9999-12-31, "
        "past 2027-11-30: a waiver ends within 365 days of the decision date 2026-11-30 "
        "(governance.max_waiver_days)"
    ) in governance.reason
    assert doc.verdict == "FAIL"


def test_max_waiver_days_is_the_specs(samples: Path) -> None:
    _waive(samples, "R. Auditor (risk)", expires="2027-01-31")
    _edit(
        samples,
        "stack_mismatch_discount:",
        "governance: {max_waiver_days: 30}\nstack_mismatch_discount:",
    )
    doc = check(samples / "pack.yaml", CompileOptions())
    governance = _decision(doc, "GOVERNANCE")
    assert governance.status == "FAIL"
    assert "past 2026-12-30: a waiver ends within 30 days" in governance.reason


def test_an_approval_before_the_evidence_fails(samples: Path) -> None:
    _edit(samples, "date: 2026-11-30}\n", "date: 2026-09-30}\n")
    doc = check(samples / "pack.yaml", CompileOptions())
    governance = _decision(doc, "GOVERNANCE")
    assert governance.status == "FAIL"
    assert "A. Example (sample) (Head of ML Platform) approved on 2026-09-30, before the " in (
        governance.reason
    )
    assert "dated 2026-11-30): an approval is dated on or after the evidence it approves " in (
        governance.reason
    )
    assert doc.verdict == "FAIL"
    # A waiver cannot accept a breach of the sign-off rules.
    _edit(
        samples,
        APPROVALS.replace("2026-11-30", "2026-09-30"),
        APPROVALS.replace("2026-11-30", "2026-09-30")
        + "waivers:\n  - {check: GOVERNANCE, reason: late sign-off, approver: R. Auditor, "
        "expires: 2027-01-31}\n",
    )
    waived = check(samples / "pack.yaml", CompileOptions())
    assert _decision(waived, "GOVERNANCE").waived is None
    assert waived.verdict == "FAIL"
    assert any("the sign-off rules cannot be waived" in r for r in waived.waivers_rejected)


@pytest.mark.parametrize("reason", [None, "the MI325X racks arrive in Q2"])
def test_a_departure_from_the_recommendation_needs_a_reason(
    samples: Path, reason: str | None
) -> None:
    chosen = "chosen: b200-trtllm\n" + (f"chosen_reason: {reason}\n" if reason else "")
    _edit(samples, "chosen: mi325x-vllm\n", chosen)
    doc = check(samples / "pack.yaml", CompileOptions())
    decision = _decision(doc, "DECISION")
    assert "the chosen candidate b200-trtllm differs from the recommendation mi325x-vllm" in (
        decision.reason
    )
    if reason is None:
        assert decision.status == "FAIL"
        assert "the spec records no chosen_reason" in decision.reason
        assert doc.verdict == "FAIL"
    else:
        assert decision.status == "WARN"
        assert f"the reason recorded: {reason}" in decision.reason
        assert doc.verdict == "PASS"


def test_the_rule_defaults_are_safe() -> None:
    rules = Governance()
    assert (rules.segregation, rules.max_waiver_days, rules.approvals_after_evidence) == (
        True,
        365,
        True,
    )
    assert dt.date(2026, 11, 30) + dt.timedelta(days=rules.max_waiver_days) == dt.date(2027, 11, 30)
