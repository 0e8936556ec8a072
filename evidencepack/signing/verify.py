"""Verify a signed pack (folder or ``.tar.gz``) or one file of it, offline: a full report.

Signature and signer policy first, then the statement, then every file re-hashed: missing,
extra and changed files are all listed with expected and actual sha256.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pydantic
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import Field

from .._models import Sha256Hex, StrictModel
from ..errors import InputError, UsageError, VerificationError
from ..limits import regular_file_problem
from ..pack.archive import ArchiveLimits, extract_archive, is_archive
from ..pack.layout import (
    BUNDLE_NAME,
    DECISION_NAME,
    MANIFEST_NAME,
    PREDICATE_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
    scan_pack,
)
from ..pack.predicate import PREDICATE_TYPE, DecisionSummary, PackPredicate, predicate_problems
from ..provenance import sha256_file
from .bundle import (
    CheckedSignature,
    SignerInfo,
    TrustRootInfo,
    parse_bundle,
    read_bundle,
)
from .statement import Statement, hash_files, parse_statement

if TYPE_CHECKING:
    from .keyless import TrustRoot

VERIFY_API_VERSION: Literal["evidencepack/verify/v1"] = "evidencepack/verify/v1"


@dataclass(frozen=True)
class KeylessPolicy:
    """Accept a bundle only from this OIDC identity, issued by this issuer (both required)."""

    identity: str
    issuer: str
    trust_root: TrustRoot

    def __post_init__(self) -> None:
        if not self.identity.strip() or not self.issuer.strip():
            raise UsageError(
                "keyless verification needs both --cert-identity and --cert-oidc-issuer"
            )


@dataclass(frozen=True)
class KeyPolicy:
    """Accept a bundle only if it verifies with this public key."""

    public_key: ec.EllipticCurvePublicKey = field(repr=False)


VerifyPolicy = KeylessPolicy | KeyPolicy


class FileMismatch(StrictModel):
    """A pack file whose digest differs from the statement (None: missing or extra)."""

    path: str
    expected_sha256: Sha256Hex | None
    actual_sha256: Sha256Hex | None


class VerifyReport(StrictModel):
    """The outcome of ``evidencepack verify``: OK only with no problem and no file mismatch."""

    api_version: Literal["evidencepack/verify/v1"] = Field(
        default=VERIFY_API_VERSION, alias="apiVersion"
    )
    ok: bool
    target: str
    target_kind: Literal["pack", "archive", "file"]
    bundle: str
    bundle_sha256: Sha256Hex | None = None
    signer: SignerInfo | None = None
    trust_root: TrustRootInfo | None = None
    predicate_type: str | None = None
    decision: DecisionSummary | None = None
    created_at: str | None = None
    files_checked: int = 0
    matched_subjects: tuple[str, ...] = ()
    missing: tuple[FileMismatch, ...] = ()
    extra: tuple[FileMismatch, ...] = ()
    changed: tuple[FileMismatch, ...] = ()
    problems: tuple[str, ...] = ()


def _check_signature(
    raw: bytes, source: str, policy: VerifyPolicy, artifact_sha256: bytes | None = None
) -> CheckedSignature:
    bundle = parse_bundle(raw, source)
    if isinstance(policy, KeyPolicy):
        from .keyed import verify_key_bundle

        return verify_key_bundle(bundle, policy.public_key)
    from .keyless import verify_keyless_bundle

    return verify_keyless_bundle(
        bundle,
        identity=policy.identity,
        issuer=policy.issuer,
        trust_root=policy.trust_root,
        artifact_sha256=artifact_sha256,
    )


def _trust_info(policy: VerifyPolicy) -> TrustRootInfo | None:
    return policy.trust_root.info if isinstance(policy, KeylessPolicy) else None


def verify_pack(
    path: Path,
    policy: VerifyPolicy,
    *,
    bundle: Path | None = None,
    limits: ArchiveLimits | None = None,
) -> VerifyReport:
    """Verify a pack folder or a ``.tar.gz`` of one; never raises for a failed check."""
    if path.is_dir():
        return _verify_folder(path, str(path), "pack", policy, bundle)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not is_archive(path):
        raise UsageError(
            f"{path}: not a pack folder or .tar.gz archive; to verify one file of a pack, "
            "pass its bundle with --bundle"
        )
    with tempfile.TemporaryDirectory(prefix="evidencepack-verify-") as tmp:
        try:
            root = extract_archive(path, Path(tmp), limits)
        except VerificationError as exc:
            label = str(bundle or f"{path}!{BUNDLE_NAME}")
            return VerifyReport(
                ok=False,
                target=str(path),
                target_kind="archive",
                bundle=label,
                trust_root=_trust_info(policy),
                problems=tuple(exc.problems),
            )
        return _verify_folder(root, str(path), "archive", policy, bundle)


def _verify_folder(
    root: Path,
    target: str,
    kind: Literal["pack", "archive"],
    policy: VerifyPolicy,
    bundle_path: Path | None,
) -> VerifyReport:
    if bundle_path is None:
        bundle_path = root / BUNDLE_NAME
        # A bundle inside an extracted archive is named by its place in the archive.
        label = f"{target}!{BUNDLE_NAME}" if kind == "archive" else str(bundle_path)
    else:
        label = str(bundle_path)
    report: dict[str, object] = {
        "target": target,
        "target_kind": kind,
        "bundle": label,
        "trust_root": _trust_info(policy),
    }
    try:
        raw = read_bundle(bundle_path, label)
        report["bundle_sha256"] = hashlib.sha256(raw).hexdigest()
        checked = _check_signature(raw, label, policy)
        report["signer"] = checked.signer
        statement = parse_statement(checked.payload or b"")
    except VerificationError as exc:
        return VerifyReport.model_validate({**report, "ok": False, "problems": list(exc.problems)})

    predicate = statement.predicate
    report |= {
        "predicate_type": statement.predicate_type,
        "decision": predicate.decision,
        "created_at": predicate.created_at,
    }
    scan = scan_pack(root)
    expected = statement.digests()
    actual = hash_files(scan.files)
    missing = [
        FileMismatch(path=n, expected_sha256=d, actual_sha256=None)
        for n, d in expected.items()
        if n not in actual
    ]
    extra = [
        FileMismatch(path=n, expected_sha256=None, actual_sha256=d)
        for n, d in actual.items()
        if n not in expected
    ]
    changed = [
        FileMismatch(path=n, expected_sha256=d, actual_sha256=actual[n])
        for n, d in expected.items()
        if n in actual and actual[n] != d
    ]
    problems = list(scan.problems) + list(predicate_problems(predicate, expected))
    if PREDICATE_NAME in actual and actual[PREDICATE_NAME] == expected.get(PREDICATE_NAME):
        problems.extend(_predicate_file_problems(scan.files[PREDICATE_NAME], predicate))
    ok = not (problems or missing or extra or changed)
    return VerifyReport.model_validate(
        {
            **report,
            "ok": ok,
            "files_checked": len(actual),
            "missing": missing,
            "extra": extra,
            "changed": changed,
            "problems": problems,
        }
    )


def _predicate_file_problems(path: Path, signed: PackPredicate) -> list[str]:
    try:
        stored = PackPredicate.model_validate_json(path.read_bytes())
    except (OSError, pydantic.ValidationError) as exc:
        return [f"{PREDICATE_NAME}: not a valid predicate: {exc.__class__.__name__}"]
    if stored != signed:
        return [f"{PREDICATE_NAME} differs from the signed predicate"]
    return []


class _AnySubject(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)

    name: str | None = None
    digest: dict[str, str]


class _AnyStatement(pydantic.BaseModel):
    """Any in-toto Statement v1, to match a lone file against its subjects."""

    model_config = pydantic.ConfigDict(frozen=True, populate_by_name=True)

    type_: Literal["https://in-toto.io/Statement/v1"] = Field(alias="_type")
    subject: tuple[_AnySubject, ...] = Field(min_length=1)
    predicate_type: str = Field(alias="predicateType")


LONE_FILES = (REPORT_PDF_NAME, REPORT_HTML_NAME, DECISION_NAME, MANIFEST_NAME)
"""The pack files a reader receives on their own; another file verifies alone only if asked."""


def verify_file(
    file: Path,
    bundle: Path,
    policy: VerifyPolicy,
    *,
    predicate_type: str | None = PREDICATE_TYPE,
    any_file: bool = False,
) -> VerifyReport:
    """Verify one file (say the PDF procurement holds) against a pack's bundle.

    The file passes if the bundle verifies and the signed statement has a subject with the
    file's sha256 (its name is only a label); ``matched_subjects`` says which pack file(s) it
    is, by path in the pack. An evidencepack statement's file must be one of ``LONE_FILES``
    unless ``any_file``: a contributor's run file is signed too, but it is not a report, and
    must not pass for one. ``predicate_type=None`` accepts any statement, and bundles that
    sign the file directly.
    """
    problem = regular_file_problem(file)
    if problem:
        raise InputError(f"{file}: {problem}")
    digest = sha256_file(file)
    report: dict[str, object] = {
        "target": str(file),
        "target_kind": "file",
        "bundle": str(bundle),
        "trust_root": _trust_info(policy),
        "files_checked": 1,
    }
    problems: list[str] = []
    try:
        raw = read_bundle(bundle)
        report["bundle_sha256"] = hashlib.sha256(raw).hexdigest()
        checked = _check_signature(raw, str(bundle), policy, bytes.fromhex(digest))
        report["signer"] = checked.signer
        if checked.payload is None:
            if predicate_type is not None:
                problems.append(f"{bundle}: signs the file directly, not an evidencepack statement")
        else:
            problems += _match_statement(
                checked.payload, file, digest, predicate_type, report, any_file=any_file
            )
    except VerificationError as exc:
        problems += list(exc.problems)
    return VerifyReport.model_validate({**report, "ok": not problems, "problems": problems})


def _match_statement(
    payload: bytes,
    file: Path,
    digest: str,
    predicate_type: str | None,
    report: dict[str, object],
    *,
    any_file: bool,
) -> list[str]:
    try:
        statement = _AnyStatement.model_validate_json(payload)
    except pydantic.ValidationError as exc:
        raise VerificationError(f"the signed payload is not an in-toto statement: {exc}") from exc
    report["predicate_type"] = statement.predicate_type
    if predicate_type is not None and statement.predicate_type != predicate_type:
        return [f"predicate type {statement.predicate_type!r}, expected {predicate_type!r}"]
    if statement.predicate_type == PREDICATE_TYPE:
        ours: Statement = parse_statement(payload)
        report["decision"] = ours.predicate.decision
        report["created_at"] = ours.predicate.created_at
    matched = tuple(s.name or "" for s in statement.subject if s.digest.get("sha256") == digest)
    report["matched_subjects"] = matched
    if matched and (
        any_file
        or statement.predicate_type != PREDICATE_TYPE
        or any(name in LONE_FILES for name in matched)
    ):
        return []
    if matched:
        return [
            f"{file.name}: is the pack's {', '.join(matched)}, not one of the files a reader "
            f"receives alone ({', '.join(LONE_FILES)}); verify the whole pack, or pass "
            "--any-file to accept it"
        ]
    same_name = [s for s in statement.subject if s.name and s.name.rsplit("/", 1)[-1] == file.name]
    report["changed"] = [
        FileMismatch(
            path=s.name or file.name, expected_sha256=s.digest["sha256"], actual_sha256=digest
        )
        for s in same_name
        if "sha256" in s.digest
    ]
    return [f"{file.name}: sha256 {digest} is not a subject of the signed statement"]


def format_report(report: VerifyReport) -> str:
    """The human-readable report, in plain words: OK or FAIL first and what it means, then the
    signer, time and the pack's own (signed) decision, then every finding.

    On a FAIL the pack's own verdict is not shown as a result: it names the decision only,
    marked as not verified, so "PASS" never reads as the outcome of a failed verification.
    """
    checked = report.signer is not None and report.target_kind != "file"
    files = f" ({report.files_checked} file(s))" if checked else ""
    lines = [f"{'OK' if report.ok else 'FAIL'}: {report.target_kind} {report.target}{files}"]

    def row(label: str, value: str) -> None:
        lines.append(f"  {label:<13}{value}")

    row("result", _result_words(report))
    signer = report.signer
    if signer and signer.mode == "keyless":
        row("signer", signer.identity or "?")
        row("issuer", signer.issuer or "?")
        when = signer.signed_at.isoformat() if signer.signed_at else "no verified time"
        source = (signer.time_source or "").replace("_", " ")
        row("signed at", f"{when} ({source})" if source else when)
        if signer.log_index is not None:
            row("log index", str(signer.log_index))
    elif signer:
        row("key", f"sha256:{signer.key_fingerprint}")
        row("signed at", "not recorded (a key-signed bundle carries no trusted time)")
    if report.decision and report.ok:
        d = report.decision
        recommendation = d.recommendation or "no candidate"
        row(
            "pack says",
            f"decision {d.decision_id}: recommends {recommendation}; "
            f"its own checks gave {d.verdict}",
        )
    elif report.decision:
        row("pack claims", f"decision {report.decision.decision_id} (not verified: see above)")
    if report.created_at:
        row("created at", report.created_at)
    if report.matched_subjects:
        row("subject", ", ".join(report.matched_subjects))
    if report.trust_root:
        t = report.trust_root
        row("trust root", f"{t.path} (sha256 {t.sha256})" if t.path else f"Sigstore {t.source}")
    row(
        "bundle",
        f"{report.bundle}" + (f" (sha256 {report.bundle_sha256})" if report.bundle_sha256 else ""),
    )
    for problem in report.problems:
        row("problem", problem)
    for m in report.changed:
        row("changed", f"{m.path}  expected {m.expected_sha256}  actual {m.actual_sha256}")
    for m in report.missing:
        row("missing", f"{m.path}  expected {m.expected_sha256}")
    for m in report.extra:
        row("extra", f"{m.path}  actual {m.actual_sha256}")
    return "\n".join(lines)


def _result_words(report: VerifyReport) -> str:
    """One sentence a non-engineer can act on."""
    if report.ok:
        if report.target_kind == "file":
            where = ", ".join(report.matched_subjects) or "a file"
            return f"this file is exactly the pack's {where} as signed, by the signer below"
        return f"the signature is valid and all {report.files_checked} files are exactly as signed"
    damaged = [p for p in report.problems if "damaged archive" in p]
    if damaged:
        return "the archive is damaged or was altered; do not use anything in it"
    if report.signer is None:
        return "the signature is missing or did not verify; do not rely on this pack"
    altered = len(report.changed) + len(report.missing) + len(report.extra)
    if altered:
        return (
            f"{altered} file(s) differ from what was signed ({len(report.changed)} changed, "
            f"{len(report.missing)} missing, {len(report.extra)} added); do not rely on it"
        )
    return "the pack is not as signed (see the problems below); do not rely on it"
