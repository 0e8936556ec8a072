"""Public results and estimates beside a candidate: read with the same checklist as MLPerf.

InferenceX rows, llm-d benchmark reports and MLCommons endpoint-tool results were *measured
elsewhere* (by their publisher, on their workload); aiconfigurator points are *simulated*. None
of them sizes capacity. Each is compared with the envelope (model, precision, stack, hardware),
its load is read against the traffic (a fixed concurrency with random prompts and forced output
lengths is no real traffic: a C1 warning naming it), and where the candidate's own runs measured
the configuration the report shows measured over published (or predicted).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..intake.endpoints_refs import FINDING as ENDPOINTS_FINDING
from ..intake.endpoints_refs import PER_USER as ENDPOINTS_PER_USER
from ..intake.endpoints_refs import SOURCE_TOOL as ENDPOINTS_TOOL
from ..spec.models import Candidate, PackSpec
from .comparability import compare_reference
from .evidence import CandidateEvidence, Conditions, PublicEvidence
from .judgements import PublicReference
from .models import Capacity, Claim, ComparabilityRow, EvidenceLink, Status


def load_text(item: PublicEvidence) -> str:
    """The load a point was measured or modelled under, in words."""
    load = item.point.load
    parts = [
        {
            "fixed_concurrency": "fixed concurrency",
            "open_loop": "open loop",
            "multi_turn": "multi-turn sessions",
            "single_stream": "one request at a time",
            "modelled": "modelled operating point",
        }.get(load.kind or "", "load not stated")
    ]
    if load.concurrency is not None:
        parts.append(f"{load.concurrency} in flight")
    if load.request_rate_per_s is not None:
        parts.append(f"{load.request_rate_per_s:g} req/s")
    if load.input_tokens is not None and load.output_tokens is not None:
        parts.append(f"{load.input_tokens:g} in / {load.output_tokens:g} out tokens")
    if load.random_prompts:
        parts.append("random prompts")
    if load.ignore_eos:
        parts.append("output length forced (--ignore-eos)")
    return ", ".join(parts)


def _row(cid: str, envelope: Conditions, item: PublicEvidence) -> ComparabilityRow:
    point = item.point
    stated = Conditions(
        model_name=point.model_name,
        precision=point.precision,
        runtime=point.runtime_name,
        runtime_version=point.runtime_version,
        hardware=point.accelerator,
    )
    fields = ("model_name", "precision", "runtime", "runtime_version", "hardware")
    return compare_reference(item.id, "reference", cid, envelope, stated, fields)


def _c1_point(spec: PackSpec, item: PublicEvidence) -> tuple[Status, str]:
    point, load = item.point, item.point.load
    if point.provenance == "simulated":
        return "WARN", f"a {point.source_tool} estimate (simulated), not a measurement"
    if load.random_prompts or load.ignore_eos:
        return (
            "WARN",
            f"{point.source_tool} ran {load_text(item)}: synthetic traffic, not comparable "
            f"with the {spec.traffic.pattern} traffic unless its report says so",
        )
    findings = [w for w in point.warnings if w.startswith(ENDPOINTS_FINDING)]
    if findings:  # an MLPerf Endpoints point whose rules or publication status fail
        return "WARN", f"{point.source_tool}, {load_text(item)}: " + "; ".join(findings)
    if load.kind in (None, "modelled"):
        return "WARN", f"{point.source_tool} states no load: its figures are not comparable"
    if load.kind == "multi_turn":
        return (
            "WARN",
            f"{point.source_tool} replayed multi-turn sessions ({load_text(item)}), not the "
            f"{spec.traffic.pattern} traffic",
        )
    tolerance = spec.fit.token_tolerance
    for name, stated, wanted in (
        ("input", load.input_tokens, spec.traffic.input_tokens.mean),
        ("output", load.output_tokens, spec.traffic.output_tokens.mean),
    ):
        if stated is not None and abs(stated - wanted) > tolerance * wanted:
            return (
                "WARN",
                f"{point.source_tool} ran {stated:g} {name} tokens per request against the "
                f"traffic's {wanted:g}",
            )
    return "PASS", f"{point.source_tool}, {load_text(item)}, read beside the traffic"


def c1_public(spec: PackSpec, items: Sequence[PublicEvidence]) -> list[tuple[Status, str]]:
    """C1's reading of the public points: each point's load against the traffic, the points of
    one file that read alike said once (``pareto.csv``: 33 points, ...)."""
    grouped: dict[tuple[str, Status, str], list[str]] = {}
    for item in items:
        status, text = _c1_point(spec, item)
        grouped.setdefault((item.file.pack_path, status, text), []).append(item.id)
    out: list[tuple[Status, str]] = []
    for (_, status, text), ids in grouped.items():
        named = ids[0] if len(ids) == 1 else f"{ids[0].split('#')[0]} ({len(ids)} points)"
        out.append((status, f"{named}: {text}"))
    return out


def _per_user(
    tool: str, version: str | None, interactivity: dict[str, float]
) -> tuple[float | None, str | None]:
    """A point's per-user output rate and its definition (MLPerf Endpoints: the layout's)."""
    if tool == ENDPOINTS_TOOL:
        definition = ENDPOINTS_PER_USER.get(version or "")
        key = "p10" if version == "v1.0" else "mean"
        return interactivity.get(key), definition
    for key in ("p50", "mean", "p90", "p10", "p99"):
        if key in interactivity:
            return interactivity[key], f"interactivity {key}"
    return None, None


def public_references(
    spec: PackSpec,
    candidate: Candidate,
    ev: CandidateEvidence,
    envelope: Conditions,
    capacity: Capacity,
) -> tuple[list[PublicReference], list[ComparabilityRow]]:
    """Each cited public point as the report shows it, and its comparability row."""
    out, rows = [], []
    measured = capacity.output_tokens_per_s_at_op
    per_acc = measured / candidate.hardware.accelerators_per_replica if measured else None
    for item in ev.public:
        point, figures = item.point, item.point.figures
        row = _row(candidate.id, envelope, item)
        rows.append(row)
        value = figures.output_throughput_per_accelerator
        per_user = _per_user(point.source_tool, point.tool_version, figures.interactivity)
        stack = " ".join(x for x in (point.runtime_name, point.runtime_version) if x) or None
        out.append(
            PublicReference(
                candidate=candidate.id,
                subject=item.id,
                source_tool=point.source_tool,
                provenance=point.provenance,
                publisher=point.publisher,
                date=point.date,
                accelerator=point.accelerator,
                accelerator_count=point.accelerator_count,
                model=point.model_name,
                precision=point.precision,
                stack=stack,
                load=load_text(item),
                output_tokens_per_s_per_accelerator=value,
                ttft_p99_ms=figures.ttft.p99_ms if figures.ttft is not None else None,
                tpot_p99_ms=figures.tpot.p99_ms if figures.tpot is not None else None,
                per_user_tokens_per_s=per_user[0],
                per_user_definition=per_user[1],
                measured_ratio=per_acc / value if per_acc and value else None,
                reading=tuple(d.detail for d in row.differences)
                + tuple(f"not stated: {name}" for name in row.unknown),
                warnings=point.warnings,
                file_sha256=item.file.sha256,
                pack_path=item.file.pack_path,
            )
        )
    return out, rows


def public_claims(references: Sequence[PublicReference]) -> list[Claim]:
    """Each public figure as a claim: inherited when measured elsewhere, simulated otherwise."""
    return [
        Claim(
            id=f"reference.{r.candidate}.{r.subject}",
            kind="simulated" if r.provenance == "simulated" else "inherited",
            candidate=r.candidate,
            statement=f"{r.source_tool} output tokens/s per accelerator"
            + (f" ({r.publisher})" if r.publisher else "")
            + f"; {r.load}",
            value=r.output_tokens_per_s_per_accelerator,
            unit="tok/s per accelerator",
            evidence=(
                EvidenceLink(row=r.subject, file_sha256=r.file_sha256, pack_path=r.pack_path),
            ),
        )
        for r in references
        if r.output_tokens_per_s_per_accelerator is not None
    ]
