"""Open the two sides of a diff: a pack folder, a ``PACK.tar.gz`` or (NEW only) a spec.

Each side is read once. With a policy it is verified first, and what the diff compares are the
bytes verification read and checked against the signed statement (``verify_pack_documents``):
a ``decision.json`` swapped after verification is never read; a side that fails verification
is not read at all. Without a policy, ``decision.json``, ``manifest.json`` and the spec are
read once from the folder, or from the archive extracted with the pack's safe extraction. A
spec is built into a temporary pack; temporary folders live in the caller's ``ExitStack``.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

import pydantic

from ..analyze.models import DecisionDocument
from ..errors import CouldNotRun, InputError, UsageError, VerificationError
from ..pack.archive import extract_archive, is_archive
from ..pack.layout import BUNDLE_NAME, DECISION_NAME, MANIFEST_NAME
from ..pack.manifest import EvidenceManifest
from .models import PackSide

if TYPE_CHECKING:  # verification (cryptography, sigstore's models) loads only when asked for
    from ..signing.verify import VerifyPolicy, VerifyReport

SPEC_SUFFIXES = (".yaml", ".yml")


class PackUnreadable(CouldNotRun):
    """A pack could not be read for a diff: missing or malformed decision.json / manifest.json.

    ``problems`` lists every finding, one line each.
    """

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = problems or (message,)


BuildSpec = Callable[[Path, Path], Path]
"""Build the spec (first argument) into a pack inside the empty folder given; return the pack."""


@dataclass(frozen=True)
class OpenedPack:
    """One side: what the command line named, and (when it verified or was not asked to) its
    decision, manifest and spec copy, each parsed from the one read of the pack."""

    side: PackSide
    decision: DecisionDocument | None
    manifest: EvidenceManifest | None
    spec: bytes | None = None
    """The pack's copy of its spec, when it holds the spec the decision names."""


def pack_kind(path: Path, label: str, *, allow_spec: bool) -> Literal["folder", "archive", "spec"]:
    """What ``path`` is, or a UsageError saying what it should be."""
    if not path.exists():
        raise UsageError(f"{label} {path}: no such file or folder")
    if path.is_dir():
        return "folder"
    if is_archive(path):
        return "archive"
    if path.name.endswith(SPEC_SUFFIXES):
        if allow_spec:
            return "spec"
        raise UsageError(
            f"{label} {path}: OLD must be a built pack (folder or .tar.gz), not a spec"
        )
    raise UsageError(f"{label} {path}: not a pack folder, a .tar.gz pack or a .yaml spec")


def verification_problems(report: VerifyReport) -> tuple[str, ...]:
    """Every reason ``report`` is not OK, one line each."""
    lines = list(report.problems)
    lines += [f"contradicts: {c.message}" for c in report.contradictions]
    lines += [f"changed: {m.path}" for m in report.changed]
    lines += [f"missing: {m.path}" for m in report.missing]
    lines += [f"extra: {m.path}" for m in report.extra]
    return tuple(lines) or ("verification failed",)


def _verified_text(report: VerifyReport) -> str:
    signer = report.signer
    if signer is None:
        return f"verified: {report.files_checked} file(s)"
    who = (
        f"key sha256:{signer.key_fingerprint}"
        if signer.mode == "key"
        else f"{signer.identity} ({signer.issuer})"
    )
    return f"verified: {report.files_checked} file(s), signed by {who}"


def _documents(folder: Path, where: str) -> dict[str, bytes]:
    """decision.json and manifest.json read once from an unverified folder."""
    return {name: _read(folder, name, where) for name in (DECISION_NAME, MANIFEST_NAME)}


def _read_spec(folder: Path, decision: DecisionDocument, documents: dict[str, bytes]) -> None:
    """Add the spec the (validated) decision names, when the unverified folder holds it."""
    spec = next((f.pack_path for f in decision.inputs if f.role == "spec"), None)
    if spec is not None:
        with suppress(OSError):
            documents[spec] = (folder / spec).read_bytes()


