"""The compile commands as functions: ``load_spec``, ``validate``, ``check``, ``build``,
``rebuild``, ``init_spec``, ``schemas``, and the forms a decision is shown in (JUnit, Markdown).

Each function is what one command does, with an options object for its options
(``evidencepack.api.options``), and returns the document the command prints with ``--json`` (a
pydantic model or a small dataclass). Failures are the errors of ``evidencepack.errors``: an
invalid spec is a ``SpecError`` whose ``problems`` lists every problem (``validate`` returns them
as objects instead); options that cannot go together an ``InvalidRequest``; a failed check is not
an error, it is in the returned decision.

Nothing heavy is imported until a function runs, and the spec is read and validated before the
compile pipeline (DuckDB, numpy) is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError

# The options module (dataclasses) loads when a function needs it: ``check`` refuses a missing
# spec first (tests/test_startup.py).
if TYPE_CHECKING:
    from ..analyze.models import DecisionDocument
    from ..commands.command_reports import BuildReport, InitReport, SchemasReport
    from ..commands.init_spec import InitResult
    from ..core.problems import ValidationReport
    from ..pipeline import BuildResult, CompileOptions
    from ..signing.pades_options import PdfSignOptions
    from ..signing.verify_report import RebuildOutcome
    from ..spec.load import LoadedSpec
    from .options import BuildOptions, CheckOptions, PathLike, PdfSignSpec


def load_spec(spec: PathLike, *, allow_outside: bool = False) -> LoadedSpec:
    """Read and validate a pack spec; raise ``SpecError`` listing every problem located.

    ``allow_outside`` permits evidence paths outside the spec's folder."""
    from ..spec.load import load_spec as load

    return load(Path(spec), allow_outside=allow_outside)


def validate(spec: PathLike, *, allow_outside: bool = False) -> ValidationReport:
    """Validate a pack spec and return the report (``validate --json``): ``valid``, and every
    problem as a ``Problem`` with file, line, column, field path, code, message and hint.

    Raises only when the spec cannot be read at all for another reason (``CouldNotRun``)."""
    from ..core.problems import ValidationReport

    try:
        loaded = load_spec(spec, allow_outside=allow_outside)
    except InputError as exc:
        return problems_report(spec, exc)
    return ValidationReport(
        spec=str(spec),
        valid=True,
        decision=loaded.spec.decision.id,
        candidates=tuple(c.id for c in loaded.spec.candidates),
        evidence_files=sum(1 for _ in loaded.evidence_refs()),
    )


def problems_report(spec: PathLike, exc: InputError) -> ValidationReport:
    """An invalid spec or input as the report ``validate --json`` prints: every problem."""
    from ..core.problems import report_of

    return report_of(str(spec), exc.message, exc.found)


def compile_options(options: CheckOptions) -> CompileOptions:
    """The pipeline's compile options of ``options``."""
    from ..core.progress import Progress
    from ..pipeline import CompileOptions
    from .options import path_or_none

    return CompileOptions(
        allow_outside=options.allow_outside,
        as_of=options.as_of,
        plan=path_or_none(options.plan),
        progress=Progress(options.reporter),
    )


def check(spec: PathLike, options: CheckOptions | None = None) -> DecisionDocument:
    """The release gate: analyse the spec's evidence in memory and return the decision
    (``decision.json``); ``decision.gate_passes()`` is the gate (``allow_waivers=False``:
    ``check --no-waivers``). Raises ``SpecError`` or ``InputError`` for a bad spec or input,
    before DuckDB or numpy is imported when the spec is the problem."""
    read_spec_first(spec)
    from .options import CheckOptions

    options = options or CheckOptions()
    load_spec(spec, allow_outside=options.allow_outside)
    from ..pipeline import check as run_check

    compiled = compile_options(options)
    try:
        return run_check(Path(spec), compiled)
    finally:
        compiled.progress.finish()


def read_spec_first(spec: PathLike) -> None:
    """Refuse a missing, unreadable or oversized spec (``SpecError``) before pydantic and the
    spec models load (``check``'s start-up; ``load_spec`` reads the file again, a few KB)."""
    from ..core.limits import MAX_SPEC_BYTES, read_limited
    from ..errors import SpecError

    read_limited(Path(spec), MAX_SPEC_BYTES, what="YAML file", error=SpecError)


def pdf_sign_options(spec: PdfSignSpec | None) -> PdfSignOptions | None:
    """The PAdES signing options of ``spec`` (None: no PDF signature)."""
    if spec is None:
        return None
    from ..signing.pades_options import pdf_sign_options as make

    return make(spec.key, spec.cert, spec.chain, spec.tsa, tuple(spec.revocation))


