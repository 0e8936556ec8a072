"""The compiler's stage order, and the only place that knows it.

spec -> collect (hash, pin-check) -> gather (read into the store) -> analyze (decide)
     -> render (HTML, PDF) -> manifest -> [sign]

``compile_pack`` runs up to the decision (``evidencepack check``); ``build`` writes a whole pack
into a temporary folder beside OUTDIR and renames it into place.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .analyze.decision import decide
from .analyze.decision_rows import decision_rows
from .analyze.gather import add_hard_links, gather
from .analyze.market import read_market_prices
from .analyze.models import DecisionDocument
from .analyze.price_read import read_prices
from .analyze.record import CandidateRecord
from .core.limits import MAX_SPEC_BYTES
from .core.progress import SILENT, Progress
from .errors import CheckFailed, CouldNotRun, EvidencePackError, InputError
from .intake.collect import Collected, Collector, copy_inputs
from .intake.model_files import take_tokenizer
from .intake.snapshot import Snapshots
from .pack.archive import write_archive
from .pack.layout import (
    BUNDLE_NAME,
    DECISION_NAME,
    MANIFEST_NAME,
    REPORT_HTML_NAME,
    REPORT_PDF_NAME,
    SPEC_PATH,
    STORE_NAME,
)
from .pack.manifest import document_bytes, manifest_bytes
from .pack.predicate import (
    DecisionSummary,
    PackPredicate,
    PdfSignatureRecord,
    SpecRef,
    ToolInfo,
    load_predicate,
    source_date_epoch,
    write_predicate,
)
from .pack.publish import (
    archive_path,
    check_outside_cited,
    check_target,
    discard,
    publish,
    staged_archive,
    staging_dir,
    write_pack_files,
)
from .pack.toolchain import rendering_toolchain
from .readers.registry import plugins_differ
from .render.signing_plan import SigningPlan
from .signing.bundle import parse_bundle
from .signing.model_signature import read_model_signature
from .signing.pades_options import PdfSignOptions
from .signing.rebuild_compare import compare_rebuilt
from .signing.replaceable import replaceable_pack
from .signing.sign import CertifiedSigner, PackSigner, SignerIdentity, sign_pack
from .signing.verify import VerifyPolicy, verified_copy
from .signing.verify_report import RebuildOutcome, VerifyReport
from .spec.load import LoadedSpec, load_spec, outside_paths
from .spec.plan import PLAN_NAME, RegisteredPlan
from .store import Store
from .store.analysis import replace_decision


@dataclass(frozen=True)
class CompileOptions:
    """How a spec is compiled: paths outside its folder allowed, the date waivers are judged on."""

    allow_outside: bool = False
    as_of: dt.date | None = None
    plan: Path | None = None
    """A registered plan (``evidencepack register``): the spec is held against it (check PLAN)
    and ``build`` packs it as ``plan.sigstore.json``."""
    progress: Progress = SILENT
    """Where the compile's stages and counts are reported (the caller's; default: nowhere)."""


@dataclass
class Compiled:
    """A compiled spec: the loaded spec, the decision, its records and the collected inputs."""

    loaded: LoadedSpec
    decision: DecisionDocument
    records: tuple[CandidateRecord, ...]
    """One per candidate: what the report renders (``decision`` is made from them)."""
    collected: Collected
    plan: RegisteredPlan | None = None
    """The registered plan the spec was held against, packed as ``plan.sigstore.json``."""


def compile_pack(
    spec_path: Path,
    options: CompileOptions,
    store: Store,
    snapshots: Path,
    *,
    spec_label: str | None = None,
) -> Compiled:
    """Read every input into ``store``, analyse, and store the decision. Raises on a bad spec
    (called ``spec_label`` in its messages; default: ``spec_path``).

    Each cited file is read once, into a private copy under ``snapshots`` (which must outlive
    ``copy_inputs``): the analysis and the pack both use that copy.
    """
    # The spec too is read once: parsed from the same snapshot the pack copies.
    taken = Snapshots(snapshots)
    spec_copy = taken.take(spec_path.resolve(), limit=MAX_SPEC_BYTES).copy
    loaded = load_spec(
        spec_path, allow_outside=options.allow_outside, read_from=spec_copy, label=spec_label
    )
    options.progress.stage(f"reading and hashing the inputs of {spec_path}")
    collector = Collector(loaded, taken, options.progress)
    evidence = gather(loaded, store, collector)
    # The envelope model's own signature: read once, judged for every candidate (PROV-MODEL).
    signed, signature_problems = read_model_signature(loaded, collector)
    signature_problems += take_tokenizer(loaded, collector)
    for candidate_evidence in evidence.values():
        candidate_evidence.signed_weights = signed
        candidate_evidence.problems += signature_problems
    # A price cited as a FOCUS export or a quote is read from that file (packed like evidence).
    analysed, price_problems, priced = read_prices(loaded, collector)
    for candidate, problems in price_problems.items():
        evidence[candidate].problems += problems
    # Market references for prices: every candidate's quote is shown beside them (PRICE).
    market, market_problems = read_market_prices(loaded, collector)
    for candidate_evidence in evidence.values():
        candidate_evidence.market = list(market)
        candidate_evidence.problems += market_problems
    for candidate, source in priced.items():
        evidence[candidate].price_failures += source.failures
        evidence[candidate].price_notes += source.notes
        evidence[candidate].price_offered = source.offered
    add_hard_links(evidence, collector)  # every file is in now: hard links of any role warn
    options.progress.stage("analysing: checks, capacity, cost, quality, decision")
    spec_file = collector.result.files[SPEC_PATH]
    plan = None
    if options.plan is not None:
        from .signing.plan import read_plan

        plan = read_plan(options.plan)
    decided = decide(
        analysed,
        spec_file.sha256,
        evidence,
        collector.result.input_files(),
        as_of=options.as_of,
        written=loaded.spec,
        priced=priced,
        plan=plan,
    )
    replace_decision(store, decided.document.decision_id, decision_rows(decided.document))
    return Compiled(
        loaded=loaded,
        decision=decided.document,
        records=decided.records,
        collected=collector.result,
        plan=plan,
    )


def check(spec_path: Path, options: CompileOptions) -> DecisionDocument:
    """The release gate: compile in memory and return the decision (its verdict is the gate)."""
    with Store() as store, tempfile.TemporaryDirectory(prefix="evidencepack-inputs-") as tmp:
        return compile_pack(spec_path, options, store, Path(tmp)).decision


def decision_json(decision: DecisionDocument) -> bytes:
    """decision.json bytes: stable key order, two-space indent, trailing newline."""
    return document_bytes(decision)


@dataclass(frozen=True)
class BuildOptions:
    """How a pack is built: the compile options, whether an existing OUTDIR may be replaced,
    and whether the OSCAL export goes into the pack."""

    compile: CompileOptions
    force: bool = False
    oscal_version: str | None = None
    """Also write the OSCAL assessment results and checks catalog into the pack (signed with
    it), declaring this OSCAL version (``export.oscal``)."""
    pdf_sign: PdfSignOptions | None = None
    """Sign the report PDF with a PAdES signature (``signing.pades``) after it is rendered."""


@dataclass(frozen=True)
class BuildResult:
    """A built pack: its folder, decision, evidence digest, archive and whether it was signed."""

    out_dir: Path
    decision: DecisionDocument
    evidence_digest: str
    archive: Path | None
    signed: bool


def build(
    spec_path: Path,
    out_dir: Path,
    options: BuildOptions,
    signer: PackSigner | None = None,
    *,
    archive: bool = False,
    signing: SigningPlan | None = None,
    spec_label: str | None = None,
) -> BuildResult:
    """Compile, render and (optionally) sign a pack in a temporary folder, then rename it into
    place. Nothing is left at OUTDIR unless every stage succeeded. ``signing`` is the signer the
    report names when no signer signs now (a rebuild reproducing a signed pack); ``spec_label``
    what messages call the spec (a rebuild: its path in the pack)."""
    # Rendering is imported here, not at the top: `check` imports this module and renders nothing.
    from .render.html import render_html
    from .render.pdf import Attachment, render_pdf
    from .signing.pades import prepare_pdf_signer

    # The document-signing credentials are checked before anything is built.
    pdf_signer = prepare_pdf_signer(options.pdf_sign) if options.pdf_sign else None
    # Before anything is built: a folder holding the spec or an input is never replaced, and
    # OUTDIR never sits inside a cited folder (the build's own files would be read as evidence).
    cited = _cited_paths(spec_path, options, strict=options.force and out_dir.exists())
    check_outside_cited(out_dir, cited)
    protected = [spec_path, *cited] if options.force and out_dir.exists() else [spec_path]
    check_target(out_dir, force=options.force, protected=protected, verify=replaceable_pack)
    staging = staging_dir(out_dir)
    staged = staged_archive(staging) if archive else None
    try:
        with (
            Store(staging / STORE_NAME) as store,
            tempfile.TemporaryDirectory(prefix="evidencepack-inputs-") as tmp,
        ):
            compiled = compile_pack(
                spec_path, options.compile, store, Path(tmp), spec_label=spec_label
            )
            copy_inputs(compiled.collected, staging)
        decision = compiled.decision
        dec_bytes = decision_json(decision)
        man_bytes = manifest_bytes(decision, dec_bytes)
        evidence_digest = hashlib.sha256(man_bytes).hexdigest()
        created = dt.datetime.combine(decision.as_of, dt.time(0), tzinfo=dt.UTC)
        progress = options.compile.progress
        progress.stage("rendering the report (HTML, then PDF)")
        html = render_html(
            decision,
            records=compiled.records,
            evidence_digest=evidence_digest,
            signer=describe_signer(signer) if signer else signing,
        )
        pdf = render_pdf(
            html,
            created=created,
            progress=progress,
            attachments=[
                Attachment(
                    name=MANIFEST_NAME,
                    data=man_bytes,
                    mime_type="application/json",
                    description="evidence manifest: every input and the decision, by sha256",
                ),
                Attachment(
                    name=DECISION_NAME,
                    data=dec_bytes,
                    mime_type="application/json",
                    description="the complete analysis and decision",
                ),
            ],
        )
        pdf_record = None
        if pdf_signer is not None:
            progress.stage("signing the report PDF (PAdES)")
            pdf, pdf_record = pdf_signer.sign(pdf)
        files = {
            MANIFEST_NAME: man_bytes,
            DECISION_NAME: dec_bytes,
            REPORT_HTML_NAME: html.encode("utf-8"),
            REPORT_PDF_NAME: pdf,
        }
        if compiled.plan is not None:
            files[PLAN_NAME] = compiled.plan.raw
        write_pack_files(staging, out_dir, files)
        if options.oscal_version is not None:
            from .export.oscal import export_into_pack

            export_into_pack(staging, options.oscal_version)
        predicate = pack_predicate(compiled, created, pdf_signature=pdf_record)
        try:
            write_predicate(staging, predicate)
        except CouldNotRun as exc:  # a full disk: name the pack folder asked for
            raise CouldNotRun(f"{out_dir}: cannot write the pack: {exc.message}") from exc
        if signer is not None:
            progress.stage("signing the pack")
            sign_pack(staging, predicate, signer)
        if staged is not None:
            progress.stage("writing the archive")
            mtime = source_date_epoch(predicate.created_at)
            write_archive(staging, staged, mtime=mtime, root=out_dir.name)
    except BaseException:
        discard(staging)
        raise
    publish(
        staging,
        out_dir,
        force=options.force,
        archive=staged,
        protected=[spec_path, *compiled.collected.sources.values()],
        verify=replaceable_pack,
    )
    return BuildResult(
        out_dir=out_dir,
        decision=decision,
        evidence_digest=evidence_digest,
        archive=archive_path(out_dir) if archive else None,
        signed=signer is not None,
    )


def _cited_paths(spec_path: Path, options: BuildOptions, *, strict: bool) -> list[Path]:
    """The evidence paths the spec cites, resolved; an invalid spec is reported by the compile
    (or here, when ``strict``: before ``--force`` replaces anything)."""
    try:
        loaded = load_spec(spec_path, allow_outside=options.compile.allow_outside)
    except EvidencePackError:
        if strict:
            raise
        return []
    cited = [ref.path for _loc, _role, ref in loaded.evidence_refs()]
    if loaded.spec.dataset.path is not None:
        cited.append(loaded.spec.dataset.path)
    return [loaded.resolve(path) for path in cited]


def pack_predicate(
    compiled: Compiled, created: dt.datetime, *, pdf_signature: PdfSignatureRecord | None = None
) -> PackPredicate:
    """The signed predicate: tool, spec digest, decision summary, rendering toolchain, time,
    and the report PDF's PAdES signature if it carries one."""
    decision = compiled.decision
    return PackPredicate(
        tool=ToolInfo(version=__version__),
        spec=SpecRef(pack_path=SPEC_PATH, sha256=decision.spec_sha256),
        decision=DecisionSummary(
            decision_id=decision.decision_id,
            question=decision.question,
            as_of=decision.as_of,
            recommendation=decision.recommendation,
            chosen=decision.chosen,
            verdict=decision.verdict,
            summary=decision.summary,
        ),
        toolchain=rendering_toolchain(),
        created_at=created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        rendered=(REPORT_HTML_NAME, REPORT_PDF_NAME),
        pdf_signature=pdf_signature,
    )


