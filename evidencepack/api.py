"""The stable Python API: what ``evidencepack`` exports (``evidencepack.__all__``), as functions.

Each function is what one command does, with keyword arguments for its options, and returns the
document the command prints with ``--json`` (a pydantic model or a small dataclass). Failures are
the errors of ``evidencepack.errors``: an invalid spec is a ``SpecError`` whose ``problems`` lists
every problem (``validate`` returns them as objects instead), a failed signature a
``VerificationError``; a failed check is not an error, it is in the returned decision.

Nothing heavy is imported until a function runs, and the spec is read and validated before the
compile pipeline (DuckDB, numpy) is imported.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InputError, UsageError

if TYPE_CHECKING:
    from .analyze.models import DecisionDocument
    from .diff.run import DiffResult
    from .pipeline import BuildResult, CompileOptions
    from .problems import ValidationReport
    from .progress import Reporter
    from .readers.base import ParsedInput
    from .signing.sign import PackSigner
    from .signing.verify import VerifyPolicy
    from .signing.verify_report import RebuildOutcome, VerifyReport
    from .spec.load import LoadedSpec

PathLike = str | os.PathLike[str]
"""A path: a ``str`` or a ``pathlib.Path``."""


def load_spec(spec: PathLike, *, allow_outside: bool = False) -> LoadedSpec:
    """Read and validate a pack spec; raise ``SpecError`` listing every problem located.

    ``allow_outside`` permits evidence paths outside the spec's folder."""
    from .spec.load import load_spec as load

    return load(Path(spec), allow_outside=allow_outside)


def validate(spec: PathLike, *, allow_outside: bool = False) -> ValidationReport:
    """Validate a pack spec and return the report (``validate --json``): ``valid``, and every
    problem as a ``Problem`` with file, line, column, field path, code, message and hint.

    Raises only when the spec cannot be read at all for another reason (``CouldNotRun``)."""
    from .problems import ValidationReport, report_of

    try:
        loaded = load_spec(spec, allow_outside=allow_outside)
    except InputError as exc:
        return report_of(str(spec), exc.message, exc.found)
    return ValidationReport(
        spec=str(spec),
        valid=True,
        decision=loaded.spec.decision.id,
        candidates=tuple(c.id for c in loaded.spec.candidates),
        evidence_files=sum(1 for _ in loaded.evidence_refs()),
    )


def _compile_options(
    allow_outside: bool,
    as_of: dt.date | None,
    plan: Path | None = None,
    reporter: Reporter | None = None,
) -> CompileOptions:
    from .pipeline import CompileOptions
    from .progress import Progress

    return CompileOptions(
        allow_outside=allow_outside, as_of=as_of, plan=plan, progress=Progress(reporter)
    )


def check(
    spec: PathLike,
    *,
    allow_outside: bool = False,
    as_of: dt.date | None = None,
    plan: PathLike | None = None,
    reporter: Reporter | None = None,
) -> DecisionDocument:
    """The release gate: analyse the spec's evidence in memory and return the decision
    (``decision.json``); ``decision.gate_passes()`` is the gate (``allow_waivers=False``:
    ``check --no-waivers``). ``as_of`` judges waiver expiry on that
    date (default: the spec's decision date); ``plan``, a registered plan the spec is held
    against (check PLAN); ``reporter``, where the stages and counts are reported (a
    ``progress.Reporter``; default: nowhere, stages logged). Raises ``SpecError`` or
    ``InputError`` for a bad spec or input, before DuckDB or numpy is imported when the spec is
    the problem."""
    _read_spec_first(Path(spec))
    load_spec(spec, allow_outside=allow_outside)
    from .pipeline import check as run_check

    plan_path = Path(plan) if plan is not None else None
    options = _compile_options(allow_outside, as_of, plan_path, reporter)
    try:
        return run_check(Path(spec), options)
    finally:
        options.progress.finish()


def _read_spec_first(path: Path) -> None:
    """Refuse a missing, unreadable or oversized spec before pydantic and the spec models load
    (``check``'s start-up; ``load_spec`` reads the file again, a few kilobytes)."""
    from .errors import SpecError
    from .limits import MAX_SPEC_BYTES, read_limited

    read_limited(path, MAX_SPEC_BYTES, what="YAML file", error=SpecError)


