"""``evidencepack diff``: compare two packs and say whether the decision still holds."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ._common import Command, compile_arguments, optional_path, parse_as_of
from ._signers import verifier_arguments, verify_policy, verifying


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
     eligible, a hard check newly failing, a --fail-on-* limit passed), a pack failed
     verification, or the packs are of different decisions without --allow-other-decision
     (then nothing is compared)
  2  usage error (bad command-line arguments)
  3  could not run (a pack without a valid, consistent decision.json and manifest.json,
     a NEW spec that does not build, I/O error)"""


def _cmd_diff(args: argparse.Namespace) -> int:
    from ..api.terminal import visible_errors

    with visible_errors():  # errors quote paths and pack text: no hidden character on stderr
        return _diff(args)


def _diff(args: argparse.Namespace) -> int:
    from ..api.diff import diff_markdown, diff_packs, diff_text
    from ..api.options import DiffOptions

    opts = DiffCommandOptions(
        Path(args.old),
        Path(args.new),
        "json" if args.json else "markdown" if args.markdown else "text",
        args.fail_on_cost_increase,
        args.fail_on_capacity_loss,
        optional_path(args.report),
        args.force,
    )
    if opts.report is not None and opts.report.exists() and not opts.force:
        raise UsageError(f"{opts.report} exists: choose another folder or pass --force")
    verified = verifying(args)
    if not verified and (args.trusted_root or args.staging or args.offline):
        raise UsageError(
            "--trusted-root/--staging/--offline need --cert-identity and --cert-oidc-issuer"
        )
    options = DiffOptions(
        policy=verify_policy(args) if verified else None,
        fail_on_cost_increase=opts.cost_increase,
        fail_on_capacity_loss=opts.capacity_loss,
        allow_outside=args.allow_outside_paths,
        as_of=parse_as_of(args.as_of),
        allow_other_decision=args.allow_other_decision,
    )
    result = diff_packs(opts.old, opts.new, options)
    document = result.document
    if opts.output == "json":
        print(document.model_dump_json(by_alias=True, indent=2))
    else:
        print(diff_markdown(document) if opts.output == "markdown" else diff_text(document))
    if opts.report is not None and document.compared:
        from ..api.diff import change_note

        note = change_note(result, opts.report, force=opts.force)
        print(f"wrote the change note {note}/", file=sys.stderr)
    return EXIT_OK if result.holds else EXIT_FAILED


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
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
    verifier_arguments(p, "verify both packs with this key first")
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
    p.add_argument(
        "--allow-other-decision",
        action="store_true",
        help="compare packs of different decisions (another decision id); refused otherwise",
    )
    compile_arguments(p)
    p.epilog = DIFF_EXIT_CODES_HELP