def describe_signer(signer: PackSigner) -> SigningPlan:
    """Who signs, for the report (rendered before signing; the bundle itself is the proof).

    A keyless signer requests its certificate now and reports the identity and issuer it
    names; it then signs with that certificate, or refuses (``KeylessSigner.prepare``)."""
    if isinstance(signer, CertifiedSigner):
        return keyless_plan(signer.prepare())
    return SigningPlan("key", getattr(signer, "fingerprint", None))


def keyless_plan(named: SignerIdentity) -> SigningPlan:
    """The report's keyless signer: the certificate's identity and OIDC issuer."""
    return SigningPlan("keyless", identity=named.identity, issuer=named.issuer)


def rebuild(
    pack_dir: Path, *, bundle: Path | None = None, pdf_trust_roots: Sequence[Path] = ()
) -> RebuildOutcome:
    """Re-run the whole analysis on the pack's own inputs and compare ``decision.json``,
    ``manifest.json`` and the rendered reports byte for byte, naming each first difference.

    Reads only the pack: the spec copy at ``predicate.spec.pack_path`` (its evidence paths
    resolve inside the pack's ``inputs/``; a spec citing paths outside it is refused, naming
    them), the original decision date, and the signer line the bundle (default: the pack's)
    implies. A report PDF with a PAdES signature: the rebuilt PDF is compared with the
    rendered part the predicate records, and the signature over the rest is checked
    (``signing.pades_check``, reporting the chain against ``pdf_trust_roots``). Raises
    InputError when the pack's spec or inputs do not build.
    """
    predicate = load_predicate(pack_dir)
    bundle_path = bundle or pack_dir / BUNDLE_NAME
    plan: SigningPlan | None = None
    bundle_label = BUNDLE_NAME if bundle is None else str(bundle)  # the pack's, by its name
    if bundle_path.is_file():
        parsed = parse_bundle(bundle_path.read_bytes(), bundle_label)
        if parsed.mode == "key":
            plan = SigningPlan("key", parsed.key_hint)
        else:
            from .signing.keyless import bundle_signer_identity

            plan = keyless_plan(bundle_signer_identity(parsed.raw, bundle_label))
    spec = pack_dir / predicate.spec.pack_path
    outside = outside_paths(spec, predicate.spec.pack_path)
    if outside:
        raise InputError(
            f"the pack's spec {predicate.spec.pack_path} cites {len(outside)} path(s) outside "
            "the pack; a rebuild reads only the pack, so it cannot recompute this decision",
            outside,
        )
    outcome = _rebuilt(pack_dir, spec, predicate, plan, pdf_trust_roots)
    # Only the rendered reports name the signer: when another file differs, a rebuild rendered
    # for no signer differs too, and is not made (a second build, PDF and all).
    rendered = {REPORT_HTML_NAME, REPORT_PDF_NAME, *predicate.rendered}
    only_rendered = not outcome.problems and all(d.file in rendered for d in outcome.differing)
    if not outcome.ok and only_rendered and plan is not None and predicate.pdf_signature is None:
        # ``build`` unsigned, then ``sign``: the report was rendered for no signer. The same
        # rebuild rendered so is the pack as built; the signature is verified apart.
        unsigned = _rebuilt(pack_dir, spec, predicate, None, pdf_trust_roots)
        if unsigned.ok:
            return unsigned
    return outcome


