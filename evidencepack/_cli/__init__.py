"""The command line: parse arguments, call one library function, print. Nothing imports this.

One module per command group (``compiler``, ``inspect``, ``measure``, ``mlperf``, ``signing``,
``diff``, ``export``), each with a ``register(command)`` that adds its subcommands; ``_common`` and
``_signers`` hold what several share. ``main`` (the ``evidencepack`` entry point) is the one
place errors become exit codes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__, progress
from ..errors import (
    EXIT_CODES_HELP,
    EXIT_COULD_NOT_RUN,
    EXIT_USAGE,
    EvidencePackError,
    InputError,
)
from . import compiler, diff, export, inspect, measure, mlperf, signing, warehouse
from ._common import Handler, Parser, add_command


def build_parser() -> argparse.ArgumentParser:
    """The ``evidencepack`` parser with every subcommand, in the order ``--help`` lists them."""
    parser = Parser(
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        return add_command(sub, name, handler, help_text)

    for group in (compiler, inspect, measure, mlperf, signing, diff, export, warehouse):
        group.register(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``evidencepack`` with ``argv`` and return the exit code; errors print, never trace."""
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
