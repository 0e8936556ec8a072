"""A decision's plan, registered before any evidence exists (``evidencepack register``).

The plan is the part of a spec that must not move once results are in: the question, the
traffic, the SLO, the scoring and its bar, the envelope, the candidates, the fit and governance
settings, with the spec's sha256 and the date it was registered. ``register`` signs it as an
in-toto statement (``signing.plan``); ``check --plan`` and ``build --plan`` compare the spec
with it (``plan_changes``) and fail the hard check PLAN when the bar, the SLO, the traffic, the
objective or the candidates changed since.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from .models import PackSpec

PLAN_API: Literal["evidencepack/plan/v1"] = "evidencepack/plan/v1"
PLAN_PREDICATE_TYPE = "https://evidencepack.dev/plan/v1"
PLAN_NAME = "plan.sigstore.json"
"""The registered plan, as a pack carries it (``build --plan``), beside the pack's bundle."""

HARD_FIELDS = ("scoring", "slo", "traffic", "objective", "candidates")
"""What may not change after registration: the bar (with its metric), SLO, traffic, objective
and candidates. The other sections are recorded and shown, not judged."""


class PlanDocument(StrictModel):
    """The registered plan: the spec's sections fixed before any evidence, as JSON values."""

    api_version: Literal["evidencepack/plan/v1"] = Field(
        default=PLAN_API, alias="apiVersion", description="document version"
    )
    decision_id: str = Field(description="the spec's decision.id")
    question: str = Field(description="the spec's decision.question")
    owner: str = Field(description="the spec's decision.owner")
    decision_date: dt.date = Field(description="the spec's decision.date at registration")
    registered_at: str = Field(
        description="when the plan was registered (RFC 3339, UTC, the registering machine's "
        "clock; a keyless signature's transparency-log time proves it independently)"
    )
    spec_sha256: Sha256Hex = Field(description="sha256 of the spec file registered")
    objective: str = Field(description="the spec's objective")
    traffic: dict[str, Any] = Field(description="the spec's traffic section")
    slo: dict[str, Any] = Field(description="the spec's slo section")
    scoring: dict[str, Any] = Field(description="the spec's scoring section, with the bar")
    envelope: dict[str, Any] = Field(description="the spec's envelope section")
    candidates: tuple[str, ...] = Field(description="the candidates' ids, in spec order")
    fit: dict[str, Any] = Field(description="the spec's fit policy")
    governance: dict[str, Any] = Field(
        description="headroom, stack_mismatch_discount, cost_basis and currency"
    )


def plan_of(spec: PackSpec, spec_sha256: str, registered_at: str) -> PlanDocument:
    """The plan of ``spec`` (its file's sha256 given), registered at ``registered_at``."""
    data = spec.model_dump(mode="json", by_alias=True)
    return PlanDocument(
        decision_id=spec.decision.id,
        question=spec.decision.question,
        owner=spec.decision.owner,
        decision_date=spec.decision.date,
        registered_at=registered_at,
        spec_sha256=spec_sha256,
        objective=spec.objective,
        traffic=data["traffic"],
        slo=data["slo"],
        scoring=data["scoring"],
        envelope=data["envelope"],
        candidates=tuple(c.id for c in spec.candidates),
        fit=data["fit"],
        governance={
            k: data.get(k)
            for k in ("headroom", "stack_mismatch_discount", "cost_basis", "currency")
        },
    )


@dataclass(frozen=True)
class PlanChange:
    """One value of the plan the spec now states otherwise."""

    field: str
    """The spec path (``scoring.bar.value``, ``candidates``)."""
    old: str
    new: str

    @property
    def message(self) -> str:
        """``scoring.bar.value: 0.8 at registration, now 0.85``."""
        return f"{self.field}: {self.old} at registration, now {self.new}"


def _show(value: object) -> str:
    return "absent" if value is _ABSENT else json.dumps(value, sort_keys=True)


_ABSENT = object()


def _leaves(old: object, new: object, path: str) -> list[PlanChange]:
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[PlanChange] = []
        for key in [*old, *(k for k in new if k not in old)]:
            out += _leaves(old.get(key, _ABSENT), new.get(key, _ABSENT), f"{path}.{key}")
        return out
    if old != new or type(old) is not type(new):
        return [PlanChange(path, _show(old), _show(new))]
    return []


def plan_changes(plan: PlanDocument, spec: PackSpec) -> list[PlanChange]:
    """Every hard value (``HARD_FIELDS``) the spec states otherwise than the plan; a candidate
    added or dropped since registration is named."""
    now = plan_of(spec, plan.spec_sha256, plan.registered_at)
    changes: list[PlanChange] = []
    if now.objective != plan.objective:
        changes.append(PlanChange("objective", plan.objective, now.objective))
    for name in ("scoring", "slo", "traffic"):
        changes += _leaves(getattr(plan, name), getattr(now, name), name)
    added = [c for c in now.candidates if c not in plan.candidates]
    dropped = [c for c in plan.candidates if c not in now.candidates]
    if added:
        changes.append(PlanChange("candidates", "not registered", "added " + ", ".join(added)))
    if dropped:
        changes.append(PlanChange("candidates", "registered " + ", ".join(dropped), "dropped"))
    return changes


@dataclass(frozen=True)
class RegisteredPlan:
    """A plan as a build reads it from its bundle: the document, who registered it, and the
    bundle's sha256 (the decision's PLAN check links to it)."""

    document: PlanDocument
    registered_by: str
    """``key sha256:...`` (the key the bundle names) or the keyless certificate's identity."""
    bundle_sha256: str
    raw: bytes
    """The bundle's bytes (packed as ``PLAN_NAME``)."""
