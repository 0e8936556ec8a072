"""Signed variants of a built pack for the warehouse tests and benchmark: each verifies.

A variant is a copy of a built, signed pack (unchanged files hard-linked, the rendered report
left out) whose decision.json says another decision: its id, date, the chosen candidate's
runtime version and cost per 1M tokens, and optionally a waiver. manifest.json and
predicate.json follow, and the copy is signed again with the test key, so it verifies as a pack
of its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.sign import sign_pack_detailed

REWRITTEN = ("decision.json", "manifest.json", "predicate.json", "pack.sigstore.json")
REPORTS = ("report.html", "report.pdf")
"""Left out of a variant: they embed the decision they were rendered from (verify checks a
pack's documents against each other), and re-rendering every variant would cost a build each."""


@dataclass(frozen=True)
class Variant:
    """What a variant decides differently from the pack it copies."""

    decision_id: str
    date: dt.date
    runtime_version: str
    cost_per_million: float
    waiver_expires: dt.date | None = None


def _write(path: Path, document: object) -> None:
    path.unlink(missing_ok=True)  # a hard link: never write through it into the original
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def make_variant(built: Path, out: Path, variant: Variant, signer: KeySigner) -> Path:
    """A signed copy of the pack ``built`` in ``out`` that decides ``variant``."""
    shutil.copytree(
        built,
        out,
        copy_function=os.link,
        ignore=lambda d, names: [
            n for n in names if Path(d) == built and n in (*REWRITTEN, *REPORTS)
        ],
    )
    decision = json.loads((built / "decision.json").read_text(encoding="utf-8"))
    day = variant.date.isoformat()
    decision["decision_id"] = variant.decision_id
    decision["as_of"] = day
    decision["spec"]["decision"] |= {"id": variant.decision_id, "date": day}
    for approval in decision["spec"]["approvals"]:
        approval["date"] = day
    chosen = decision["chosen"]
    for spec_candidate in decision["spec"]["candidates"]:
        if spec_candidate["id"] == chosen:
            spec_candidate["stack"]["version"] = variant.runtime_version
    for candidate in decision["candidates"]:
        if candidate["id"] == chosen:
            candidate["cost_per_million_output_tokens"] = variant.cost_per_million
    if variant.waiver_expires is not None:
        decision["spec"]["waivers"] = [
            {
                "check": "C3",
                "candidate": chosen,
                "reason": "variant: the runtime gap is accepted",
                "approver": "W. Auditor (test)",
                "expires": variant.waiver_expires.isoformat(),
            }
        ]
    _write(out / "decision.json", decision)
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    manifest["decision"]["decision_id"] = variant.decision_id
    digest = hashlib.sha256((out / "decision.json").read_bytes()).hexdigest()
    manifest["decision"]["sha256"] = digest
    _write(out / "manifest.json", manifest)
    predicate = json.loads((built / "predicate.json").read_text(encoding="utf-8"))
    predicate["decision"] |= {"decision_id": variant.decision_id, "as_of": day}
    predicate["created_at"] = day
    predicate["rendered"] = []  # the variant carries no rendered report
    _write(out / "predicate.json", predicate)
    sign_pack_detailed(out, None, signer, force=True)
    return out


def variants(count: int) -> list[Variant]:
    """``count`` variants over eight quarters of 2025-2026, two runtime versions, a few waivers.

    Variant i is dated in quarter i % 8, runs vLLM 0.9.2 when i is even (0.10.1 when odd), costs
    1.00 + (i % 8) / 4 per 1M tokens, and every fifth one carries a waiver expiring 20 days after
    2027-01-01 plus i days.
    """
    out = []
    for i in range(count):
        quarter = i % 8
        date = dt.date(2025 + quarter // 4, 3 * (quarter % 4) + 1, 15)
        out.append(
            Variant(
                decision_id=f"variant-{i:05d}",
                date=date,
                runtime_version="0.9.2" if i % 2 == 0 else "0.10.1",
                cost_per_million=1.0 + quarter / 4,
                waiver_expires=dt.date(2027, 1, 21) + dt.timedelta(days=i) if i % 5 == 0 else None,
            )
        )
    return out
