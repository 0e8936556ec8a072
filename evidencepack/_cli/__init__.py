"""The command line: parse arguments, call one library function, print. Nothing imports this.

One module per command group (``compiler``, ``inspect``, ``measure``, ``mlperf``, ``signing``,
``diff``, ``export``), each with a ``register(command)`` that adds its subcommands; ``_common`` and
``_signers`` hold what several share; ``_help`` writes the top-level help without argparse.
``main`` (the ``evidencepack`` entry point) is the one place errors become exit codes.
"""

from __future__ import annotations

import os
import sys

from .. import __version__
from ..errors import (
    EXIT_CODES_HELP,
    EXIT_COULD_NOT_RUN,
    EXIT_USAGE,
    EvidencePackError,
)

# argparse and the command groups load only when a command line needs them: ``evidencepack``
# alone and ``evidencepack --help`` print the top-level help without argparse (``_help``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import TextIO

    from ..core.progress import Reporter
    from ._common import Handler

DESCRIPTION = (
    "Compile MLPerf results, your own serving re-measurements and eval scores "
    "into a signed, auditable accelerator-decision evidence pack."
)
VERBOSE_HELP = "show the full traceback of an error"

# Every command, in the order ``--help`` lists them: the module of its group (the one whose
# ``register`` adds it, with the same one-line help) and its one-line help. A command line builds
# only its own command's group; the others are listed by name and help, which is all ``--help``
# shows, so ``--help`` imports no group module (tests/test_cli.py checks this table against
# the groups' own registrations).
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("compiler", "check a pack spec and report every problem"),
    "init": ("compiler", "start a pack spec from a folder of evidence"),
    "check": (
        "compiler",
        "the release gate: analyse a spec's evidence and print the decision",
    ),
    "build": ("compiler", "compile a spec into an evidence pack folder (and sign it)"),
    "schemas": ("compiler", "write (or --check) the JSON Schemas in schemas/"),
    "inspect": ("inspect", "detect and summarise serving-benchmark and eval-score files"),
    "measure": (
        "measure",
        "re-measure an OpenAI-compatible endpoint with MLPerf LoadGen (Server, Offline, sweeps)",
    ),
    "mlperf": ("mlperf", "import, list and show MLPerf Inference results"),
    "keygen": ("signing", "write an ECDSA P-256 key pair for signing packs with --key"),
    "sign": ("signing", "sign a built pack: write PACK/pack.sigstore.json"),
    "register": (
        "signing",
        "pre-register a decision's plan before any evidence: a signed plan.sigstore.json",
    ),
    "verify": ("signing", "verify a signed pack (folder or .tar.gz) or one file of it"),
    "diff": (
        "diff",
        "compare two packs: what changed, and does the decision still hold (exit 1 if not)",
    ),
    "export": ("export", "export a built pack for other tools (OSCAL)"),
    "warehouse": ("warehouse", "hold many verified packs as Parquet tables and query them"),
    "watch": (
        "watch",
        "re-measure a signed decision's endpoint and dates: holds, degraded or broken (exit 1)",
    ),
}


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first argument that is not an option (the top-level
    options take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``evidencepack`` parser, its subcommands in the order ``--help`` lists them.

    Without ``argv`` every command is built in full. With it, only the group of the command
    ``argv`` names is (imported and) built; the other commands are listed by name and help.
    """
    import argparse
    from importlib import import_module

    from ._common import Parser, add_command

    chosen = COMMANDS.get(_command_of(argv) or "", ("", ""))[0] if argv is not None else None
    parser = Parser(
        prog="evidencepack",
        description=DESCRIPTION,
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"evidencepack {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        return add_command(sub, name, handler, help_text)

    for name, (group, help_text) in COMMANDS.items():
        if name in sub.choices:
            continue  # registered with its group
        if chosen is None or group == chosen:
            import_module(f"{__name__}.{group}").register(command)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def top_help() -> str:
    """``evidencepack --help``: what argparse prints for ``build_parser``, without argparse."""
    from ._help import HELP_HELP, VERSION_HELP, format_top_help

    options = [
        ("[-h]", "-h, --help", HELP_HELP),
        ("[--version]", "--version", VERSION_HELP),
        ("[-v]", "-v, --verbose", VERBOSE_HELP),
    ]
    commands = [(name, text) for name, (_, text) in COMMANDS.items()]
    return format_top_help(
        "evidencepack", DESCRIPTION, EXIT_CODES_HELP, options, "COMMAND", commands
    )


def _print(text: str, file: TextIO | None) -> None:
    """Write ``text`` as argparse's ``_print_message`` does: to stderr when ``file`` is None
    (no stdout), a failed write ignored."""
    try:  # noqa: SIM105 (contextlib would cost --help its functools and collections)
        (file or sys.stderr).write(text)
    except (AttributeError, OSError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``evidencepack`` with ``argv`` and return the exit code; errors print, never trace."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:  # argparse would find no command: the help on stderr, a usage error
        _print(top_help(), sys.stderr)
        return EXIT_USAGE
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        _print(top_help(), sys.stdout)
        sys.exit(0)  # as argparse's help action exits
    parser = build_parser(argv)
    head = []  # the top-level options, before the command (``verify --verbose`` is verify's)
    for arg in argv:
        if not arg.startswith("-"):
            break
        head.append(arg)
    verbose = "-v" in head or "--verbose" in head
    reporter: Reporter | None = None
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        from ..api.terminal import progress_wanted, terminal_reporter

        # The command's progress, handed to the work it runs (``_common.check_options``).
        if progress_wanted(sys.stderr, as_json=getattr(args, "json", False)):
            reporter = terminal_reporter(sys.stderr)
        args.reporter = reporter
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
        print(f"evidencepack: error: {_worded(exc)}", file=sys.stderr)
        problems: tuple[str, ...] = getattr(exc, "problems", ())
        if problems and problems != (exc.message,):
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
        return exc.exit_code
    finally:
        if reporter is not None:
            reporter.finish()


def flag(option: str) -> str:
    """The command-line flag of a library option (``cert_identity`` -> ``--cert-identity``)."""
    return "--" + option.replace("_", "-")


def _worded(exc: EvidencePackError) -> str:
    """An error's message for the command line: the options it names (``errors.option``), as
    flags."""
    return exc.worded(flag)
