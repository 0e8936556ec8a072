"""What every command shares: the parser class, printing, common arguments, compile options."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..errors import EXIT_CODES_HELP, UsageError

# Not ``from typing import TYPE_CHECKING``: ``--help`` imports this module and needs neither
# typing nor json, datetime or pathlib (imported where used; tests/test_startup.py pins what
# ``--help`` imports). Type checkers treat any ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from pathlib import Path
    from typing import Any, NoReturn

    from ..api.options import CheckOptions

Handler = Callable[[argparse.Namespace], int]
Command = Callable[[str, Handler, str], argparse.ArgumentParser]
"""Adds one subcommand: (name, handler, one-line help) -> its parser."""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are ``UsageError`` (exit 2), not ``SystemExit``."""

    def error(self, message: str) -> NoReturn:
        """Raise a usage error (exit 2) instead of printing and exiting."""
        raise UsageError(f"{self.prog}: {message}")


def optional_path(value: str | None) -> Path | None:
    """A path argument that may be absent."""
    from pathlib import Path

    return Path(value) if value else None


def emit(payload: Any, *, as_json: bool, text: str) -> None:
    """Print ``payload`` as JSON with ``--json``, else ``text``."""
    if as_json:
        import json

        print(json.dumps(payload, indent=2, sort_keys=True, default=str))
    else:
        print(text)


def check_options(args: argparse.Namespace) -> CheckOptions:
    """``--allow-outside-paths``, ``--as-of`` and ``--plan`` as the API's CheckOptions, with the
    command's progress reporter (``main`` sets ``args.reporter``)."""
    from ..api.options import CheckOptions

    plan = getattr(args, "plan", None)
    return CheckOptions(
        allow_outside=args.allow_outside_paths,
        as_of=parse_as_of(args.as_of),
        plan=plan or None,
        reporter=getattr(args, "reporter", None),
    )


def plan_argument(p: argparse.ArgumentParser, packs: bool) -> None:
    """Add ``--plan FILE``: the plan registered with ``evidencepack register``."""
    p.add_argument(
        "--plan",
        metavar="FILE",
        help="hold the spec against this registered plan (evidencepack register): check PLAN "
        "fails when the bar, SLO, traffic, objective or candidates changed since"
        + ("; the plan is packed as plan.sigstore.json" if packs else ""),
    )


def parse_as_of(value: str | None) -> dt.date | None:
    """``--as-of YYYY-MM-DD`` as a date (None when not given)."""
    if not value:
        return None
    import datetime as dt

    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise UsageError(f"--as-of {value!r}: give a date as YYYY-MM-DD") from exc


def json_argument(p: argparse.ArgumentParser, help_text: str = "print the result as JSON") -> None:
    """Add ``--json``."""
    p.add_argument("--json", action="store_true", help=help_text)


def allow_outside_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--allow-outside-paths``."""
    p.add_argument(
        "--allow-outside-paths",
        action="store_true",
        help="allow evidence paths outside the spec's folder",
    )


def compile_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options every command that compiles a spec takes."""
    allow_outside_argument(p)
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="judge waiver expiry on this date (default: the spec's decision date)",
    )


def add_command(
    subparsers: argparse._SubParsersAction[Parser],
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


def group_help(args: argparse.Namespace) -> int:
    """The handler of a command group given no action."""
    raise UsageError(f"evidencepack {args.command}: give an action (see --help)")
