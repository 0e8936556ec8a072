"""The check table: one entry per check, each described in the docs' checks table
(docs/reference/checks.md), run in table order."""

from __future__ import annotations

import re

from evidencepack.analyze.check_base import CandidateContext, Check
from evidencepack.analyze.checks import CHECKS, DECISION, TITLES, run_checks
from evidencepack.analyze.governance import GOVERNANCE
from evidencepack.analyze.models import CheckResult

from ..conftest import REPO_ROOT


def test_every_check_has_one_entry_and_a_readme_row() -> None:
    ids = [check.id for check in (*CHECKS, DECISION, GOVERNANCE)]
    assert len(ids) == len(set(ids)) >= 12
    assert all(check.judge is not None for check in CHECKS)
    assert {check.id: check.title for check in (*CHECKS, DECISION, GOVERNANCE)} == TITLES
    readme = (REPO_ROOT / "docs" / "reference" / "checks.md").read_text(encoding="utf-8")
    rows = dict(
        re.findall(r"^\| (C\d|[A-Z]+(?:-[A-Z]+)?)\b[^|]*\| (yes|no) \|", readme, flags=re.M)
    )
    assert set(ids) <= set(rows), (
        f"docs/reference/checks.md's table lacks {sorted(set(ids) - set(rows))}"
    )
    hard = {check.id: "yes" if check.hard else "no" for check in (*CHECKS, DECISION, GOVERNANCE)}
    assert {i: rows[i] for i in ids} == hard


def test_an_entry_titles_and_hardens_its_results() -> None:
    soft = Check("X-SOFT", "a soft check", hard=False)
    result = soft.result("c", "FAIL", "because", ())
    assert (result.id, result.title, result.hard, result.status) == (
        "X-SOFT",
        "a soft check",
        False,
        "FAIL",
    )
    assert not result.blocking  # a soft FAIL makes the candidate ineligible, not the gate fail


def test_run_checks_keeps_table_order_and_leaves_out_checks_with_nothing_to_judge(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    import evidencepack.analyze.checks as table

    def judged(check_id: str, result: bool) -> Check:
        def judge(context: CandidateContext) -> CheckResult | None:
            return Check(check_id, check_id, hard=True).result("c", "PASS", "") if result else None

        return Check(check_id, check_id, hard=True, judge=judge)

    monkeypatch.setattr(table, "CHECKS", (judged("B", True), judged("A", False), judged("C", True)))
    context = CandidateContext(None, None, None, (), None, None, ())  # type: ignore[arg-type]
    assert [r.id for r in run_checks(context)] == ["B", "C"]
