"""The signing commands: ``keygen``, ``sign``, ``verify``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_OK, InputError
from ._common import Command, emit, json_argument, optional_path
from ._pdf_sign import pdf_trust_argument
from ._signers import keyless_arguments, signer_spec, verifier_arguments, verify_policy

# --- keygen -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeygenOptions:
    private_key: Path
    public_key: Path
    no_passphrase: bool
    force: bool
    json: bool


def _cmd_keygen(args: argparse.Namespace) -> int:
    from ..api.signing import keygen

    opts = KeygenOptions(
        Path(args.private_key), Path(args.public_key), args.no_passphrase, args.force, args.json
    )
    pair = keygen(
        opts.private_key, opts.public_key, encrypt=not opts.no_passphrase, force=opts.force
    )
    state = "encrypted" if pair.encrypted else "NOT encrypted"
    emit(
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


# --- sign ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignOptions:
    pack: Path
    json: bool
    force: bool = False


def _cmd_sign(args: argparse.Namespace) -> int:
    from ..api.signing import sign

    opts = SignOptions(Path(args.pack), args.json, args.force)
    result = sign(opts.pack, signer_spec(args), force=opts.force)
    payload: dict[str, object] = {
        "pack": str(opts.pack),
        "bundle": str(result.bundle),
        "mode": result.mode,
        "files": result.files,
        "key_fingerprint": result.key_fingerprint,
        "log_index": result.log_index,
        "identity": result.identity,
        "issuer": result.issuer,
    }
    if result.identity is None and result.issuer is None and result.mode == "key":
        text = (
            f"signed {opts.pack}: {result.files} file(s) with key sha256:{result.key_fingerprint}"
            f"\nwrote {result.bundle}; verify with: evidencepack verify {opts.pack} --key "
            "PUBLIC_PEM"
        )
    else:
        identity, issuer = result.identity, result.issuer
        text = (
            f"signed {opts.pack}: {result.files} file(s) as {identity} ({issuer}), "
            f"log index {result.log_index}\nwrote {result.bundle}; verify with: evidencepack "
            f"verify {opts.pack} --cert-identity {identity} --cert-oidc-issuer {issuer}"
        )
    emit(payload, as_json=opts.json, text=text)
    return EXIT_OK


# --- register ------------------------------------------------------------------------------------


def _cmd_register(args: argparse.Namespace) -> int:
    from ..api.signing import register

    spec = Path(args.spec)
    plan, written = register(spec, Path(args.output), signer_spec(args), force=args.force)
    emit(
        {
            "plan": str(written),
            "decision_id": plan.decision_id,
            "registered_at": plan.registered_at,
            "spec_sha256": plan.spec_sha256,
            "candidates": list(plan.candidates),
        },
        as_json=args.json,
        text=f"registered the plan of {plan.decision_id} ({len(plan.candidates)} candidates, "
        f"spec sha256 {plan.spec_sha256}) at {plan.registered_at}\nwrote {written}; "
        f"hold the spec to it with: evidencepack check {spec} --plan {written}",
    )
    return EXIT_OK


# --- verify --------------------------------------------------------------------------------------


def _cmd_verify(args: argparse.Namespace) -> int:
    from ..api.terminal import visible_errors

    with visible_errors():  # errors quote paths and pack text: no hidden character on stderr
        return _verify(args)


def _verify(args: argparse.Namespace) -> int:
    from ..api.options import VerifyOptions
    from ..api.signing import verify, verify_text

    target = Path(args.target)
    if not target.exists():  # before the policy is asked about, as ever
        raise InputError(f"{target}: no such file or folder")
    policy = verify_policy(args)
    options = VerifyOptions(
        bundle=optional_path(args.bundle),
        any_file=args.any_file,
        rebuild=args.rebuild,
        pdf_trust_roots=tuple(args.pdf_trust_root),
    )
    from . import flag

    report = verify(target, policy, options, word=flag)  # options named as their flags
    emit(
        report.model_dump(mode="json", by_alias=True),
        as_json=args.json,
        text=verify_text(report, verbose=args.details),
    )
    return EXIT_OK if report.ok else EXIT_FAILED


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
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
    json_argument(p)

    p = command("sign", _cmd_sign, "sign a built pack: write PACK/pack.sigstore.json")
    p.add_argument("pack", metavar="PACK", help="the pack folder (it holds predicate.json)")
    p.add_argument(
        "--key",
        metavar="PRIVATE_PEM",
        help="sign with this key, offline (passphrase from $EVIDENCEPACK_KEY_PASSPHRASE or a "
        "prompt); without --key, sign keyless with Sigstore",
    )
    keyless_arguments(p)
    p.add_argument(
        "--force", action="store_true", help="replace the signature of an already signed pack"
    )
    json_argument(p)

    p = command(
        "register",
        _cmd_register,
        "pre-register a decision's plan before any evidence: a signed plan.sigstore.json",
    )
    p.add_argument("spec", metavar="SPEC", help="the pack spec (pack.yaml) whose plan to register")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default="plan.sigstore.json",
        help="the signed plan to write (default: %(default)s)",
    )
    p.add_argument(
        "--key",
        metavar="PRIVATE_PEM",
        help="sign with this key, offline; without --key, sign keyless with Sigstore (whose "
        "transparency log then proves when the plan existed)",
    )
    keyless_arguments(p)
    p.add_argument("--force", action="store_true", help="replace an existing FILE")
    json_argument(p)

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
    verifier_arguments(p, "verify a key-signed pack with this key")
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="also recompute the whole analysis from the pack's own inputs and spec (folder or "
        "archive) and compare decision.json, manifest.json and the reports byte for byte",
    )
    pdf_trust_argument(p)
    p.add_argument(
        "--verbose",
        dest="details",
        action="store_true",
        help="also print the bundle, the documents compared, every verdict property and every "
        "problem (by default: a summary and the first 10 problems)",
    )
    json_argument(p)
