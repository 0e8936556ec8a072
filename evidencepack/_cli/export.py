"""``evidencepack export``: a built pack in the formats other tools read (OSCAL)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import EXIT_OK
from ._common import Command, Parser, add_command, emit, group_help, json_argument
from ._signers import verifier_arguments, verify_policy, verifying


def _cmd_export_oscal(args: argparse.Namespace) -> int:
    from ..api.export import export_oscal
    from ..api.options import ExportOptions

    options = ExportOptions(
        oscal_version=args.oscal_version,
        policy=verify_policy(args) if verifying(args) else None,
        force=args.force,
    )
    result = export_oscal(Path(args.pack), Path(args.output), options)
    if result.verified:
        checked = "signature verified"
    elif result.signed:
        checked = "signature NOT checked (pass --key, or --cert-identity and --cert-oidc-issuer)"
    else:
        checked = "unsigned pack: its files and records agree, nothing proves who made it"
    emit(
        {
            "assessment_results": str(result.results),
            "catalog": str(result.catalog),
            "findings": result.findings,
            "oscal_version": result.oscal_version,
            "evidence_digest": result.evidence_digest,
            "verdict": result.verdict,
            "signature_verified": result.verified,
        },
        as_json=args.json,
        text=(
            f"wrote {result.results} (OSCAL {result.oscal_version} assessment results: "
            f"{result.findings} findings, verdict {result.verdict}) and {result.catalog}\n"
            f"evidence digest: {result.evidence_digest}\n{checked}"
        ),
    )
    return EXIT_OK


def oscal_argument(p: argparse.ArgumentParser) -> None:
    """Add ``build --oscal [VERSION]``: the OSCAL export written into the pack before signing."""
    from ..api.export import oscal_versions

    versions, default, results, catalog = oscal_versions()
    p.add_argument(
        "--oscal",
        nargs="?",
        const=default,
        choices=versions,
        metavar="VERSION",
        help=f"also write {results} and {catalog} (OSCAL VERSION, default "
        f"{default}) into the pack, signed with it",
    )


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    from ..api.export import oscal_versions

    versions, default, _, _ = oscal_versions()
    p = command("export", group_help, "export a built pack for other tools (OSCAL)")
    formats = p.add_subparsers(dest="export_command", metavar="FORMAT", parser_class=Parser)
    q = add_command(
        formats,
        "oscal",
        _cmd_export_oscal,
        "write the pack's checks as OSCAL assessment results (assessment-results.json) and "
        "the checks as an OSCAL catalog (checks-catalog.json)",
    )
    q.add_argument("pack", metavar="PACK", help="a built pack: its folder or its .tar.gz")
    q.add_argument(
        "--oscal-version",
        choices=versions,
        default=default,
        help=f"the OSCAL release to declare (default {default}; 1.1.2 for "
        "importers that take only 1.1.x)",
    )
    q.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default="oscal",
        help="the folder to write into, new or empty (default: oscal in the current folder; "
        "never the pack itself)",
    )
    q.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier export in DIR (only a folder holding nothing but the two "
        "files an export writes)",
    )
    verifier_arguments(q, "verify the pack's signature with this key before exporting it")
    json_argument(q, "print what was written as JSON")
