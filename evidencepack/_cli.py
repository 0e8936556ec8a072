"""The command line: parse arguments, call one library function, print. Nothing imports this."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__, progress
from .errors import (
    EXIT_CODES_HELP,
    EXIT_COULD_NOT_RUN,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    EvidencePackError,
    InputError,
    UsageError,
)

if TYPE_CHECKING:
    from .analyze.models import DecisionDocument
    from .pipeline import CompileOptions
    from .sign import PackSigner
    from .verify import VerifyPolicy


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _emit(payload: Any, *, as_json: bool, text: str) -> None:
    if as_json:
        print(json.dumps(payload, indent=2, sort_keys=True, default=str))
    else:
        print(text)


# --- validate -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidateOptions:
    spec: Path
    allow_outside: bool
    json: bool


def _cmd_validate(args: argparse.Namespace) -> int:
    from .spec import load_spec

    opts = ValidateOptions(Path(args.spec), args.allow_outside_paths, args.json)
    try:
        loaded = load_spec(opts.spec, allow_outside=opts.allow_outside)
    except InputError as exc:
        if not opts.json:
            raise
        _emit(
            {"spec": str(opts.spec), "valid": False, "problems": list(exc.problems)},
            as_json=True,
            text="",
        )
        return exc.exit_code
    spec = loaded.spec
    refs = sum(1 for _ in loaded.evidence_refs())
    _emit(
        {
            "spec": str(opts.spec),
            "valid": True,
            "decision": spec.decision.id,
            "candidates": [c.id for c in spec.candidates],
            "evidence_files": refs,
            "problems": [],
        },
        as_json=opts.json,
        text=f"{opts.spec}: OK ({spec.decision.id}: {len(spec.candidates)} candidate(s), "
        f"{refs} evidence reference(s))",
    )
    return EXIT_OK


# --- init ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitOptions:
    folder: Path
    out: Path | None
    force: bool
    json: bool


def _cmd_init(args: argparse.Namespace) -> int:
    from .init_spec import init_spec

    opts = InitOptions(Path(args.folder), _path(args.out), args.force, args.json)
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
    _emit(
        {
            "spec": str(result.path),
            "candidates": list(result.candidates),
            "evidence_references": result.references,
            "todos": result.todos,
            "not_cited": list(result.skipped),
        },
        as_json=opts.json,
        text="\n".join(lines),
    )
    return EXIT_OK


# --- check and build ----------------------------------------------------------------------------


def _compile_options(args: argparse.Namespace) -> CompileOptions:
    from .pipeline import CompileOptions

    as_of = None
    if args.as_of:
        try:
            as_of = dt.date.fromisoformat(args.as_of)
        except ValueError as exc:
            raise UsageError(f"--as-of {args.as_of!r}: give a date as YYYY-MM-DD") from exc
    return CompileOptions(allow_outside=args.allow_outside_paths, as_of=as_of)


def _decision_text(decision: DecisionDocument) -> str:
    lines = [f"{decision.decision_id}: {decision.verdict}", decision.summary, ""]
    for v in decision.candidates:
        state = "eligible" if v.eligible else "not eligible"
        accel = "-" if v.accelerators_needed is None else str(v.accelerators_needed)
        cost = "-" if v.cost_per_month is None else f"{v.cost_per_month:,.0f} {v.currency}/month"
        lines.append(f"  {v.id:<20} {state:<13} accelerators {accel:<5} {cost}")
    notable = [c for c in decision.checks if c.status != "PASS"]
    if notable:
        lines.append("")
    for c in notable:
        who = f" [{c.candidate}]" if c.candidate else ""
        flag = " (waived)" if c.waived else (" (hard)" if c.hard and c.status == "FAIL" else "")
        lines.append(f"  {c.status} {c.id}{who}{flag}: {c.reason}")
    lines.extend(f"  waiver rejected: {text}" for text in decision.waivers_rejected)
    return "\n".join(lines)


def _cmd_check(args: argparse.Namespace) -> int:
    from .pipeline import check

    decision = check(Path(args.spec), _compile_options(args))
    _emit(
        json.loads(decision.model_dump_json(by_alias=True)),
        as_json=args.json,
        text=_decision_text(decision),
    )
    return EXIT_OK if decision.verdict == "PASS" else EXIT_FAILED


@dataclass(frozen=True)
class BuildCommandOptions:
    spec: Path
    out: Path
    force: bool
    sign: bool
    signer: SignerOptions
    archive: bool
    json: bool


def _cmd_build(args: argparse.Namespace) -> int:
    from .pipeline import BuildOptions, build

    opts = BuildCommandOptions(
        Path(args.spec),
        Path(args.out),
        args.force,
        args.sign or args.key is not None,
        _signer_options(args),
        args.archive,
        args.json,
    )
    signer = _signer(opts.signer) if opts.sign else None
    result = build(
        opts.spec,
        opts.out,
        BuildOptions(compile=_compile_options(args), force=opts.force),
        signer,
        archive=opts.archive,
    )
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
    _emit(
        {
            "pack": str(result.out_dir),
            "evidence_digest": result.evidence_digest,
            "signed": result.signed,
            "archive": str(result.archive) if result.archive else None,
            "verdict": decision.verdict,
            "recommendation": decision.recommendation,
        },
        as_json=opts.json,
        text=text,
    )
    return EXIT_OK if decision.verdict == "PASS" else EXIT_FAILED


# --- schemas ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemasOptions:
    check: bool
    out: Path | None
    json: bool


def _cmd_schemas(args: argparse.Namespace) -> int:
    from .schemas import check_schemas, write_schemas

    opts = SchemasOptions(args.check, _path(args.out), args.json)
    if opts.check:
        report = check_schemas(opts.out)
        _emit(
            {"ok": True, "checked": list(report.checked)},
            as_json=opts.json,
            text=f"schemas up to date ({len(report.checked)} document(s))",
        )
    else:
        report = write_schemas(opts.out)
        _emit(
            {"ok": True, "written": list(report.written)},
            as_json=opts.json,
            text="\n".join(f"wrote {name}" for name in report.written),
        )
    return EXIT_OK


# --- mlperf -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MlperfImportOptions:
    path: Path
    db: Path
    round: str | None
    benchmark: str | None
    json: bool


@dataclass(frozen=True)
class MlperfListOptions:
    db: Path
    benchmark: str | None
    scenario: str | None
    accelerator: str | None
    json: bool


@dataclass(frozen=True)
class MlperfShowOptions:
    db: Path
    key: str
    json: bool


def _progress_bar(done: int, total: int, location: str) -> None:
    width = 30
    filled = width * done // total
    tail = location[-50:]
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {tail:<50}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _cmd_mlperf_import(args: argparse.Namespace) -> int:
    from .mlperf import import_path
    from .store import Store

    opts = MlperfImportOptions(
        Path(args.path), Path(args.db), args.round, args.benchmark, args.json
    )
    bar = _progress_bar if progress.wanted(sys.stderr, as_json=opts.json) else None
    with Store(opts.db) as store:
        report = import_path(
            store, opts.path, round=opts.round, benchmark=opts.benchmark, progress=bar
        )
    lines = [
        f"{opts.path}: imported {len(report.imported)} result(s), "
        f"{len(report.unchanged)} already in {opts.db}, {len(report.rejected)} rejected, "
        f"{len(report.skipped)} skipped"
    ]
    for title, items in (("rejected", report.rejected), ("skipped", report.skipped)):
        if items:
            lines.append(f"{title}:")
        for item in items:
            lines.append(f"  {item.location}")
            lines.extend(f"    {problem}" for problem in item.problems)
    _emit(report.model_dump(mode="json"), as_json=opts.json, text="\n".join(lines))
    return EXIT_FAILED if report.rejected else EXIT_OK


def _cmd_mlperf_list(args: argparse.Namespace) -> int:
    from .mlperf.query import MlperfListing, list_results
    from .store import Store

    opts = MlperfListOptions(
        Path(args.db), args.benchmark, args.scenario, args.accelerator, args.json
    )
    if not opts.db.exists():
        raise InputError(f"{opts.db}: no such evidence store (run 'evidencepack mlperf import')")
    with Store(opts.db) as store:
        rows = list_results(
            store, benchmark=opts.benchmark, scenario=opts.scenario, accelerator=opts.accelerator
        )
    listing = MlperfListing(db=str(opts.db), results=tuple(rows))
    _emit(listing.model_dump(mode="json"), as_json=opts.json, text=_table(rows))
    return EXIT_OK


def _cmd_mlperf_show(args: argparse.Namespace) -> int:
    from .mlperf.show import describe, find_result
    from .store import Store

    opts = MlperfShowOptions(Path(args.db), args.key, args.json)
    if not opts.db.is_file():
        raise InputError(f"{opts.db}: no such evidence store (run 'evidencepack mlperf import')")
    with Store(opts.db) as store:
        result = find_result(store, opts.key)
    _emit(result.model_dump(mode="json"), as_json=opts.json, text=describe(result))
    return EXIT_OK


_UNITS = {"Tokens/s": "tok/s", "Samples/s": "samples/s", "Queries/s": "queries/s"}
_TABLE_WIDTH = 100


def _table(rows: Sequence[Any]) -> str:
    """Results grouped by submission and system (the key up to the benchmark), one line each,
    fitting 100 columns; ``mlperf show KEY`` has everything else."""

    def fmt(value: float | None, digits: int = 6) -> str:
        return "-" if value is None else f"{value:.{digits}g}"

    header = (
        "benchmark/scenario",
        "validity",
        "checks",
        "headline",
        "TTFT",
        "TPOT",
        "accel",
    )
    groups: dict[str, list[tuple[str, ...]]] = {}
    for r in rows:
        parts = r.key.split("/")
        cut = -2 if len(parts) > 2 else -1  # loadgen/<folder>: the folder alone
        group, leaf = "/".join(parts[:cut]), "/".join(parts[cut:])
        unit = r.headline_unit or ""
        headline = fmt(r.headline_value) + (" " + _UNITS.get(unit, unit) if unit else "")
        checks = "FAIL" if not r.checks_ok else ("ok" if r.round else "not run")
        groups.setdefault(group, []).append(
            (
                leaf,
                r.validity,
                checks,
                headline,
                fmt(r.ttft_p99_ms, 4),
                fmt(r.tpot_p99_ms, 4),
                "-" if r.accelerators_total is None else str(r.accelerators_total),
            )
        )
    table = [header] + [line for lines in groups.values() for line in lines]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    widths[0] = max(12, min(widths[0], _TABLE_WIDTH - 2 - sum(w + 2 for w in widths[1:])))

    def line(row: tuple[str, ...]) -> str:
        cells = (_shorten(cell, w).ljust(w) for cell, w in zip(row, widths, strict=True))
        return "  " + "  ".join(cells).rstrip()

    out = [line(header)]
    for group, lines in groups.items():
        out.append(_shorten(group + "/", _TABLE_WIDTH))
        out.extend(line(row) for row in lines)
    out.append(
        f"{len(rows)} result(s); checks: ok (the round's rules passed), FAIL, not run (no "
        "round); TTFT, TPOT: p99 in ms"
    )
    out.append("the key is the group line + benchmark/scenario; 'mlperf show KEY' says why")
    return "\n".join(out)


def _shorten(text: str, width: int) -> str:
    """Middle-elided to ``width`` (only names longer than a whole line are cut)."""
    if len(text) <= width:
        return text
    keep = width - 3
    return text[: keep - keep // 2] + "..." + text[len(text) - keep // 2 :]


# --- keygen -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeygenOptions:
    private_key: Path
    public_key: Path
    no_passphrase: bool
    force: bool
    json: bool


def _cmd_keygen(args: argparse.Namespace) -> int:
    from .keys import generate_keypair, read_passphrase

    opts = KeygenOptions(
        Path(args.private_key), Path(args.public_key), args.no_passphrase, args.force, args.json
    )
    if not opts.force:
        for path in (opts.private_key, opts.public_key):
            if path.exists():
                raise UsageError(f"{path} exists; pass --force to replace it")
    passphrase = None if opts.no_passphrase else read_passphrase(confirm=True)
    pair = generate_keypair(opts.private_key, opts.public_key, passphrase, overwrite=opts.force)
    state = "encrypted" if pair.encrypted else "NOT encrypted"
    _emit(
        {
            "private_key": str(pair.private_key),
            "public_key": str(pair.public_key),
            "fingerprint": pair.fingerprint,
            "encrypted": pair.encrypted,
        },
        as_json=opts.json,
        text=f"wrote {pair.private_key} (private, {state}, mode 0600) and {pair.public_key}\n"
        f"key fingerprint sha256:{pair.fingerprint}",
    )
    return EXIT_OK


# --- sign ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignerOptions:
    """``--key``, or the keyless options: shared by ``sign`` and ``build --sign``."""

    key: Path | None
    identity_token: str | None
    staging: bool
    trust_config: Path | None


def _signer_options(args: argparse.Namespace) -> SignerOptions:
    return SignerOptions(
        _path(args.key), args.identity_token, args.staging, _path(args.trust_config)
    )


@dataclass(frozen=True)
class SignOptions:
    pack: Path
    signer: SignerOptions
    json: bool
    force: bool = False


def _signer(opts: SignerOptions) -> PackSigner:
    """A key signer with --key, else a keyless Sigstore signer."""
    if opts.key is not None:
        if opts.identity_token or opts.staging or opts.trust_config:
            raise UsageError(
                "--key signs without Sigstore: drop --identity-token/--staging/--trust-config"
            )
        from .signing.keyed import KeySigner

        return KeySigner.from_file(opts.key)
    from .signing.keyless import KeylessSigner

    return KeylessSigner(opts.identity_token, staging=opts.staging, trust_config=opts.trust_config)


def _cmd_sign(args: argparse.Namespace) -> int:
    from .sign import sign_pack_detailed
    from .signing.bundle import parse_bundle

    opts = SignOptions(Path(args.pack), _signer_options(args), args.json, args.force)
    signer = _signer(opts.signer)
    result = sign_pack_detailed(opts.pack, None, signer, force=opts.force)
    raw = result.bundle.read_bytes()
    parsed = parse_bundle(raw, str(result.bundle))
    payload: dict[str, object] = {
        "pack": str(opts.pack),
        "bundle": str(result.bundle),
        "mode": result.mode,
        "files": result.files,
        "key_fingerprint": parsed.key_hint,
        "log_index": parsed.log_index,
        "identity": None,
        "issuer": None,
    }
    if parsed.mode == "key":
        text = (
            f"signed {opts.pack}: {result.files} file(s) with key sha256:{parsed.key_hint}\n"
            f"wrote {result.bundle}; verify with: evidencepack verify {opts.pack} --key PUBLIC_PEM"
        )
    else:
        from .signing.keyless import certificate_identity

        identity, issuer = certificate_identity(raw)
        payload |= {"identity": identity, "issuer": issuer}
        text = (
            f"signed {opts.pack}: {result.files} file(s) as {identity} ({issuer}), "
            f"log index {parsed.log_index}\nwrote {result.bundle}; verify with: evidencepack "
            f"verify {opts.pack} --cert-identity {identity} --cert-oidc-issuer {issuer}"
        )
    _emit(payload, as_json=opts.json, text=text)
    return EXIT_OK


# --- verify -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VerifyOptions:
    target: Path
    bundle: Path | None
    cert_identity: str | None
    cert_oidc_issuer: str | None
    key: Path | None
    trusted_root: Path | None
    staging: bool
    offline: bool
    json: bool
    any_file: bool = False


def _verify_policy(opts: VerifyOptions) -> VerifyPolicy:
    from .verify import KeylessPolicy, KeyPolicy

    keyless = opts.cert_identity is not None or opts.cert_oidc_issuer is not None
    if opts.key is not None:
        if keyless or opts.trusted_root or opts.staging or opts.offline:
            raise UsageError(
                "--key verifies a key-signed pack: drop --cert-identity/--cert-oidc-issuer/"
                "--trusted-root/--staging/--offline"
            )
        from .keys import load_public_key

        return KeyPolicy(load_public_key(opts.key))
    if not (opts.cert_identity and opts.cert_oidc_issuer):
        raise UsageError(
            "say who must have signed: --cert-identity and --cert-oidc-issuer (both), or --key"
        )
    if opts.trusted_root and opts.staging:
        raise UsageError(
            "--staging picks Sigstore's staging root; it cannot go with --trusted-root"
        )
    from .signing.keyless import load_trust_root

    root = load_trust_root(opts.trusted_root, staging=opts.staging, offline=opts.offline)
    return KeylessPolicy(opts.cert_identity, opts.cert_oidc_issuer, root)


def _cmd_verify(args: argparse.Namespace) -> int:
    from .archive import is_archive
    from .verify import format_report, verify_file, verify_pack

    opts = VerifyOptions(
        Path(args.target),
        _path(args.bundle),
        args.cert_identity,
        args.cert_oidc_issuer,
        _path(args.key),
        _path(args.trusted_root),
        args.staging,
        args.offline,
        args.json,
        args.any_file,
    )
    if not opts.target.exists():
        raise InputError(f"{opts.target}: no such file or folder")
    policy = _verify_policy(opts)
    if opts.target.is_dir() or is_archive(opts.target):
        report = verify_pack(opts.target, policy, bundle=opts.bundle)
    elif opts.bundle is None:
        raise UsageError(
            f"{opts.target}: to verify one file, pass the pack's bundle "
            "(--bundle pack.sigstore.json)"
        )
    else:
        report = verify_file(opts.target, opts.bundle, policy, any_file=opts.any_file)
    payload = report.model_dump(mode="json", by_alias=True)
    text = format_report(report)
    ok = report.ok
    if args.rebuild:
        if not opts.target.is_dir():
            raise UsageError("--rebuild needs a pack folder (extract the archive first)")
        from .pipeline import rebuild

        if ok:
            rebuilt = rebuild(opts.target)
            ok = rebuilt.ok
            payload["rebuild"] = {
                "ok": rebuilt.ok,
                "compared": list(rebuilt.compared),
                "differing": list(rebuilt.differing),
            }
            text += "\n" + (
                f"  rebuild      OK: {', '.join(rebuilt.compared)} reproduced byte for byte"
                if rebuilt.ok
                else f"  rebuild      FAIL: {', '.join(rebuilt.differing)} differ when rebuilt"
            )
        else:
            text += "\n  rebuild      skipped: the pack did not verify"
    _emit(payload, as_json=opts.json, text=text)
    return EXIT_OK if ok else EXIT_FAILED


# --- diff ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffCommandOptions:
    old: Path
    new: Path
    output: str
    cost_increase: float | None
    capacity_loss: float | None
    report: Path | None
    force: bool


def _percent(value: str) -> float:
    """``10%`` or ``10`` -> 0.1, for the --fail-on-* thresholds."""
    try:
        number = float(value.strip().removesuffix("%"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: give a percentage such as 10%") from exc
    if not 0 <= number < 1e6:
        raise argparse.ArgumentTypeError(f"{value!r}: give a percentage of 0 or more")
    return number / 100


DIFF_EXIT_CODES_HELP = """exit codes:
  0  the decision holds
  1  it does not (recommendation or chosen candidate changed, chosen candidate no longer
     eligible, a hard check newly failing, a --fail-on-* limit passed), or a pack failed
     verification (then nothing is compared)
  2  usage error (bad command-line arguments)
  3  could not run (a pack without a valid, consistent decision.json and manifest.json,
     a NEW spec that does not build, I/O error)"""


def _cmd_diff(args: argparse.Namespace) -> int:
    from .diff import DiffOptions, Thresholds, diff_packs
    from .diff.summary import format_markdown, format_text

    opts = DiffCommandOptions(
        Path(args.old),
        Path(args.new),
        "json" if args.json else "markdown" if args.markdown else "text",
        args.fail_on_cost_increase,
        args.fail_on_capacity_loss,
        _path(args.report),
        args.force,
    )
    if opts.report is not None and opts.report.exists() and not opts.force:
        raise UsageError(f"{opts.report} exists: choose another folder or pass --force")
    verifying = args.key or args.cert_identity or args.cert_oidc_issuer
    verify_opts = VerifyOptions(
        opts.old,
        None,
        args.cert_identity,
        args.cert_oidc_issuer,
        _path(args.key),
        _path(args.trusted_root),
        args.staging,
        args.offline,
        False,
    )
    if not verifying and (args.trusted_root or args.staging or args.offline):
        raise UsageError(
            "--trusted-root/--staging/--offline need --cert-identity and --cert-oidc-issuer"
        )
    options = DiffOptions(
        policy=_verify_policy(verify_opts) if verifying else None,
        thresholds=Thresholds(opts.cost_increase, opts.capacity_loss),
        allow_outside=args.allow_outside_paths,
        as_of=_compile_options(args).as_of,
    )
    result = diff_packs(opts.old, opts.new, options)
    document = result.document
    if opts.output == "json":
        print(document.model_dump_json(by_alias=True, indent=2))
    else:
        print(format_markdown(document) if opts.output == "markdown" else format_text(document))
    if opts.report is not None and document.compared:
        from .diff.note import write_change_note

        note = write_change_note(result, opts.report, force=opts.force)
        print(f"wrote the change note {note}/", file=sys.stderr)
    return EXIT_OK if result.holds else EXIT_FAILED


# --- inspect ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InspectOptions:
    files: tuple[Path, ...]
    json: bool


def _cmd_inspect(args: argparse.Namespace) -> int:
    from .inputs.describe import describe
    from .inputs.snapshot import read_private

    opts = InspectOptions(tuple(Path(f) for f in args.files), args.json)
    reports: list[dict[str, Any]] = []
    lines: list[str] = []
    failed = 0
    for path in opts.files:
        try:
            parsed = read_private(path)
        except InputError as exc:
            failed += 1
            reports.append({"path": str(path), "ok": False, "error": exc.message})
            lines.append(f"cannot read: {exc.message}")
            continue
        reports.append({"path": str(path), "ok": True, **parsed.summary()})
        lines += describe(parsed)
    from ._text import escape_misleading

    # A terminal obeys bidi overrides too: show them escaped, as the report does.
    _emit(reports, as_json=opts.json, text=escape_misleading("\n".join(lines)))
    return EXIT_FAILED if failed else EXIT_OK


# --- measure ------------------------------------------------------------------------------------


def _rates(value: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--sweep {value!r}: give rates as X1,X2,... (queries/s)") from None


def _sampling(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.temperature is not None:
        out["temperature"] = args.temperature
    if args.top_p is not None:
        out["top_p"] = args.top_p
    for item in args.sampling or ():
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--sampling {item!r}: give KEY=VALUE (VALUE in JSON, e.g. true)")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _cmd_measure(args: argparse.Namespace) -> int:
    from .measure.options import MeasureOptions, from_spec
    from .measure.run import measure
    from .spec import load_spec

    options = MeasureOptions(
        endpoint=args.endpoint,
        model=args.model,
        prompts=Path(args.prompts),
        outdir=Path(args.out),
        scenario=args.scenario,
        target_qps=args.target_qps,
        sweep=_rates(args.sweep) if args.sweep else (),
        api=args.api,
        max_tokens=args.max_tokens,
        sampling=_sampling(args),
        include_usage=not args.no_usage,
        api_key_env=args.api_key_env,
        ttft_ms=args.ttft_ms,
        tpot_ms=args.tpot_ms,
        max_in_flight=args.max_in_flight,
        min_duration_ms=args.min_duration_ms,
        min_query_count=args.min_query_count,
        max_duration_ms=args.max_duration_ms,
        expected_qps=args.expected_qps,
        timeout_s=args.timeout_s,
        lost_after_s=args.lost_after_s,
        seed=args.seed,
    )
    if (args.spec is None) != (args.candidate is None):
        raise UsageError("--spec and --candidate go together")
    if args.spec is not None:
        options = from_spec(options, load_spec(Path(args.spec)), args.candidate)
    results = measure(options, progress=lambda line: print(line, file=sys.stderr))
    payload = [
        {
            "folder": str(r.folder),
            "complete": r.complete,
            "stop_reason": r.stop_reason,
            "validity": r.validity,
            "invalid_reasons": list(r.invalid_reasons),
            "ok": r.ok,
            "failed": r.failed,
            "failures": r.failures,
        }
        for r in results
    ]
    _emit(payload, as_json=args.json, text="\n".join(r.line() for r in results))
    return EXIT_OK if all(r.complete for r in results) else EXIT_COULD_NOT_RUN


# --- parser -------------------------------------------------------------------------------------


def _json_argument(p: argparse.ArgumentParser, help_text: str = "print the result as JSON") -> None:
    p.add_argument("--json", action="store_true", help=help_text)


def _allow_outside_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-outside-paths",
        action="store_true",
        help="allow evidence paths outside the spec's folder",
    )


def _keyless_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--identity-token",
        metavar="TOKEN",
        help="keyless: the OIDC token (default: $SIGSTORE_IDENTITY_TOKEN, then ambient "
        "credentials such as GitHub Actions with id-token: write)",
    )
    p.add_argument(
        "--staging", action="store_true", help="keyless: use Sigstore's public staging instance"
    )
    p.add_argument(
        "--trust-config",
        metavar="FILE",
        help="keyless: a Sigstore client trust config (a private Sigstore instance)",
    )


def _verifier_arguments(p: argparse.ArgumentParser, key_help: str) -> None:
    """Who must have signed: --key, or --cert-identity/--cert-oidc-issuer and the trust root."""
    p.add_argument("--cert-identity", metavar="IDENTITY", help="keyless: the signer's identity")
    p.add_argument("--cert-oidc-issuer", metavar="URL", help="keyless: the identity's issuer")
    p.add_argument("--key", metavar="PUBLIC_PEM", help=key_help)
    p.add_argument(
        "--trusted-root",
        metavar="FILE",
        help="keyless: pinned Sigstore trusted root (or client trust config) JSON; no network",
    )
    p.add_argument(
        "--staging", action="store_true", help="keyless: trust Sigstore's staging instance"
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="keyless: use sigstore-python's cached trusted root, without refreshing it",
    )


def _compile_arguments(p: argparse.ArgumentParser) -> None:
    _allow_outside_argument(p)
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="judge waiver expiry on this date (default: the spec's decision date)",
    )


def _add_command(
    subparsers: argparse._SubParsersAction[_Parser],
    name: str,
    handler: Callable[[argparse.Namespace], int],
    help_text: str,
) -> argparse.ArgumentParser:
    """A subcommand whose --help repeats its one-line help and lists the exit codes."""
    p = subparsers.add_parser(
        name,
        help=help_text,
        description=help_text,
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(handler=handler)
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evidencepack",
        description="Compile MLPerf results, your own serving re-measurements and eval scores "
        "into a signed, auditable accelerator-decision evidence pack.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"evidencepack {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show the full traceback of an error"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        return _add_command(sub, name, handler, help_text)

    p = command("validate", _cmd_validate, "check a pack spec and report every problem")
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    _allow_outside_argument(p)
    _json_argument(p)

    p = command("init", _cmd_init, "start a pack spec from a folder of evidence")
    p.add_argument(
        "folder", metavar="FOLDER", help="the evidence: one subfolder per candidate, or files"
    )
    p.add_argument(
        "-o", "--out", metavar="SPEC", help="the spec to write (default: FOLDER/pack.yaml)"
    )
    p.add_argument("--force", action="store_true", help="replace an existing SPEC")
    _json_argument(p)

    p = command(
        "check", _cmd_check, "the release gate: analyse a spec's evidence and print the decision"
    )
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    _compile_arguments(p)
    _json_argument(p, "print decision.json instead")

    p = command("build", _cmd_build, "compile a spec into an evidence pack folder (and sign it)")
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    p.add_argument("-o", "--out", metavar="OUTDIR", required=True, help="the pack folder")
    p.add_argument("--force", action="store_true", help="replace an existing OUTDIR")
    _compile_arguments(p)
    p.add_argument("--sign", action="store_true", help="sign keyless with Sigstore")
    p.add_argument("--key", metavar="PRIVATE_PEM", help="sign with this key (implies --sign)")
    _keyless_arguments(p)
    p.add_argument("--archive", action="store_true", help="also write OUTDIR.tar.gz")
    _json_argument(p)

    p = command("schemas", _cmd_schemas, "write (or --check) the JSON Schemas in schemas/")
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if schemas/ differs from what the models generate",
    )
    p.add_argument("--out", metavar="DIR", help="folder to write or check (default: schemas/)")
    _json_argument(p)

    p = command(
        "inspect",
        _cmd_inspect,
        "detect and summarise serving-benchmark and eval-score files",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="a file any supported tool wrote")
    _json_argument(p)

    p = command(
        "measure",
        _cmd_measure,
        "re-measure an OpenAI-compatible endpoint with MLPerf LoadGen (Server, Offline, sweeps)",
    )
    p.add_argument("--endpoint", required=True, metavar="URL", help="e.g. http://127.0.0.1:8000")
    p.add_argument("--prompts", required=True, metavar="FILE", help="JSONL: prompt or messages")
    p.add_argument(
        "-o",
        "--out",
        required=True,
        metavar="RUNDIR",
        help="new run folder (a sweep: a folder of qps_X run folders)",
    )
    p.add_argument("--model", metavar="NAME", help="the model to request (default: the spec's)")
    p.add_argument("--scenario", choices=("server", "offline"), default="server")
    p.add_argument("--target-qps", type=float, metavar="X", help="Server: Poisson arrivals/s")
    p.add_argument("--sweep", metavar="X1,X2,...", help="one Server run per rate")
    p.add_argument(
        "--spec",
        metavar="SPEC",
        help="take model, max_tokens, concurrency and SLO from this pack spec",
    )
    p.add_argument("--candidate", metavar="ID", help="the spec's candidate being measured")
    p.add_argument("--api", choices=("completions", "chat"), default="completions")
    p.add_argument("--max-tokens", type=int, metavar="N", help="max_tokens of every request")
    p.add_argument("--temperature", type=float, metavar="T")
    p.add_argument("--top-p", type=float, metavar="P")
    p.add_argument(
        "--sampling",
        action="append",
        metavar="KEY=VALUE",
        help="another request field (JSON value), e.g. ignore_eos=true; repeatable",
    )
    p.add_argument(
        "--no-usage",
        action="store_true",
        help="do not ask for stream_options.include_usage; count streamed chunks",
    )
    p.add_argument("--api-key-env", metavar="VAR", help="send the API key held in $VAR")
    p.add_argument("--ttft-ms", type=float, metavar="MS", help="LoadGen's p99 TTFT limit")
    p.add_argument("--tpot-ms", type=float, metavar="MS", help="LoadGen's p99 TPOT limit")
    p.add_argument("--max-in-flight", type=int, metavar="N", help="cap on concurrent requests")
    p.add_argument("--min-duration-ms", type=int, metavar="MS", help="default: LoadGen's")
    p.add_argument("--min-query-count", type=int, metavar="N", help="default: LoadGen's")
    p.add_argument("--max-duration-ms", type=int, metavar="MS", help="stop issuing after MS")
    p.add_argument("--expected-qps", type=float, metavar="X", help="Offline: sizes the query")
    p.add_argument(
        "--timeout-s",
        type=float,
        default=600.0,
        metavar="S",
        help="per-request timeout (default: %(default)s)",
    )
    p.add_argument(
        "--lost-after-s",
        type=float,
        default=30.0,
        metavar="S",
        help="stop when only connection failures for S seconds (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, metavar="N", help="LoadGen's sample and schedule seeds")
    _json_argument(p)

    p = command("mlperf", _cmd_group_help, "import, list and show MLPerf Inference results")
    mlperf = p.add_subparsers(dest="mlperf_command", metavar="ACTION", parser_class=_Parser)

    def action(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        return _add_command(mlperf, name, handler, help_text)

    q = action(
        "import",
        _cmd_mlperf_import,
        "read a results tree, one submission or a LoadGen output folder into the store",
    )
    q.add_argument("path", metavar="PATH", help="a results tree, a submission or a LoadGen folder")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    q.add_argument(
        "--round",
        metavar="ROUND",
        help="check against this round's rules (a LoadGen run of your own needs it)",
    )
    q.add_argument(
        "--benchmark", metavar="B", help="the benchmark of a LoadGen folder whose name lacks it"
    )
    _json_argument(q, "print the report as JSON")

    q = action("list", _cmd_mlperf_list, "list the MLPerf results in the store, ordered by key")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    q.add_argument("--benchmark", metavar="B", help="only this benchmark (or model family)")
    q.add_argument("--scenario", metavar="S", help="only this scenario")
    q.add_argument("--accelerator", metavar="A", help="only accelerators whose name contains A")
    _json_argument(q, "print the results as JSON")

    q = action(
        "show",
        _cmd_mlperf_show,
        "one result in full: figures, stack, and each rule applied with its limit and value",
    )
    q.add_argument("key", metavar="KEY", help="a result key, as 'mlperf list' groups them")
    q.add_argument("--db", metavar="FILE", required=True, help="the DuckDB evidence store")
    _json_argument(q, "print the result as JSON (schemas/mlperf-result.v1.schema.json)")
    p = command("keygen", _cmd_keygen, "write an ECDSA P-256 key pair for signing packs with --key")
    p.add_argument(
        "--private-key",
        default="evidencepack.key.pem",
        metavar="PATH",
        help="private key, PKCS#8, encrypted with $EVIDENCEPACK_KEY_PASSPHRASE or a prompted "
        "passphrase (default: %(default)s)",
    )
    p.add_argument(
        "--public-key",
        default="evidencepack.pub.pem",
        metavar="PATH",
        help="public key to give auditors (default: %(default)s)",
    )
    p.add_argument("--no-passphrase", action="store_true", help="write the private key unencrypted")
    p.add_argument("--force", action="store_true", help="replace existing key files")
    _json_argument(p)

    p = command("sign", _cmd_sign, "sign a built pack: write PACK/pack.sigstore.json")
    p.add_argument("pack", metavar="PACK", help="the pack folder (it holds predicate.json)")
    p.add_argument(
        "--key",
        metavar="PRIVATE_PEM",
        help="sign with this key, offline (passphrase from $EVIDENCEPACK_KEY_PASSPHRASE or a "
        "prompt); without --key, sign keyless with Sigstore",
    )
    _keyless_arguments(p)
    p.add_argument(
        "--force", action="store_true", help="replace the signature of an already signed pack"
    )
    _json_argument(p)

    p = command(
        "verify",
        _cmd_verify,
        "verify a signed pack (folder or .tar.gz) or one file of it",
    )
    p.add_argument("target", metavar="PACK_OR_FILE", help="pack folder, PACK.tar.gz, or one file")
    p.add_argument(
        "--bundle",
        metavar="FILE",
        help="the pack's pack.sigstore.json (needed to verify one file on its own)",
    )
    p.add_argument(
        "--any-file",
        action="store_true",
        help="with --bundle: accept any file of the pack, not only the reports, "
        "decision.json and manifest.json",
    )
    _verifier_arguments(p, "verify a key-signed pack with this key")
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="also re-run the compiler on the pack's own inputs and compare the HTML and PDF",
    )
    _json_argument(p)

    p = command(
        "diff",
        _cmd_diff,
        "compare two packs: what changed, and does the decision still hold (exit 1 if not)",
    )
    p.add_argument("old", metavar="OLD", help="the released pack (folder or .tar.gz)")
    p.add_argument(
        "new", metavar="NEW", help="the new pack (folder or .tar.gz), or a spec to build first"
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the whole diff as JSON")
    form.add_argument(
        "--markdown", action="store_true", help="print a Markdown summary (PR comment, CI summary)"
    )
    _verifier_arguments(p, "verify both packs with this key first")
    p.add_argument(
        "--fail-on-cost-increase",
        metavar="PCT",
        type=_percent,
        help="also fail when the chosen candidate's cost per month rises by more than PCT (10%%)",
    )
    p.add_argument(
        "--fail-on-capacity-loss",
        metavar="PCT",
        type=_percent,
        help="also fail when the chosen candidate's X* falls by more than PCT (5%%)",
    )
    p.add_argument(
        "--report",
        metavar="OUTDIR",
        help="also write a change note (HTML, PDF, diff.json) into OUTDIR, signable like a pack",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --report OUTDIR")
    _compile_arguments(p)
    p.epilog = DIFF_EXIT_CODES_HELP
    return parser


def _cmd_group_help(args: argparse.Namespace) -> int:
    raise UsageError(f"evidencepack {args.command}: give an action (see --help)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    verbose = "-v" in (argv or sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        progress.enable(progress.wanted(sys.stderr, as_json=getattr(args, "json", False)))
        result: int = args.handler(args)
        sys.stdout.flush()
        return result
    except BrokenPipeError:
        # The reader closed the pipe (``evidencepack mlperf list | head``): stop quietly, and
        # point stdout at devnull so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_COULD_NOT_RUN
    except OSError as exc:
        # An I/O failure no stage turned into its own error (a full disk while the report is
        # written): the documented "could not run", with the file, never a traceback.
        if verbose:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"evidencepack: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_COULD_NOT_RUN
    except EvidencePackError as exc:
        if verbose:
            raise
        print(f"evidencepack: error: {exc.message}", file=sys.stderr)
        if isinstance(exc, InputError) and exc.problems != (exc.message,):
            for problem in exc.problems:
                print(f"  {problem}", file=sys.stderr)
        return exc.exit_code
    finally:
        progress.enable(False)
