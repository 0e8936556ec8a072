"""The rules of the house for sign-off (``governance``): who may accept a finding, for how long,
and when an approval counts. Safe by default: a spec that says nothing gets every rule."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, Strict

from .types import SpecModel

MaxDays = Annotated[int, Strict(), Field(gt=0, le=3650)]


class Governance(SpecModel):
    """How the decision's sign-off is checked (the GOVERNANCE check, hard and never waived)."""

    segregation: bool = True
    """A waiver's approver is not the decision's owner: nobody accepts a finding against their
    own decision (default on)."""
    max_waiver_days: MaxDays = 365
    """A waiver must expire within this many days of the decision's date (default 365, at most
    3650): a waiver with no real end (``9999-12-31``) fails."""
    approvals_after_evidence: bool = True
    """An approval is dated on or after the newest evidence it approves (the latest run, score
    set, price, quote or exchange rate): an approval given before the evidence existed approves
    nothing of it (default on)."""