def signer(
    *,
    key: PathLike | None = None,
    passphrase: str | None = None,
    keyless: bool = False,
    identity_token: str | None = None,
    staging: bool = False,
) -> PackSigner | None:
    """The signer ``build`` signs with: a private key file (``passphrase``, else
    ``$EVIDENCEPACK_KEY_PASSPHRASE`` or a prompt, unlocks an encrypted one), or keyless Sigstore
    (``identity_token``, else ambient credentials such as GitHub Actions'). None: unsigned."""
    if key is not None:
        if keyless or identity_token or staging:
            raise UsageError("a key signs without Sigstore: drop keyless/identity_token/staging")
        from .signing.keyed import KeySigner
        from .signing.keys import read_passphrase

        if passphrase is None:
            return KeySigner.from_file(Path(key), lambda: read_passphrase(confirm=False))
        if not passphrase:
            raise UsageError("an empty passphrase: pass None to read $EVIDENCEPACK_KEY_PASSPHRASE")
        secret = passphrase.encode("utf-8")
        return KeySigner.from_file(Path(key), lambda: secret)
    if keyless or identity_token:
        from .signing.keyless import KeylessSigner

        return KeylessSigner(identity_token, staging=staging)
    return None


def build(
    spec: PathLike,
    out: PathLike,
    *,
    key: PathLike | None = None,
    passphrase: str | None = None,
    keyless: bool = False,
    identity_token: str | None = None,
    archive: bool = False,
    force: bool = False,
    allow_outside: bool = False,
    as_of: dt.date | None = None,
    oscal: str | None = None,
    pdf_sign_key: PathLike | None = None,
    pdf_sign_cert: PathLike | None = None,
    pdf_sign_chain: PathLike | None = None,
    tsa: str | None = None,
    pdf_sign_revocation: Sequence[PathLike] = (),
    reporter: Reporter | None = None,
) -> BuildResult:
    """Compile the spec into a pack folder ``out`` (report, decision, manifest, store, inputs),
    signed with ``key`` or ``keyless`` (see ``signer``), with ``out.tar.gz`` if ``archive``.
    ``force`` replaces an existing pack at ``out``; ``oscal`` (an OSCAL version such as
    ``"1.2.3"``) also writes the OSCAL export into the pack. ``pdf_sign_key`` and
    ``pdf_sign_cert`` (both, or neither) sign ``report.pdf`` with a PAdES signature (the extra
    ``evidencepack[pdf-sign]``), embedding ``pdf_sign_chain``, time-stamped by the RFC 3161
    authority at ``tsa`` if given, with the revocation data files ``pdf_sign_revocation``
    embedded (PAdES B-LT). ``reporter`` gets the stages and counts (as ``check``'s). A failed
    check still builds: see ``BuildResult.decision.verdict``."""
    load_spec(spec, allow_outside=allow_outside)
    from .pipeline import BuildOptions
    from .pipeline import build as run_build
    from .signing.pades_options import pdf_sign_options

    chosen = signer(key=key, passphrase=passphrase, keyless=keyless, identity_token=identity_token)
    options = BuildOptions(
        compile=_compile_options(allow_outside, as_of, reporter=reporter),
        force=force,
        oscal_version=oscal,
        pdf_sign=pdf_sign_options(
            pdf_sign_key,
            pdf_sign_cert,
            pdf_sign_chain,
            tsa,
            tuple(pdf_sign_revocation),
            ("pdf_sign_key", "pdf_sign_cert", "pdf_sign_chain", "tsa", "pdf_sign_revocation"),
        ),
    )
    try:
        return run_build(Path(spec), Path(out), options, chosen, archive=archive)
    finally:
        options.compile.progress.finish()


def rebuild(
    pack: PathLike,
    *,
    bundle: PathLike | None = None,
    pdf_trust_roots: Sequence[PathLike] = (),
) -> RebuildOutcome:
    """Re-run the whole analysis on a pack folder's own inputs and compare ``decision.json``,
    ``manifest.json`` and the reports byte for byte (``verify --rebuild``), naming each first
    difference. ``bundle`` (default: the pack's) sets the signer line the report names. A
    report PDF with a PAdES signature: its rendered part is compared and the signature checked
    (``RebuildOutcome.pdf_signature``), its chain reported against ``pdf_trust_roots``."""
    from .pipeline import rebuild as run_rebuild

    roots = [Path(root) for root in pdf_trust_roots]
    return run_rebuild(Path(pack), bundle=Path(bundle) if bundle else None, pdf_trust_roots=roots)