def _rebuilt(
    pack_dir: Path,
    spec: Path,
    predicate: PackPredicate,
    plan: SigningPlan | None,
    pdf_trust_roots: Sequence[Path],
) -> RebuildOutcome:
    """The pack's spec built again with ``plan`` as the report's signer line, compared."""
    with tempfile.TemporaryDirectory(prefix="evidencepack-rebuild-") as tmp:
        packed_plan = pack_dir / PLAN_NAME
        compile_options = CompileOptions(
            as_of=predicate.decision.as_of,
            plan=packed_plan if packed_plan.is_file() else None,
        )
        options = BuildOptions(compile=compile_options)
        out = Path(tmp) / "pack"
        build(spec, out, options, signing=plan, spec_label=predicate.spec.pack_path)
        # The four documents a pack always holds, whatever its predicate lists as rendered.
        names = (DECISION_NAME, MANIFEST_NAME, REPORT_HTML_NAME, REPORT_PDF_NAME)
        if predicate.pdf_signature is None:
            return compare_rebuilt(pack_dir, out, (*names, *predicate.rendered))
        from .signing.pades_check import compare_signed_rebuild

        record, roots = predicate.pdf_signature, pdf_trust_roots
        return compare_signed_rebuild(pack_dir, out, (*names, *predicate.rendered), record, roots)


