"""``verify --json`` (``evidencepack/verify/v1``): what was checked, what passed, what differs.

One ``ok`` says whether every check asked for passed: the signature, every file's digest, the
pack's documents against each other and (with ``--rebuild``) the recomputed decision and
report. The pack's own decision is carried only when ``ok``: a failed pack's verdict is never
repeated as if it were a result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..core._models import Sha256Hex, StrictModel
from ..pack.predicate import DecisionSummary
from .bundle import TrustRootInfo
from .documents import Contradiction
from .signer import SignerInfo

VERIFY_API_VERSION: Literal["evidencepack/verify/v1"] = "evidencepack/verify/v1"

CheckState = Literal["passed", "failed", "not run"]


class FileMismatch(StrictModel):
    """A pack file whose digest differs from the statement (None: missing or extra)."""

    path: str = Field(
        description=(
            "the file's path inside the pack (for one verified file, the signed "
            "subject of the same name)"
        )
    )
    expected_sha256: Sha256Hex | None = Field(
        description=(
            "sha256 hex the signed statement records for the file; None for a file "
            "the statement does not name (extra)"
        )
    )
    actual_sha256: Sha256Hex | None = Field(
        description="sha256 hex of the file as found; None for a signed file that is missing"
    )


class VerifyChecks(StrictModel):
    """Each level of verification and how it ended; ``not run`` when not asked for, or when
    an earlier level failed (nothing is recomputed from a pack that is not as signed)."""

    signature: CheckState = Field(
        default="not run", description="the bundle verifies for the key or identity given"
    )
    files: CheckState = Field(
        default="not run",
        description="every file has the signed sha256; none missing, none added",
    )
    documents: CheckState = Field(
        default="not run",
        description="decision.json, manifest.json, predicate.json and the report's embedded "
        "metadata agree with each other",
    )
    verdicts: Literal["passed", "failed", "not run", "absent"] = Field(
        default="not run",
        description="the SVR and test-result statements (svr.sigstore.json, "
        "test-result.sigstore.json) are signed by the pack's signer, over the pack statement's "
        "subjects, and say what decision.json says; not run for a pack without decision.json "
        "(a change note) or whose files are not as signed; absent when the pack carries neither "
        "statement (signed before evidencepack wrote them: the pack's own signature still covers "
        "decision.json, so this is no failure; a policy engine that needs the SVR must ask for it)",
    )
    rebuild: CheckState = Field(
        default="not run",
        description="with --rebuild: the decision, manifest and report recomputed from the "
        "packed inputs and spec alone are byte for byte the pack's",
    )


class VerdictCheck(StrictModel):
    """One verdict statement of the pack (``signing.verdicts``) and what its check found."""

    file: str = Field(description="the statement's bundle, by pack path (svr.sigstore.json, ...)")
    predicate_type: str = Field(
        description="the predicate type the statement must have: "
        "https://in-toto.io/attestation/svr/v0.2 or https://in-toto.io/attestation/test-result/v0.1"
    )
    ok: bool = Field(
        description="signed by the pack's signer, over the pack statement's subjects, and equal "
        "field for field to the statement recomputed from decision.json"
    )
    bundle_sha256: Sha256Hex | None = Field(
        default=None, description="sha256 hex of the bundle's bytes; None when it is missing"
    )
    says: tuple[str, ...] = Field(
        default=(),
        description="what the verified statement states: the SVR's verifiedProperties, or the "
        "test result's result; empty unless ok",
    )
    problems: tuple[str, ...] = Field(
        default=(),
        description="why the statement failed, naming the file and the first differing field",
    )


class RebuildDifference(StrictModel):
    """A pack file that the rebuild recomputed differently, and the first place it differs."""

    file: str = Field(description="the pack file, by pack path (decision.json, report.pdf, ...)")
    field: str | None = Field(
        description="the first differing JSON path (JSON files), line (HTML) or byte offset "
        "(other files); null when the file is missing on one side"
    )
    pack_value: str | None = Field(description="what the pack holds there (cut short)")
    recomputed_value: str | None = Field(description="what the rebuild computed there")
    message: str = Field(
        description="one line, e.g. 'decision.json: recommendation is h200-vllm; recomputed: "
        "mi325x-vllm'"
    )


class PdfSignatureCheck(StrictModel):
    """``verify --rebuild`` of a pack whose report PDF carries a PAdES signature (pyHanko)."""

    signer_subject: str | None = Field(
        description="the signing certificate's subject (RFC 4514), as the PDF carries it"
    )
    signer_cert_sha256: Sha256Hex | None = Field(
        description="sha256 hex of the signing certificate (DER), as the PDF carries it"
    )
    intact: bool = Field(description="the signed bytes hash to the signed digest")
    valid: bool = Field(description="the signature over that digest verifies for the certificate")
    covers_whole_file: bool = Field(description="the signature covers the whole file")
    timestamp: str | None = Field(
        default=None, description="the time-stamp authority's time (PAdES B-T), or null"
    )
    chain: Literal["trusted", "untrusted", "not checked"] = Field(
        description="whether the certificate chains to a root given with --pdf-trust-root (not "
        "checked without one); a verdict on trust, not on the signature, and never a failure"
    )
    problems: tuple[str, ...] = Field(
        default=(), description="why the signature is not the one the predicate records"
    )

    @property
    def ok(self) -> bool:
        """Intact, valid, covering the whole file, by the recorded certificate."""
        return not self.problems


class RebuildOutcome(StrictModel):
    """``verify --rebuild``: the analysis recomputed from the pack's own inputs and spec."""

    compared: tuple[str, ...] = Field(description="the pack files compared, by pack path")
    differing: tuple[RebuildDifference, ...] = Field(
        default=(), description="each compared file that differs, with its first difference"
    )
    problems: tuple[str, ...] = Field(
        default=(),
        description="why the rebuild could not run (a spec citing paths outside the pack, a "
        "spec or input that no longer builds)",
    )
    pdf_signature: PdfSignatureCheck | None = Field(
        default=None,
        description="the report PDF's PAdES signature, checked (null: the pack records none)",
    )

    @property
    def ok(self) -> bool:
        """Every compared file reproduced byte for byte (``checks.rebuild`` in the report: the
        report's one ``ok`` covers it)."""
        signature_ok = self.pdf_signature is None or self.pdf_signature.ok
        return bool(self.compared) and not self.differing and not self.problems and signature_ok


