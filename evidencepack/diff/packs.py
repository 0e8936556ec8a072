"""Open the two sides of a diff: a pack folder, a ``PACK.tar.gz`` or (NEW only) a spec.

Each side is read once, by the one pack reader (``signing.open_pack``): with a policy it is
verified as ``verify`` verifies it; without one, everything but the signature is checked (its
files against ``manifest.json``, its documents against each other). What the diff compares are
the bytes that reader checked: a ``decision.json`` swapped afterwards is never read, and a side
that fails is not read at all. A diff needs only the documents, so a folder is checked in place
(as ``verify`` checks it), not copied first; only OLD of a watch, whose inputs NEW is laid out
from, is read from a checked private copy. Each document is validated once, by that reader. A
spec is built into a temporary pack (in the caller's ``ExitStack``) and opened the same way.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

import pydantic

from ..analyze.models import DecisionDocument
from ..errors import CouldNotRun, InputError, InvalidRequest, VerificationError
from ..pack.archive import is_archive
from ..pack.layout import DECISION_NAME, MANIFEST_NAME
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
    """What ``path`` is, or a InvalidRequest saying what it should be."""
    if not path.exists():
        raise InvalidRequest(f"{label} {path}: no such file or folder")
    if path.is_dir():
        return "folder"
    if is_archive(path):
        return "archive"
    if path.name.endswith(SPEC_SUFFIXES):
        if allow_spec:
            return "spec"
        raise InvalidRequest(
            f"{label} {path}: OLD must be a built pack (folder or .tar.gz), not a spec"
        )
    raise InvalidRequest(f"{label} {path}: not a pack folder, a .tar.gz pack or a .yaml spec")


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


def open_pack(
    path: Path,
    label: str,
    stack: ExitStack,
    *,
    policy: VerifyPolicy | None,
    build_spec: BuildSpec | None = None,
    inputs_to: Path | None = None,
) -> OpenedPack:
    """Check (with ``policy``, verify) and read one side, once; a spec is built with
    ``build_spec``. Every side is opened by the one pack reader (``signing.open_pack``).
    ``inputs_to``: the checked private copy's ``inputs/`` is copied there while it is open
    (a watch given as NEW is laid out from it: ``watch_evidence``)."""
    from ..signing.open_pack import open_pack as open_built

    kind = pack_kind(path, label, allow_spec=build_spec is not None)
    where = f"{label} {path}"
    target = path
    if kind == "spec":
        assert build_spec is not None
        target = build_spec(path, Path(stack.enter_context(_tempdir("evidencepack-diff-"))))
    try:
        with open_built(target, policy, in_place=inputs_to is None) as opened:
            report, documents = opened.report, dict(opened.documents)
            problems = opened.problems
            signed = report.bundle_sha256 is not None  # a bundle was there, and read
            parsed = (
                (opened.decision, opened.manifest)
                if opened.decision is not None and opened.manifest is not None
                else None
            )
            if inputs_to is not None and opened.ok and opened.folder is not None:
                shutil.copytree(opened.folder / "inputs", inputs_to, symlinks=False)
    except (VerificationError, InputError) as exc:
        raise PackUnreadable(f"{where}: {exc.message}", exc.problems) from exc
    if not report.ok and policy is None:
        # Unverified, a pack whose records contradict its files cannot be read (exit 3).
        raise PackUnreadable(
            f"{where}: the pack's files disagree with its records ({len(problems)} problem(s))",
            problems,
        )
    if not report.ok:
        side = PackSide(
            source=str(path),
            kind=kind,
            verified=False,
            verification="verification FAILED: the pack was not read",
            signer=report.signer,
            problems=problems,
        )
        return OpenedPack(side=side, decision=None, manifest=None)
    if kind == "spec":
        text = "built for this diff (unsigned, not verified)"
    elif policy is not None:
        text = _verified_text(report)
    else:
        text = (
            "not verified (signed; pass --key or --cert-identity/--cert-oidc-issuer)"
            if signed
            else "not verified (the pack is unsigned)"
        )
    for name in (DECISION_NAME, MANIFEST_NAME):
        if name not in documents:
            raise PackUnreadable(f"{where}: no {name} (is it a pack built by evidencepack?)")
    decision, manifest, decision_sha, evidence_digest = parse_pack(
        documents[DECISION_NAME], documents[MANIFEST_NAME], where, parsed
    )
    side = PackSide(
        source=str(path),
        kind=kind,
        verified=policy is not None and kind != "spec",
        verification=text,
        signer=report.signer,
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
    raw_decision: bytes,
    raw_manifest: bytes,
    where: str,
    parsed: tuple[DecisionDocument, EvidenceManifest] | None = None,
) -> tuple[DecisionDocument, EvidenceManifest, str, str]:
    """The pack's decision and manifest, checked against each other; with the sha256 of
    ``decision.json`` and of ``manifest.json`` (the evidence digest). ``parsed``: the two
    models the pack reader already validated from these bytes (not validated again)."""
    if parsed is not None:
        decision, manifest = parsed
    else:
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
