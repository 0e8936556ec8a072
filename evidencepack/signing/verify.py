"""Verify a signed pack (folder or ``.tar.gz``) or one file of it, offline: a full report.

Signature and signer policy first, then the statement, then every file re-hashed: missing,
extra and changed files are all listed with expected and actual sha256.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pydantic
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import Field

from ..core.limits import regular_file_problem
from ..core.provenance import sha256_file
from ..errors import InputError, InvalidRequest, VerificationError, option
from ..pack.archive import ArchiveLimits, extract_archive, is_archive
from ..pack.layout import (
    BUNDLE_NAME,
    DECISION_NAME,
    MANIFEST_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
    scan_pack,
)
from ..pack.predicate import PREDICATE_TYPE
from ..spec.plan import PLAN_NAME
from .bundle import (
    MAX_BUNDLE_BYTES,
    CheckedSignature,
    TrustRootInfo,
    parse_bundle,
    read_bundle,
)
from .documents import DOCUMENTS, read_documents
from .plan import with_plan
from .private_copy import copy_pack
from .statement import Statement, hash_files, parse_statement, read_signed_statement
from .stream_bundle import (
    MAX_STREAMED_FILES,
    scan_bundle,
    streamed_payload,
    verify_streamed_key_bundle,
)
from .stream_statement import StreamedStatement
from .stream_verify import FileCheck, check_streamed_verdicts, compare_streamed, wanted_names
from .verify_outcome import VerifiedPack, finish, signature_failed
from .verify_report import (
    VERIFY_API_VERSION,
    CheckState,
    FileMismatch,
    RebuildDifference,
    RebuildOutcome,
    VerdictCheck,
    VerifyChecks,
    VerifyReport,
)
from .verify_text import format_report
from .verify_unsigned import check_unsigned
from .verify_unsigned import label_of as _label
from .verify_verdicts import check_verdicts

if TYPE_CHECKING:
    from .keyless import TrustRoot

__all__ = [
    "VERIFY_API_VERSION",
    "FileMismatch",
    "KeyPolicy",
    "KeylessPolicy",
    "RebuildDifference",
    "RebuildOutcome",
    "VerifiedPack",
    "VerifyChecks",
    "VerifyPolicy",
    "VerifyReport",
    "format_report",
    "verified_copy",
    "verify_file",
    "verify_pack",
    "verify_pack_documents",
]


@dataclass(frozen=True)
class KeylessPolicy:
    """Accept a bundle only from this OIDC identity, issued by this issuer (both required)."""

    identity: str
    issuer: str
    trust_root: TrustRoot

    def __post_init__(self) -> None:
        if not self.identity.strip() or not self.issuer.strip():
            raise InvalidRequest(
                f"keyless verification needs both {option('cert_identity')} and "
                f"{option('cert_oidc_issuer')}"
            )


@dataclass(frozen=True)
class KeyPolicy:
    """Accept a bundle only if it verifies with this public key."""

    public_key: ec.EllipticCurvePublicKey = field(repr=False)


VerifyPolicy = KeylessPolicy | KeyPolicy


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


def _trust_info(policy: VerifyPolicy | None) -> TrustRootInfo | None:
    return policy.trust_root.info if isinstance(policy, KeylessPolicy) else None


def verify_pack(
    path: Path,
    policy: VerifyPolicy,
    *,
    bundle: Path | None = None,
    limits: ArchiveLimits | None = None,
) -> VerifyReport:
    """Verify a pack folder or a ``.tar.gz`` of one; never raises for a failed check."""
    return verify_pack_documents(path, policy, bundle=bundle, limits=limits).report


def _target_problem(path: Path) -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not path.is_dir() and not is_archive(path):
        raise InvalidRequest(
            f"{path}: not a pack folder or .tar.gz archive; to verify one file of a pack, "
            f"pass its bundle with {option('bundle')}"
        )


def _archive_failed(
    path: Path, policy: VerifyPolicy | None, bundle: Path | None, exc: VerificationError
) -> VerifiedPack:
    label = str(bundle or f"{path}!{BUNDLE_NAME}")
    report = VerifyReport(
        ok=False,
        target=str(path),
        target_kind="archive",
        bundle=label,
        trust_root=_trust_info(policy),
        problems=tuple(exc.problems),
    )
    return VerifiedPack(report)


def verify_pack_documents(
    path: Path,
    policy: VerifyPolicy | None,
    *,
    bundle: Path | None = None,
    limits: ArchiveLimits | None = None,
) -> VerifiedPack:
    """Verify a pack folder or archive and keep the verified bytes of its documents."""
    _target_problem(path)
    if path.is_dir():
        return _verify_folder(path, str(path), "pack", policy, bundle)
    with tempfile.TemporaryDirectory(prefix="evidencepack-verify-") as tmp:
        try:
            root = extract_archive(path, Path(tmp), limits)
        except VerificationError as exc:
            return _archive_failed(path, policy, bundle, exc)
        return _verify_folder(root, str(path), "archive", policy, bundle)


@contextmanager
def verified_copy(
    path: Path,
    policy: VerifyPolicy | None,
    *,
    bundle: Path | None = None,
    limits: ArchiveLimits | None = None,
) -> Iterator[tuple[VerifiedPack, Path | None]]:
    """Verify a private copy of the pack (an archive extracted, a folder copied) and yield the
    result with the copy's folder (None when nothing could be extracted).

    The copy is what was verified, byte for byte; it lives until the ``with`` block ends.
    ``verify --rebuild`` recomputes the decision from it, so no file of the original is read
    after verification.
    """
    _target_problem(path)
    with tempfile.TemporaryDirectory(prefix="evidencepack-verify-") as tmp:
        if path.is_dir():
            root = Path(tmp) / "pack"
            problems = copy_pack(path, root)
            yield _verify_folder(root, str(path), "pack", policy, bundle, problems), root
            return
        try:
            root = extract_archive(path, Path(tmp), limits)
        except VerificationError as exc:
            yield _archive_failed(path, policy, bundle, exc), None
            return
        yield _verify_folder(root, str(path), "archive", policy, bundle), root


def _verify_folder(
    root: Path,
    target: str,
    kind: Literal["pack", "archive"],
    policy: VerifyPolicy | None,
    bundle_path: Path | None,
    copy_problems: tuple[str, ...] = (),
) -> VerifiedPack:
    if policy is None and bundle_path is None and not (root / BUNDLE_NAME).exists():
        return check_unsigned(root, target, kind, copy_problems)
    if bundle_path is None:
        bundle_path = root / BUNDLE_NAME
        label = _label(target, kind, BUNDLE_NAME)
    else:
        label = str(bundle_path)
    report: dict[str, object] = {
        "target": target,
        "target_kind": kind,
        "bundle": label,
        "trust_root": _trust_info(policy),
    }
    if isinstance(policy, KeyPolicy) and _streams(bundle_path):
        return _verify_streamed(root, target, kind, policy, bundle_path, report, copy_problems)
    try:
        raw = read_bundle(bundle_path, label)
        report["bundle_sha256"] = hashlib.sha256(raw).hexdigest()
        checked: CheckedSignature | None = None
        if policy is None:  # opened without a policy: the statement is read, not trusted
            payload = parse_bundle(raw, label).payload
        else:
            checked = _check_signature(raw, label, policy)
            report["signer"] = checked.signer
            payload = checked.payload
        statement = read_signed_statement(payload or b"")
    except VerificationError as exc:
        return signature_failed(report, exc)
    scan = scan_pack(root)
    expected = statement.digests()
    # Read once, kept only if their sha256 is the signed one: the cross-check (and diff) use
    # these bytes and never the file again, so a file swapped after this read is never used.
    documents = read_documents(
        scan.files, expected, (*DOCUMENTS, statement.predicate.spec.pack_path)
    )
    actual = hash_files(scan.files)
    files = FileCheck(
        expected=expected,
        actual=actual,
        paths=scan.files,
        missing=[
            FileMismatch(path=n, expected_sha256=d, actual_sha256=None)
            for n, d in expected.items()
            if n not in actual
        ],
        extra=[
            FileMismatch(path=n, expected_sha256=None, actual_sha256=d)
            for n, d in actual.items()
            if n not in expected
        ],
        changed=[
            FileMismatch(path=n, expected_sha256=d, actual_sha256=actual[n])
            for n, d in expected.items()
            if n in actual and actual[n] != d
        ],
        problems=list(scan.problems),
        files_checked=len(actual),
    )

    def verdicts(documents: Mapping[str, bytes]) -> tuple[VerdictCheck, ...]:
        if policy is None or checked is None:
            return ()
        return check_verdicts(
            root,
            lambda name: _label(target, kind, name),
            statement,
            payload or b"",
            documents.get(DECISION_NAME, b""),
            lambda raw, source: _check_signature(raw, source, policy),
            checked.signer,
        )

    signature: CheckState = "passed" if policy is not None else "not run"
    result = finish(
        root,
        report,
        statement.predicate,
        files,
        documents,
        copy_problems,
        verdicts,
        signature=signature,
    )
    if policy is None:
        return result
    return with_plan(
        root,
        _label(target, kind, PLAN_NAME),
        lambda raw, source: _check_signature(raw, source, policy),
        result,
    )


STREAM_ABOVE_BYTES = MAX_BUNDLE_BYTES
"""A key-signed bundle bigger than this is verified streamed (``stream_verify``); tests lower
it to exercise that path on small packs."""


def _streams(bundle_path: Path) -> bool:
    try:
        return bundle_path.stat().st_size > STREAM_ABOVE_BYTES
    except OSError:
        return False  # read_bundle says why


def _verify_streamed(
    root: Path,
    target: str,
    kind: Literal["pack", "archive"],
    policy: KeyPolicy,
    bundle_path: Path,
    report: dict[str, object],
    copy_problems: tuple[str, ...],
) -> VerifiedPack:
    """``_verify_folder`` for a key-signed bundle over ``STREAM_ABOVE_BYTES``: the signature
    checked and the subjects compared while the bundle streams, in bounded memory."""
    label = str(report["bundle"])
    try:
        scanned = scan_bundle(bundle_path, label)
        report["bundle_sha256"] = scanned.sha256
        signed = verify_streamed_key_bundle(bundle_path, label, policy.public_key, scanned)
        report["signer"] = signed.signer
        reader = streamed_payload(signed)
        stream = StreamedStatement(reader, MAX_STREAMED_FILES)
        statement = stream.read_head()
        predicate = statement.predicate
        signature = predicate.pdf_signature
        wanted = wanted_names(
            predicate.spec.pack_path, predicate.rendered, signature.file if signature else None
        )
        files = compare_streamed(root, signed, stream, wanted)
        reader.drain()
        if reader.sha256.hexdigest() != signed.payload_sha256:
            raise VerificationError(f"{label}: the bundle changed while being verified")
    except VerificationError as exc:
        return signature_failed(report, exc)
    documents = read_documents(files.paths, files.expected, (*DOCUMENTS, predicate.spec.pack_path))

    def verdicts(documents: Mapping[str, bytes]) -> tuple[VerdictCheck, ...]:
        return check_streamed_verdicts(
            root, lambda name: _label(target, kind, name), files, policy.public_key, signed.signer
        )

    return finish(root, report, predicate, files, documents, copy_problems, verdicts)


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
    signed = "signer" in report
    checks = VerifyChecks(
        signature="passed" if signed else "failed",
        files=("failed" if problems else "passed") if signed else "not run",
    )
    if problems:
        report.pop("decision", None)  # a failed file's pack verdict is no result
    return VerifyReport.model_validate(
        {**report, "ok": not problems, "problems": problems, "checks": checks}
    )


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
        report["claimed_decision_id"] = ours.predicate.decision.decision_id
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
            f"{option('any_file')} to accept it"
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
