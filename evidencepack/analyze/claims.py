"""The claim ledger: every figure the report shows, typed measured, proxy or inherited,
linked to the evidence rows and file digests it rests on.
"""

from __future__ import annotations

from ..core._numbers import plain
from ..spec.models import Candidate
from .checklist import per_accelerator
from .evidence import CandidateEvidence, link
from .models import Capacity, Claim, Cost, EvidenceLink, Quality


def claims_for(
    candidate: Candidate,
    ev: CandidateEvidence,
    capacity: Capacity,
    cost: Cost,
    quality: Quality,
    spec_link: EvidenceLink,
) -> list[Claim]:
    """One candidate's claim ledger: each figure the report shows, typed, linked to its evidence."""
    cid = candidate.id
    op_links = tuple(link(r) for r in ev.runs if r.id == capacity.operating_point_run)
    out = [
        Claim(
            id=f"cost.{cid}.price",
            kind="inherited",
            candidate=cid,
            statement="price per accelerator-hour (quoted in the spec)",
            value=candidate.price.per_accelerator_hour,
            unit=f"{candidate.price.currency}/accelerator-hour",
            evidence=(spec_link,),
        )
    ]
    if candidate.api is not None:
        prices = candidate.api.prices
        out = [
            Claim(
                id=f"cost.{cid}.price.{kind}",
                kind="inherited",
                candidate=cid,
                statement=f"price per 1M {kind.replace('_', ' ')} tokens of {candidate.api.model} "
                + ("(read from the FOCUS export)" if prices.focus else "(quoted in the spec)"),
                value=value,
                unit=f"{prices.currency}/1M tokens",
                evidence=(spec_link,),
            )
            for kind, value in (
                ("input", prices.input_per_million),
                ("cached_input", prices.cached_input_per_million),
                ("output", prices.output_per_million),
            )
            if value is not None
        ]
        if capacity.api is not None:
            out.append(
                Claim(
                    id=f"capacity.{cid}.accounts",
                    kind="inherited",
                    candidate=cid,
                    statement="API accounts the peak needs at the stated rate limits"
                    + (
                        f" (or one account on tier {capacity.api.tier})"
                        if capacity.api.tier
                        else ""
                    ),
                    value=capacity.api.accounts,
                    unit="accounts",
                    evidence=(spec_link,),
                )
            )
    if capacity.operating_point_rps is not None:
        out += [
            Claim(
                id=f"capacity.{cid}.xstar",
                kind="measured",
                candidate=cid,
                statement="operating point X*: highest measured rate within the SLO",
                value=capacity.operating_point_rps,
                unit="req/s per replica",
                evidence=op_links,
            ),
            Claim(
                id=f"capacity.{cid}.tokens",
                kind="measured",
                candidate=cid,
                statement="output tokens/s per replica at X*",
                value=capacity.output_tokens_per_s_at_op,
                unit="tok/s",
                evidence=op_links,
            ),
            Claim(
                id=f"capacity.{cid}.accelerators",
                kind="measured",
                candidate=cid,
                statement="accelerators needed for peak x (1 + headroom)",
                value=capacity.accelerators,
                unit="accelerators",
                evidence=(*op_links, spec_link),
            ),
        ]
    if cost.per_million_output_tokens is not None:
        out += [
            Claim(
                id=f"cost.{cid}.per_million",
                kind="measured",
                candidate=cid,
                statement="cost per 1M output tokens at X*",
                value=cost.per_million_output_tokens,
                unit=f"{cost.currency}/1M output tokens",
                evidence=(*op_links, spec_link),
            ),
            Claim(
                id=f"cost.{cid}.per_month",
                kind="measured",
                candidate=cid,
                statement="cost per month at the needed capacity",
                value=cost.per_month,
                unit=f"{cost.currency}/month",
                evidence=(*op_links, spec_link),
            ),
        ]
    if quality.estimate is not None:
        out.append(
            Claim(
                id=f"quality.{cid}",
                kind="measured",
                candidate=cid,
                statement=f"{quality.metric} of the candidate model on the team's task",
                value=quality.estimate,
                unit=quality.metric,
                evidence=tuple(link(s) for s in ev.scores),
            )
        )
    for i, ref in enumerate(ev.references):
        value = per_accelerator(ref)
        if value is not None:
            out.append(
                Claim(
                    id=f"mlperf.{cid}.ref{i + 1}.throughput",
                    kind="proxy",
                    candidate=cid,
                    statement=f"MLPerf {ref.benchmark} {ref.scenario} output tokens/s per "
                    f"accelerator (reference model on {ref.system})",
                    value=value,
                    unit="tok/s per accelerator",
                    evidence=(ref.link(),),
                )
            )
        if ref.accuracy:
            metrics = ", ".join(f"{k} {plain(v)}" for k, v in sorted(ref.accuracy.items()))
            out.append(
                Claim(
                    id=f"mlperf.{cid}.ref{i + 1}.accuracy",
                    kind="inherited",
                    candidate=cid,
                    statement=f"MLPerf reference accuracy (a guardrail, not the quality bar): "
                    f"{metrics}",
                    value=None,
                    unit="as reported",
                    evidence=(ref.link(),),
                )
            )
    return _on_signed_weights(out, ev)


def _on_signed_weights(claims: list[Claim], ev: CandidateEvidence) -> list[Claim]:
    """Each figure measured on the candidate linked to the signed weights too, when the
    envelope model's signature verified and names them (``envelope.model.signature``)."""
    signed = ev.signed_weights
    if signed is None or signed.problem is not None or signed.link is None:
        return claims
    return [
        c.model_copy(update={"evidence": (*c.evidence, signed.link)}) if c.kind == "measured" else c
        for c in claims
    ]
