"""Pre-registration: a decision's plan signed as an in-toto statement before any evidence.

``register_plan`` signs the plan (``spec.plan.PlanDocument``) of a spec, its subject the spec
file's sha256, with a key or keyless (whose transparency-log time then proves when it existed).
``read_plan`` reads it back for ``check --plan``/``build --plan`` (the signature is checked by
``verify``, against the same key or identity as the pack: ``with_plan``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pydantic

from ..core._atomic import atomic_write
from ..core.limits import read_limited
from ..errors import InputError, VerificationError
from ..spec.plan import PLAN_NAME, PLAN_PREDICATE_TYPE, PlanDocument, RegisteredPlan, plan_of
from .bundle import MAX_BUNDLE_BYTES, CheckedSignature, parse_bundle, read_bundle
from .verify_outcome import VerifiedPack

if TYPE_CHECKING:
    from ..spec.load import LoadedSpec
    from .sign import PackSigner


def plan_statement(plan: PlanDocument, spec_name: str) -> bytes:
    """The in-toto Statement v1 payload over the spec file, with the plan as its predicate."""
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": spec_name, "digest": {"sha256": plan.spec_sha256}}],
        "predicateType": PLAN_PREDICATE_TYPE,
        "predicate": plan.model_dump(mode="json", by_alias=True),
    }
    return json.dumps(statement, sort_keys=True, separators=(",", ":")).encode()


def register_plan(
    loaded: LoadedSpec, spec_sha256: str, signer: PackSigner, out: Path, now: dt.datetime
) -> tuple[PlanDocument, Path]:
    """Sign the plan of ``loaded`` (registered at ``now``) and write its bundle to ``out``."""
    registered_at = now.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    plan = plan_of(loaded.spec, spec_sha256, registered_at)
    bundle = signer.sign_payload(plan_statement(plan, loaded.path.name))
    return plan, atomic_write(out, bundle)


def _who(raw: bytes, source: str) -> str:
    parsed = parse_bundle(raw, source)
    if parsed.mode == "key":
        return f"key sha256:{parsed.key_hint}" if parsed.key_hint else "a key"
    from .keyless import certificate_identity

    identity, issuer = certificate_identity(raw)
    return f"{identity} ({issuer})" if identity else "a keyless signer"


def plan_document(payload: bytes | None, source: str) -> PlanDocument:
    """The plan a bundle's payload states; InputError naming the bundle if it states none."""
    try:
        statement = json.loads(payload or b"")
        if statement.get("predicateType") != PLAN_PREDICATE_TYPE:
            raise InputError(
                f"{source}: not a registered plan (predicate type {PLAN_PREDICATE_TYPE})"
            )
        return PlanDocument.model_validate(statement["predicate"])
    except (ValueError, KeyError, TypeError, AttributeError, pydantic.ValidationError) as exc:
        raise InputError(f"{source}: not a registered plan: {exc}") from exc


def read_plan(path: Path) -> RegisteredPlan:
    """The plan in the bundle at ``path`` (unverified: ``verify`` checks its signature)."""
    raw = read_limited(path, MAX_BUNDLE_BYTES, what="plan bundle")
    try:
        parsed = parse_bundle(raw, str(path))
        who = _who(raw, str(path))
    except VerificationError as exc:
        raise InputError(f"{path}: not a signed plan: {exc.message}") from exc
    return RegisteredPlan(
        document=plan_document(parsed.payload, str(path)),
        registered_by=who,
        bundle_sha256=hashlib.sha256(raw).hexdigest(),
        raw=raw,
    )


def with_plan(
    root: Path, label: str, check: Callable[[bytes, str], CheckedSignature], result: VerifiedPack
) -> VerifiedPack:
    """A pack built with ``--plan`` carries the registered plan: its signature must hold for
    the same policy as the pack's (that it is the plan the decision was checked against is the
    PLAN check's evidence link, held against the file with every other link)."""
    path = root / PLAN_NAME
    if not path.is_file() or result.report.signer is None:
        return result
    try:
        raw = read_bundle(path, label)
        checked = check(raw, label)
        plan_document(checked.payload, label)
    except (VerificationError, InputError) as exc:
        problems = (*result.report.problems, *(f"registered plan: {p}" for p in exc.problems))
        report = result.report.model_copy(
            update={"ok": False, "problems": problems, "decision": None}
        )
        return VerifiedPack(report)
    plan = plan_document(checked.payload, label)
    signer = checked.signer
    who = f"key sha256:{signer.key_fingerprint}" if signer.mode == "key" else signer.identity
    when = f", logged {signer.signed_at.isoformat()}" if signer.signed_at else ""
    said = f"{PLAN_NAME}: registered {plan.registered_at}{when} by {who}; signature verified"
    report = result.report.model_copy(update={"plan": said})
    return VerifiedPack(report, result.documents, result.predicate, result.digests)
