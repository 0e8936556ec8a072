"""The compile commands: ``validate``, ``init``, ``check``, ``build``, ``schemas``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import EXIT_FAILED, EXIT_OK, InputError
from ._common import (
    Command,
    allow_outside_argument,
    check_options,
    compile_arguments,
    emit,
    json_argument,
    optional_path,
    plan_argument,
)
from ._pdf_sign import pdf_sign_arguments, pdf_sign_spec
from ._signers import keyless_arguments, signer_spec
from .export import oscal_argument

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..analyze.models import DecisionDocument


# --- validate -----------------------------------------------------------------------------------


class ValidateOptions(NamedTuple):
    spec: Path
    allow_outside: bool
    json: bool


def _cmd_validate(args: argparse.Namespace) -> int:
    from ..api.compile import load_spec, validate

    opts = ValidateOptions(Path(args.spec), args.allow_outside_paths, args.json)
    if not opts.json:
        loaded = load_spec(opts.spec, allow_outside=opts.allow_outside)  # raises: every problem
        spec, refs = loaded.spec, sum(1 for _ in loaded.evidence_refs())
        print(
            f"{opts.spec}: OK ({spec.decision.id}: {len(spec.candidates)} candidate(s), "
            f"{refs} evidence reference(s))"
        )
        return EXIT_OK
    report = validate(opts.spec, allow_outside=opts.allow_outside)
    _print_model(report)
    return EXIT_OK if report.valid else EXIT_FAILED


def _print_model(model: BaseModel) -> None:
    """A document model as the JSON ``--json`` prints: by alias, sorted keys, two-space indent."""
    import json

    emit(json.loads(model.model_dump_json(by_alias=True)), as_json=True, text="")


# --- init ---------------------------------------------------------------------------------------


class InitOptions(NamedTuple):
    folder: Path
    out: Path | None
    force: bool
    json: bool


def _cmd_init(args: argparse.Namespace) -> int:
    from ..api.compile import init_report, init_spec

    opts = InitOptions(Path(args.folder), optional_path(args.out), args.force, args.json)
    result = init_spec(opts.folder, opts.out, force=opts.force)
    lines = [
        f"wrote {result.path}: {len(result.candidates)} candidate(s) "
        f"({', '.join(result.candidates)}), {result.references} evidence reference(s), "
        f"{result.todos} TODO value(s) to fill",
    ]
    if result.skipped:
        lines.append(f"not cited ({len(result.skipped)}, listed at the end of the spec):")
        lines += [f"  {item}" for item in result.skipped[:10]]
        if len(result.skipped) > 10:
            lines.append(f"  ... and {len(result.skipped) - 10} more")
    lines.append(f"next: fill the TODO values, then `evidencepack validate {result.path}`")
    if not opts.json:
        print("\n".join(lines))
        return EXIT_OK
    _print_model(init_report(result))
    return EXIT_OK


# --- check and build ----------------------------------------------------------------------------


def _decision_text(decision: DecisionDocument, verdict: str | None = None) -> str:
    """The decision for a terminal; ``verdict`` replaces the decision's own in the first line
    (the gate's word under ``check --no-waivers``)."""
    lines = [f"{decision.decision_id}: {verdict or decision.verdict}", decision.summary, ""]
    fits: dict[str, tuple[int, int]] = {}
    for fit in decision.fit:
        if fit.kind == "run":
            good, total = fits.get(fit.candidate, (0, 0))
            fits[fit.candidate] = (good + fit.fits, total + 1)
    for v in decision.candidates:
        state = "eligible" if v.eligible else "not eligible"
        accel = "-" if v.accelerators_needed is None else str(v.accelerators_needed)
        cost = "-" if v.cost_per_month is None else f"{v.cost_per_month:,.0f} {v.currency}/month"
        good, total = fits.get(v.id, (0, 0))
        api = any(c.candidate == v.id and c.api is not None for c in decision.capacity)
        unit = "API accounts" if api else "accelerators"
        lines.append(
            f"  {v.id:<20} {state:<13} {unit} {accel:<5} {cost:<22} runs fit {good}/{total}"
        )
        lines.extend(f"    waived: {text}" for text in v.waivers)
        lines.extend(_basis_lines(decision, v.id))
    notable = [c for c in decision.checks if c.status != "PASS" or c.basis == "declared"]
    if notable:
        lines.append("")
    for c in notable:
        who = f" [{c.candidate}]" if c.candidate else ""
        flag = " (waived)" if c.waived else (" (hard)" if c.hard and c.status == "FAIL" else "")
        lines.append(f"  {c.shown} {c.id}{who}{flag}: {c.reason}")
    lines.extend(
        f"  note {c.id}{f' [{c.candidate}]' if c.candidate else ''}: {note}"
        for c in decision.checks
        for note in c.notes
    )
    lines.extend(f"  waiver rejected: {text}" for text in decision.waivers_rejected)
    said = [w for f in decision.inputs if f.role == "spec" for w in f.warnings]
    lines.extend(f"  warning: {text}" for text in said)
    return "\n".join(lines)


def _basis_lines(decision: DecisionDocument, candidate: str) -> list[str]:
    """A candidate's annual cost on each stated basis and its energy, one line each."""
    bases = decision.cost_bases
    if bases is None:
        return []
    out = []
    for b in bases.costs:
        if b.candidate != candidate:
            continue
        mark = " (ranked on)" if b.basis == bases.basis else ""
        if b.per_year is None:
            out.append(f"    {b.label}{mark}: no figure ({b.reason})")
            continue
        term = f", {b.whole_term:,.0f} {b.currency} over the term" if b.whole_term else ""
        out.append(f"    {b.label}{mark}: {b.per_year:,.0f} {b.currency}/year{term}")
    out.extend(
        f"    energy: {e.kwh_per_million_output_tokens:.3f} kWh per 1M output tokens "
        f"(method {e.method}, {e.provenance}: {e.source}; {e.scope})"
        for e in bases.energy
        if e.candidate == candidate and e.kwh_per_million_output_tokens is not None
    )
    out.extend(
        "    measured energy (evidence, not in the cost): "
        + (
            f"{e.kwh_per_million_output_tokens:.3f} kWh per 1M output tokens at its own load"
            if e.fits and e.kwh_per_million_output_tokens is not None
            else "does not fit: " + "; ".join(e.reasons)
        )
        + f" (method {e.method}, {e.scope}; {e.source})"
        for e in bases.measured_energy
        if e.candidate == candidate
    )
    return out


class CheckCommandOptions(NamedTuple):
    spec: Path
    json: bool
    markdown: bool
    junit: Path | None
    summary: Path | None


def _cmd_check(args: argparse.Namespace) -> int:
    from ..api.compile import check, read_spec_first

    opts = CheckCommandOptions(
        Path(args.spec),
        args.json,
        args.markdown,
        optional_path(args.junit),
        optional_path(args.summary),
    )
    try:
        read_spec_first(opts.spec)  # a missing spec refused before the options objects load
        # api.check reads and validates the spec before it imports DuckDB or numpy.
        decision = check(opts.spec, check_options(args))
    except InputError as exc:
        if not (opts.json or opts.markdown or opts.junit or opts.summary):
            raise
        return _check_problems(opts, exc)
    from ..api.compile import junit_xml, markdown
    from ..api.terminal import write_file

    allow = not args.no_waivers
    if opts.junit:
        write_file(opts.junit, junit_xml(decision, allow_waivers=allow))
    if opts.summary:
        append_text(opts.summary, markdown(decision, allow_waivers=allow))
    if opts.markdown:
        print(markdown(decision, allow_waivers=allow), end="")
    else:
        import json

        emit(
            json.loads(decision.model_dump_json(by_alias=True)),
            as_json=opts.json,
            text=_gate_text(decision, allow),
        )
    return EXIT_OK if decision.gate_passes(allow_waivers=allow) else EXIT_FAILED


def _gate_text(decision: DecisionDocument, allow_waivers: bool) -> str:
    """The decision's text, and with ``--no-waivers`` the waived failures that fail the gate."""
    from ..api.compile import gate_verdict

    text = _decision_text(decision, gate_verdict(decision, allow_waivers=allow_waivers))
    waived = decision.waived_failures()
    if not decision.gate_passes(allow_waivers=allow_waivers) and not allow_waivers and waived:
        text += "\n\n--no-waivers: the gate allows no waived failure: " + ", ".join(
            f"{c.id}" + (f" [{c.candidate}]" if c.candidate else "") for c in waived
        )
    return text


def _check_problems(opts: CheckCommandOptions, exc: InputError) -> int:
    """An invalid spec or input, in the forms asked for: every problem located, exit 1."""
    from ..api.compile import problems_junit_xml, problems_markdown, problems_report
    from ..api.terminal import write_file

    report = problems_report(opts.spec, exc)
    if opts.junit:
        write_file(opts.junit, problems_junit_xml(report))
    if opts.summary:
        append_text(opts.summary, problems_markdown(report))
    if opts.json:
        _print_model(report)
    elif opts.markdown:
        print(problems_markdown(report), end="")
    else:
        raise exc
    return exc.exit_code


class BuildCommandOptions(NamedTuple):
    spec: Path
    out: Path
    json: bool
    summary: Path | None


def _cmd_build(args: argparse.Namespace) -> int:
    from ..api.compile import build
    from ..api.options import BuildOptions

    opts = BuildCommandOptions(
        Path(args.spec), Path(args.out), args.json, optional_path(args.summary)
    )
    signs = args.sign or args.key is not None
    compiled = check_options(args)
    options = BuildOptions(
        allow_outside=compiled.allow_outside,
        as_of=compiled.as_of,
        plan=compiled.plan,
        force=args.force,
        archive=args.archive,
        oscal=args.oscal,
        signer=signer_spec(args) if signs else None,
        pdf_sign=pdf_sign_spec(args),
    )
    result = build(opts.spec, opts.out, options)

    decision = result.decision
    signed = (
        f"signed: {result.out_dir / 'pack.sigstore.json'}"
        if result.signed
        else "unsigned: sign it with `evidencepack sign`"
    )
    lines = [_decision_text(decision), "", f"wrote {result.out_dir}/", f"  {signed}"]
    lines.append(f"  evidence digest {result.evidence_digest}")
    if result.archive:
        lines.append(f"  archive: {result.archive}")
    text = "\n".join(lines)
    if opts.summary:
        from ..api.compile import markdown

        append_text(opts.summary, markdown(decision, built=result))
    if opts.json:
        from ..api.compile import build_report

        _print_model(build_report(result))
    else:
        print(text)
    return EXIT_OK if decision.gate_passes() else EXIT_FAILED


# --- schemas ------------------------------------------------------------------------------------


class SchemasOptions(NamedTuple):
    check: bool
    out: Path | None
    json: bool


def _cmd_schemas(args: argparse.Namespace) -> int:
    from ..api.compile import schemas

    opts = SchemasOptions(args.check, optional_path(args.out), args.json)
    report = schemas(opts.out, check=opts.check)
    if opts.check:
        text = f"schemas up to date ({len(report.checked or ())} document(s))"
    else:
        text = "\n".join(f"wrote {name}" for name in report.written or ())
    if opts.json:
        _print_model(report)
    else:
        print(text)
    return EXIT_OK


def summary_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--summary FILE``: append the Markdown summary to FILE ($GITHUB_STEP_SUMMARY)."""
    p.add_argument(
        "--summary",
        metavar="FILE",
        help="also append a Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)",
    )


def append_text(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` (a job summary file collects several steps' summaries)."""
    from ..api.terminal import append_text as append

    append(path, text)


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command("validate", _cmd_validate, "check a pack spec and report every problem")
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    allow_outside_argument(p)
    json_argument(p)

    p = command("init", _cmd_init, "start a pack spec from a folder of evidence")
    p.add_argument(
        "folder", metavar="FOLDER", help="the evidence: one subfolder per candidate, or files"
    )
    p.add_argument(
        "-o", "--out", metavar="SPEC", help="the spec to write (default: FOLDER/pack.yaml)"
    )
    p.add_argument("--force", action="store_true", help="replace an existing SPEC")
    json_argument(p)

    p = command(
        "check", _cmd_check, "the release gate: analyse a spec's evidence and print the decision"
    )
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    compile_arguments(p)
    plan_argument(p, packs=p.prog.endswith("build"))
    p.add_argument(
        "--no-waivers",
        action="store_true",
        help="fail (exit 1) on any waived failure: for gates that allow no waiver",
    )
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--json",
        action="store_true",
        help="print decision.json instead (an invalid spec or input: its problems as JSON)",
    )
    shown.add_argument(
        "--markdown", action="store_true", help="print a Markdown summary (for a CI job summary)"
    )
    p.add_argument(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML to FILE: one test case per check and candidate",
    )
    summary_argument(p)

    p = command("build", _cmd_build, "compile a spec into an evidence pack folder (and sign it)")
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    p.add_argument("-o", "--out", metavar="OUTDIR", required=True, help="the pack folder")
    p.add_argument("--force", action="store_true", help="replace an existing OUTDIR")
    compile_arguments(p)
    plan_argument(p, packs=p.prog.endswith("build"))
    p.add_argument("--sign", action="store_true", help="sign keyless with Sigstore")
    p.add_argument("--key", metavar="PRIVATE_PEM", help="sign with this key (implies --sign)")
    keyless_arguments(p)
    p.add_argument("--archive", action="store_true", help="also write OUTDIR.tar.gz")
    oscal_argument(p)
    pdf_sign_arguments(p)
    summary_argument(p)
    json_argument(p)

    p = command("schemas", _cmd_schemas, "write (or --check) the JSON Schemas in schemas/")
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if schemas/ differs from what the models generate",
    )
    p.add_argument("--out", metavar="DIR", help="folder to write or check (default: schemas/)")
    json_argument(p)