class VerifyReport(StrictModel):
    """The outcome of ``evidencepack verify``: OK only when every check asked for passed."""

    api_version: Literal["evidencepack/verify/v1"] = Field(
        default=VERIFY_API_VERSION,
        alias="apiVersion",
        description="document version, always evidencepack/verify/v1",
    )
    ok: bool = Field(description="every check asked for passed (see `checks`)")
    target: str = Field(
        description="the pack folder, .tar.gz archive or single file given to verify, as given"
    )
    target_kind: Literal["pack", "archive", "file"] = Field(
        description=(
            "what target is: a pack folder, a pack archive, or one file checked "
            "against a pack's bundle"
        )
    )
    bundle: str = Field(
        description=(
            "the Sigstore bundle checked: its path, or <archive>!pack.sigstore.json "
            "for the bundle inside an archive"
        )
    )
    bundle_sha256: Sha256Hex | None = Field(
        default=None, description="sha256 hex of the bundle's bytes; None when it could not be read"
    )
    signer: SignerInfo | None = Field(
        default=None,
        description=(
            "who signed, as the verified bundle proves it; None when the signature did not verify"
        ),
    )
    trust_root: TrustRootInfo | None = Field(
        default=None,
        description=(
            "keyless verification: the Sigstore trusted root used; None for a key verification"
        ),
    )
    predicate_type: str | None = Field(
        default=None,
        description=(
            "the signed statement's predicateType; None when the signature did not "
            "verify or the bundle signs a file directly"
        ),
    )
    decision: DecisionSummary | None = Field(
        default=None,
        description="the pack's decision in one line, read from decision.json (from the signed "
        "predicate for a lone file); null unless `ok`: a failed pack's verdict is no result",
    )
    claimed_decision_id: str | None = Field(
        default=None,
        description="the decision id the signed predicate names, also when the pack failed "
        "(to say which pack failed; not verified)",
    )
    created_at: str | None = Field(
        default=None,
        description=(
            "the predicate's created_at (RFC 3339 date or date-time): when the "
            "evidence was produced; None when no evidencepack statement was read"
        ),
    )
    files_checked: int = Field(
        default=0,
        description=(
            "number of files of the pack hashed and compared with the statement (1 "
            "for a single file); 0 when the signature failed"
        ),
    )
    matched_subjects: tuple[str, ...] = Field(
        default=(),
        description=(
            "single file: the pack paths of the signed subjects whose sha256 equals "
            "the file's; empty for a pack"
        ),
    )
    missing: tuple[FileMismatch, ...] = Field(
        default=(), description="files the statement signs that the pack lacks"
    )
    extra: tuple[FileMismatch, ...] = Field(
        default=(), description="files in the pack that the statement does not sign"
    )
    changed: tuple[FileMismatch, ...] = Field(
        default=(),
        description=(
            "files whose sha256 differs from the signed one (single file: the "
            "subjects of the same name)"
        ),
    )
    problems: tuple[str, ...] = Field(
        default=(),
        description=(
            "every other reason verification failed, one line each (signature, "
            "archive, predicate, layout); empty when none"
        ),
    )
    checks: VerifyChecks = Field(
        default_factory=VerifyChecks, description="each level of verification and its result"
    )
    documents_checked: tuple[str, ...] = Field(
        default=(),
        description="the pack documents cross-checked against each other and the predicate",
    )
    contradictions: tuple[Contradiction, ...] = Field(
        default=(), description="two documents of the pack that state different values"
    )
    verdicts: tuple[VerdictCheck, ...] = Field(
        default=(),
        description="the pack's verdict statements (SVR and test result) and their checks; "
        "empty when not checked (see checks.verdicts)",
    )
    rebuild: RebuildOutcome | None = Field(
        default=None, description="with --rebuild: what the recomputation found"
    )
    plan: str | None = Field(
        default=None,
        description="a pack built with --plan: the registered plan (plan.sigstore.json), when "
        "and by whom it was registered, its signature verified with the pack's key or identity",
    )
