"""``evidencepack watch``: does a signed decision still hold, in production, today?"""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ._common import Command, emit, json_argument, parse_as_of
from ._signers import verifier_arguments, verify_policy, verifying


def _cmd_watch(args: argparse.Namespace) -> int:
    from ..api.options import WatchOptions
    from ..api.watching import watch, watch_text

    if not verifying(args):
        raise UsageError(
            "watch verifies the pack first: give --key PUBLIC_PEM, or --cert-identity and "
            "--cert-oidc-issuer"
        )
    options = WatchOptions(
        endpoint=args.endpoint,
        prompts=args.prompts,
        out=args.output,
        policy=verify_policy(args),
        spec=args.spec or None,
        as_of=parse_as_of(args.as_of),
        duration_s=args.duration,
        max_requests=args.max_requests,
        candidate=args.candidate,
        tolerance=args.tolerance,
        approval_max_days=args.approval_max_days,
        api_key_env=args.api_key_env,
        timeout_s=args.timeout_s,
        sign_key=args.sign_key or None,
        force=args.force,
    )
    result = watch(args.pack, options, progress=lambda line: print(line, file=sys.stderr))
    report = result.report
    signed = "signed" if result.signed else "not signed: evidencepack sign " + str(result.out)
    emit(
        {**report.model_dump(mode="json", by_alias=True), "out": str(result.out)},
        as_json=args.json,
        text=watch_text(report) + f"\nwrote {result.out}/ ({signed})",
    )
    return EXIT_OK if report.status == "holds" else EXIT_FAILED


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command(
        "watch",
        _cmd_watch,
        "re-measure a signed decision's endpoint and dates: holds, degraded or broken (exit 1)",
    )
    p.add_argument("pack", metavar="PACK", help="the signed pack (folder or .tar.gz)")
    p.add_argument(
        "--endpoint",
        required=True,
        metavar="URL",
        help="the production endpoint (OpenAI-compatible), measured at the decision's X*",
    )
    p.add_argument(
        "--prompts",
        required=True,
        metavar="FILE",
        help="prompts as measure reads them (JSON lines): the traffic's token mix",
    )
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the watch folder")
    verifier_arguments(p, "verify the pack with this public key first")
    p.add_argument(
        "--spec", metavar="SPEC", help="today's spec: its traffic and SLO against the pack's"
    )
    p.add_argument("--as-of", metavar="YYYY-MM-DD", help="judge dates as of this day (today)")
    p.add_argument(
        "--duration",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds of load at most (default 60; at most 3600)",
    )
    p.add_argument(
        "--max-requests",
        type=int,
        default=500,
        metavar="N",
        help="requests at most (default 500): the run lasts min(duration, N / X*)",
    )
    p.add_argument("--candidate", metavar="ID", help="watch this candidate (default: chosen)")
    p.add_argument(
        "--tolerance",
        type=float,
        default=0.10,
        metavar="F",
        help="how much worse than the pack a figure may be before the margin counts as "
        "smaller (default 0.10)",
    )
    p.add_argument(
        "--approval-max-days",
        type=int,
        default=365,
        metavar="DAYS",
        help="an older approval asks for a new sign-off (default 365)",
    )
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable holding the endpoint's API key (never on the command line)",
    )
    p.add_argument(
        "--timeout-s", type=float, default=120.0, help="per-request timeout (default 120)"
    )
    p.add_argument(
        "--sign-key",
        metavar="PRIVATE_PEM",
        help="sign the watch folder with this key (else: evidencepack sign OUT, keyless too)",
    )
    p.add_argument("--force", action="store_true", help="replace an earlier watch folder OUT")
    json_argument(p, "print the watch report as JSON")