def build(spec: PathLike, out: PathLike, options: BuildOptions | None = None) -> BuildResult:
    """Compile the spec into a pack folder ``out`` (report, decision, manifest, store, inputs),
    signed by ``options.signer`` (a ``SignerSpec``: a key file, keyless Sigstore or a signer of
    your own; None: unsigned), with ``out.tar.gz`` if ``options.archive``, the OSCAL export
    inside if ``options.oscal``, and a PAdES signature in ``report.pdf`` if
    ``options.pdf_sign``. A failed check still builds: see ``BuildResult.decision.verdict``."""
    from .options import BuildOptions
    from .signing import signer

    options = options or BuildOptions()
    load_spec(spec, allow_outside=options.allow_outside)
    from ..pipeline import BuildOptions as PipelineOptions
    from ..pipeline import build as run_build

    chosen = signer(options.signer) if options.signer is not None else None
    compiled = PipelineOptions(
        compile=compile_options(options),
        force=options.force,
        oscal_version=options.oscal,
        pdf_sign=pdf_sign_options(options.pdf_sign),
    )
    try:
        return run_build(Path(spec), Path(out), compiled, chosen, archive=options.archive)
    finally:
        compiled.compile.progress.finish()


def rebuild(
    pack: PathLike, *, bundle: PathLike | None = None, pdf_trust_roots: tuple[PathLike, ...] = ()
) -> RebuildOutcome:
    """Re-run the whole analysis on a pack folder's own inputs and compare ``decision.json``,
    ``manifest.json`` and the reports byte for byte (``verify --rebuild``), naming each first
    difference. ``bundle`` (default: the pack's) sets the signer line the report names. A
    report PDF with a PAdES signature: its rendered part is compared and the signature checked
    (``RebuildOutcome.pdf_signature``), its chain reported against ``pdf_trust_roots``."""
    from ..pipeline import rebuild as run_rebuild
    from .options import path_or_none

    roots = [Path(root) for root in pdf_trust_roots]
    return run_rebuild(Path(pack), bundle=path_or_none(bundle), pdf_trust_roots=roots)


def init_spec(folder: PathLike, out: PathLike | None = None, *, force: bool = False) -> InitResult:
    """``init``: a first spec written from a folder of evidence (one subfolder per candidate,
    or files), every value it cannot know marked TODO; ``out`` defaults to
    ``FOLDER/pack.yaml``, replaced only with ``force``."""
    from ..commands.init_spec import init_spec as run_init
    from .options import path_or_none

    return run_init(Path(folder), path_or_none(out), force=force)


def init_report(result: InitResult) -> InitReport:
    """``init --json``'s document."""
    from ..commands.command_reports import InitReport

    return InitReport(
        spec=str(result.path),
        candidates=tuple(result.candidates),
        evidence_references=result.references,
        todos=result.todos,
        not_cited=tuple(result.skipped),
    )


def build_report(result: BuildResult) -> BuildReport:
    """``build --json``'s document."""
    from ..commands.command_reports import BuildReport

    decision = result.decision
    return BuildReport(
        pack=str(result.out_dir),
        evidence_digest=result.evidence_digest,
        signed=result.signed,
        archive=str(result.archive) if result.archive else None,
        verdict=decision.verdict,
        recommendation=decision.recommendation,
    )


def schemas(out: PathLike | None = None, *, check: bool = False) -> SchemasReport:
    """Write the JSON Schemas of every document into ``out`` (default: ``schemas/``), or with
    ``check`` compare them; ``SchemaDriftError`` (exit 1) names what differs."""
    from ..commands.command_reports import SchemasReport
    from ..schemas import check_schemas, write_schemas
    from .options import path_or_none

    folder = path_or_none(out)
    if check:
        return SchemasReport(ok=True, checked=check_schemas(folder).checked)
    return SchemasReport(ok=True, written=write_schemas(folder).written)


def junit_xml(decision: DecisionDocument, *, allow_waivers: bool = True) -> bytes:
    """The decision as JUnit XML: one test case per check and candidate (``check --junit``)."""
    from ..commands.check_outputs import junit_xml as render

    return render(decision, allow_waivers=allow_waivers)


def markdown(
    decision: DecisionDocument, *, allow_waivers: bool = True, built: BuildResult | None = None
) -> str:
    """The decision as a Markdown summary (``check --markdown``, a CI job summary); ``built``
    adds the pack's folder, digest and signature."""
    from ..commands.check_outputs import markdown as render

    return render(decision, allow_waivers=allow_waivers, built=built)


def gate_verdict(decision: DecisionDocument, *, allow_waivers: bool = True) -> str:
    """The gate's word for the decision (``check --no-waivers`` fails on a waived failure)."""
    from ..commands.check_outputs import gate_verdict as verdict

    return verdict(decision, allow_waivers=allow_waivers)


def problems_junit_xml(report: ValidationReport) -> bytes:
    """An invalid spec or input's problems as JUnit XML."""
    from ..commands.check_outputs import problems_junit_xml as render

    return render(report)


def problems_markdown(report: ValidationReport) -> str:
    """An invalid spec or input's problems as Markdown."""
    from ..commands.check_outputs import problems_markdown as render

    return render(report)
