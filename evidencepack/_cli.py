"""The command line: parse arguments, call one library function, print. Nothing imports this."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .errors import EXIT_CODES_HELP, EXIT_OK, EXIT_USAGE, EvidencePackError, InputError, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


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


# --- schemas ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemasOptions:
    check: bool
    out: Path | None
    json: bool


def _cmd_schemas(args: argparse.Namespace) -> int:
    from .schemas import check_schemas, write_schemas

    opts = SchemasOptions(args.check, Path(args.out) if args.out else None, args.json)
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


# --- parser -------------------------------------------------------------------------------------


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
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXIT_CODES_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=handler)
        return p

    p = command("validate", _cmd_validate, "check a pack spec and report every problem")
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml)")
    p.add_argument(
        "--allow-outside-paths",
        action="store_true",
        help="allow evidence paths outside the spec's folder",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")

    p = command("schemas", _cmd_schemas, "write (or --check) the JSON Schemas in schemas/")
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if schemas/ differs from what the models generate",
    )
    p.add_argument("--out", metavar="DIR", help="folder to write or check (default: schemas/)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    verbose = "-v" in (argv or sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        result: int = args.handler(args)
        return result
    except EvidencePackError as exc:
        if verbose:
            raise
        print(f"evidencepack: error: {exc.message}", file=sys.stderr)
        if isinstance(exc, InputError) and exc.problems != (exc.message,):
            for problem in exc.problems:
                print(f"  {problem}", file=sys.stderr)
        return exc.exit_code