def read_input(path: PathLike, *, max_file_bytes: int | None = None) -> ParsedInput:
    """Detect and read one evidence file (a serving benchmark's output, a LoadGen log, eval
    scores): its format, the runs or score sets it holds, and warnings (``inspect``).
    ``max_file_bytes`` raises the 1 GiB size limit (``inspect --max-file-bytes``)."""
    from .intake.snapshot import read_private

    return read_private(Path(path), max_bytes=max_file_bytes)


def verify_policy(
    *,
    key: PathLike | None = None,
    cert_identity: str | None = None,
    cert_oidc_issuer: str | None = None,
    trusted_root: PathLike | None = None,
    staging: bool = False,
    offline: bool = False,
) -> VerifyPolicy:
    """Who must have signed: a public key file, or a keyless identity and its OIDC issuer
    (checked against Sigstore's trust root, or ``trusted_root`` pinned)."""
    from .signing.verify import KeylessPolicy, KeyPolicy

    keyless = cert_identity is not None or cert_oidc_issuer is not None
    if key is not None:
        if keyless or trusted_root or staging or offline:
            raise UsageError(
                "--key verifies a key-signed pack: drop --cert-identity/--cert-oidc-issuer/"
                "--trusted-root/--staging/--offline"
            )
        from .signing.keys import load_public_key

        return KeyPolicy(load_public_key(Path(key)))
    if not (cert_identity and cert_oidc_issuer):
        raise UsageError(
            "say who must have signed: --cert-identity and --cert-oidc-issuer (both), or --key"
        )
    if trusted_root and staging:
        raise UsageError(
            "--staging picks Sigstore's staging root; it cannot go with --trusted-root"
        )
    from .signing.keyless import load_trust_root

    root_file = Path(trusted_root) if trusted_root else None
    root = load_trust_root(root_file, staging=staging, offline=offline)
    return KeylessPolicy(cert_identity, cert_oidc_issuer, root)


def verify(
    target: PathLike,
    *,
    key: PathLike | None = None,
    cert_identity: str | None = None,
    cert_oidc_issuer: str | None = None,
    bundle: PathLike | None = None,
    trusted_root: PathLike | None = None,
    staging: bool = False,
    offline: bool = False,
) -> VerifyReport:
    """Verify a pack (folder or ``.tar.gz``), or one file of it against the pack's ``bundle``:
    the signature, who signed (``key``, or ``cert_identity`` + ``cert_oidc_issuer``) and every
    file digest. A failed verification is ``VerifyReport.ok`` False with its ``problems``."""
    from .pack.archive import is_archive
    from .signing.verify import verify_file, verify_pack

    path = Path(target)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    policy = verify_policy(
        key=key,
        cert_identity=cert_identity,
        cert_oidc_issuer=cert_oidc_issuer,
        trusted_root=trusted_root,
        staging=staging,
        offline=offline,
    )
    bundle_path = Path(bundle) if bundle else None
    if path.is_dir() or is_archive(path):
        return verify_pack(path, policy, bundle=bundle_path)
    if bundle_path is None:
        raise UsageError(f"{path}: to verify one file, pass the pack's bundle (pack.sigstore.json)")
    return verify_file(path, bundle_path, policy)


def diff_packs(
    old: PathLike,
    new: PathLike,
    *,
    key: PathLike | None = None,
    cert_identity: str | None = None,
    cert_oidc_issuer: str | None = None,
    trusted_root: PathLike | None = None,
    fail_on_cost_increase: float | None = None,
    fail_on_capacity_loss: float | None = None,
    allow_outside: bool = False,
    as_of: dt.date | None = None,
) -> DiffResult:
    """Compare two packs (folders or ``.tar.gz``; ``new`` may be a spec, built first): what
    changed and whether the decision still holds (``DiffResult.holds``). With ``key`` or
    ``cert_identity`` + ``cert_oidc_issuer`` both packs are verified first. The thresholds are
    fractions (0.1 = 10%)."""
    from .diff.compare import Thresholds
    from .diff.run import DiffOptions
    from .diff.run import diff_packs as run_diff

    verifying = key is not None or cert_identity is not None or cert_oidc_issuer is not None
    policy = (
        verify_policy(
            key=key,
            cert_identity=cert_identity,
            cert_oidc_issuer=cert_oidc_issuer,
            trusted_root=trusted_root,
        )
        if verifying
        else None
    )
    options = DiffOptions(
        policy=policy,
        thresholds=Thresholds(fail_on_cost_increase, fail_on_capacity_loss),
        allow_outside=allow_outside,
        as_of=as_of,
    )
    return run_diff(Path(old), Path(new), options)