def verify_rebuild(
    path: Path,
    policy: VerifyPolicy,
    *,
    bundle: Path | None = None,
    pdf_trust_roots: Sequence[Path] = (),
) -> VerifyReport:
    """``verify --rebuild``: verify a private copy of the pack (folder or archive), then
    recompute the decision from that copy alone; ``ok`` only if both pass."""
    with verified_copy(path, policy, bundle=bundle) as (verified, root):
        report = verified.report
        # Files as signed: recompute, even if its documents contradict each other (the
        # rebuild then says which of them the evidence supports).
        if report.checks.files != "passed" or root is None:
            skipped = RebuildOutcome(
                compared=(),
                problems=("the pack's files are not as signed: nothing is recomputed from them",),
            )
            return report.model_copy(update={"rebuild": skipped})
        try:
            outcome = rebuild(root, bundle=bundle, pdf_trust_roots=pdf_trust_roots)
        except (InputError, CheckFailed) as exc:
            found: tuple[str, ...] = getattr(exc, "problems", ())
            problems = [exc.message, *(p for p in found if p != exc.message)]
            # The pack's files are named by their place in the pack (``rebuild`` hands the
            # spec's pack path to the build), never by the private copy's folder.
            outcome = RebuildOutcome(compared=(), problems=tuple(problems))
        if not outcome.ok and (note := plugins_differ(root / DECISION_NAME)) is not None:
            outcome = outcome.model_copy(update={"problems": (*outcome.problems, note)})
    checks = report.checks.model_copy(update={"rebuild": "passed" if outcome.ok else "failed"})
    update: dict[str, object] = {"rebuild": outcome, "checks": checks}
    if not outcome.ok:
        update |= {"ok": False, "decision": None}
    return report.model_copy(update=update)