def open_pack(
    path: Path,
    label: str,
    stack: ExitStack,
    *,
    policy: VerifyPolicy | None,
    build_spec: BuildSpec | None = None,
) -> OpenedPack:
    """Verify (with ``policy``) and read one side, once; a spec is built with ``build_spec``."""
    kind = pack_kind(path, label, allow_spec=build_spec is not None)
    folder: Path | None = None  # unverified: its spec is read once decision.json is validated
    signer = None
    verified = False
    where = f"{label} {path}"
    if kind == "spec":
        assert build_spec is not None
        folder = build_spec(path, Path(stack.enter_context(_tempdir("evidencepack-diff-"))))
        text = "built for this diff (unsigned, not verified)"
        documents = _documents(folder, where)
    elif policy is not None:
        from ..signing.verify import verify_pack_documents

        checked = verify_pack_documents(path, policy)
        report = checked.report
        if not report.ok:
            side = PackSide(
                source=str(path),
                kind=kind,
                verified=False,
                verification="verification FAILED: the pack was not read",
                signer=report.signer,
                problems=verification_problems(report),
            )
            return OpenedPack(side=side, decision=None, manifest=None)
        verified, signer, text = True, report.signer, _verified_text(report)
        documents = dict(checked.documents)
        for name in (DECISION_NAME, MANIFEST_NAME):
            if name not in documents:
                raise PackUnreadable(f"{where}: no {name} (is it a pack built by evidencepack?)")
    else:
        folder = path
        if kind == "archive":
            try:
                folder = extract_archive(
                    path, Path(stack.enter_context(_tempdir("evidencepack-diff-")))
                )
            except (VerificationError, InputError) as exc:
                raise PackUnreadable(f"{where}: {exc.message}", exc.problems) from exc
        signed = (folder / BUNDLE_NAME).is_file()
        text = (
            "not verified (signed; pass --key or --cert-identity/--cert-oidc-issuer)"
            if signed
            else "not verified (the pack is unsigned)"
        )
        documents = _documents(folder, where)
    decision, manifest, decision_sha, evidence_digest = parse_pack(
        documents[DECISION_NAME], documents[MANIFEST_NAME], where
    )
    if folder is not None:
        _read_spec(folder, decision, documents)
    side = PackSide(
        source=str(path),
        kind=kind,
        verified=verified,
        verification=text,
        signer=signer,
        decision_id=decision.decision_id,
        as_of=decision.as_of,
        tool_version=decision.tool_version,
        spec_sha256=decision.spec_sha256,
        decision_sha256=decision_sha,
        evidence_digest=evidence_digest,
        verdict=decision.verdict,
        recommendation=decision.recommendation,
        chosen=decision.chosen,
    )
    return OpenedPack(side, decision, manifest, _spec_copy(documents, decision))


def _spec_copy(documents: dict[str, bytes], decision: DecisionDocument) -> bytes | None:
    """The pack's copy of its spec, if it is there and is the spec the decision names."""
    spec = next((f for f in decision.inputs if f.role == "spec"), None)
    data = documents.get(spec.pack_path) if spec is not None else None
    if data is None or hashlib.sha256(data).hexdigest() != decision.spec_sha256:
        return None
    return data


def _tempdir(prefix: str) -> tempfile.TemporaryDirectory[str]:
    try:
        return tempfile.TemporaryDirectory(prefix=prefix)
    except OSError as exc:
        raise CouldNotRun(f"cannot create a temporary folder: {exc}") from exc


def _read(folder: Path, name: str, where: str) -> bytes:
    path = folder / name
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise PackUnreadable(f"{where}: no {name} (is it a pack built by evidencepack?)") from exc
    except OSError as exc:
        raise PackUnreadable(f"{where}: cannot read {name}: {exc}") from exc


M = TypeVar("M", bound=pydantic.BaseModel)


def _parse(model: type[M], raw: bytes, where: str) -> M:
    try:
        return model.model_validate_json(raw)
    except pydantic.ValidationError as exc:
        from ..spec.located import dotted  # with PyYAML: only for a document that is refused

        problems = tuple(
            f"{where}: {dotted(tuple(e['loc'])) or '(top)'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise PackUnreadable(
            f"{where}: not a valid {model.__name__} ({len(problems)} problem(s))", problems
        ) from exc


def parse_pack(
    raw_decision: bytes, raw_manifest: bytes, where: str
) -> tuple[DecisionDocument, EvidenceManifest, str, str]:
    """The pack's decision and manifest, checked against each other; with the sha256 of
    ``decision.json`` and of ``manifest.json`` (the evidence digest)."""
    decision = _parse(DecisionDocument, raw_decision, f"{where}/{DECISION_NAME}")
    manifest = _parse(EvidenceManifest, raw_manifest, f"{where}/{MANIFEST_NAME}")
    decision_sha = hashlib.sha256(raw_decision).hexdigest()
    problems = []
    if manifest.decision.sha256 != decision_sha:
        problems.append(
            f"{MANIFEST_NAME} names decision.json sha256 {manifest.decision.sha256}, "
            f"the file has {decision_sha}"
        )
    if manifest.inputs != decision.inputs:
        problems.append(f"{MANIFEST_NAME} and {DECISION_NAME} list different inputs")
    if problems:
        raise PackUnreadable(f"{where}: the pack is inconsistent: {problems[0]}", tuple(problems))
    return decision, manifest, decision_sha, hashlib.sha256(raw_manifest).hexdigest()
