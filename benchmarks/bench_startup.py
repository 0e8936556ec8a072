"""Start-up: ``--help``, ``check`` of a missing spec and ``diff`` beside their floors, same run.

Each is a child process timed by CPU (user + system from wait4) and wall, paired and alternated
with its floor: ``python -c pass`` for ``--help`` and for ``check`` refusing a missing spec;
a Python process that ``json.load``s both packs' ``decision.json`` for ``diff`` of two copies of
the sample pack (built once, unsigned). Printed beside ``--help``: argparse alone building the
same top-level parser and printing its help (what ``--help`` cost while argparse printed it;
evidencepack writes that text without argparse now). Printed beside ``diff``: reading both
decisions as ``DecisionDocument`` models, and pydantic alone validating a one-field model (the
floor of any diff that validates through pydantic). The full run also prints what importing
each command's library costs over a bare interpreter and the heavy libraries each one loads.

    python benchmarks/bench_startup.py [--quick] [--repeat 21]
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import subprocess
import sys

from _common import CACHE, REPO, SAMPLE_PACK, Paired, paired, report, timed_process

HEAVY = ("duckdb", "weasyprint", "sigstore", "numpy", "jinja2", "pydantic", "cryptography")
# the module each command's _cmd_ function imports first
COMMAND_MODULES = {
    "validate": "evidencepack.spec",
    "check": "evidencepack.pipeline",
    "inspect": "evidencepack.readers.registry",
    "mlperf import": "evidencepack.mlperf.importer",
    "verify": "evidencepack.signing.verify",
    "build": "evidencepack.pipeline, evidencepack.render.pdf",
}
# argparse alone: the same top-level parser as evidencepack's (its command names and helps)
ARGPARSE_FLOOR = """
import argparse
from evidencepack._cli import COMMANDS
from evidencepack.errors import EXIT_CODES_HELP
p = argparse.ArgumentParser(prog="evidencepack", epilog=EXIT_CODES_HELP,
    formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--version", action="version")
p.add_argument("-v", "--verbose", action="store_true")
s = p.add_subparsers(metavar="COMMAND")
for name, (_, text) in COMMANDS.items():
    s.add_parser(name, help=text)
p.print_help()
"""
DIFF_FLOOR = "import json, sys\nfor p in sys.argv[1:]:\n    json.load(open(p, 'rb'))\n"
# what reading a decision as the document model costs: pydantic and the model's import, then
# validating both files (the part of diff no raw-JSON floor pays)
MODEL_FLOOR = (
    "import sys\nfrom evidencepack.analyze.models import DecisionDocument\n"
    "for p in sys.argv[1:]:\n    DecisionDocument.model_validate_json(open(p, 'rb').read())\n"
)
# the least any validation through pydantic costs: importing it, one one-field model (its first
# model class loads the schema builder and the plugin look-up), one tiny document validated
PYDANTIC_FLOOR = (
    "from pydantic import BaseModel\nclass A(BaseModel):\n    x: int\n"
    "A.model_validate_json(b'{\"x\": 1}')\n"
)


def _heavy(modules: str) -> str:
    code = (
        f"import {modules}, sys; "
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip() or "-"


def _per_command(python: str) -> None:
    bare = statistics.median(
        timed_process([python, "-c", "pass"], cwd=REPO).cpu_s for _ in range(5)
    )
    print("per command: cpu of importing its library over a bare interpreter, heavy libraries")
    for command, modules in COMMAND_MODULES.items():
        argv = [python, "-c", f"import {modules}"]
        cost = statistics.median(timed_process(argv, cwd=REPO).cpu_s for _ in range(5))
        print(f"  {command:<14} +{(cost - bare) * 1000:6.0f} ms  {_heavy(modules)}")


def _sample_packs() -> tuple[str, str]:
    """Two copies of the sample pack, built once (unsigned) into the cache: copies of the one
    ``bench_build.py`` left (run_all runs it first), else built here."""
    old, new = CACHE / "startup-pack-old", CACHE / "startup-pack-new"
    if not (new / "decision.json").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(new, ignore_errors=True)
        if (SAMPLE_PACK / "decision.json").is_file():
            shutil.copytree(SAMPLE_PACK, old)
        else:
            from evidencepack import build

            build(REPO / "samples" / "pack.yaml", old)
        shutil.copytree(old, new)
    return str(old), str(new)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="5 pairs, the guarded rows only (no diagnostic floors)"
    )
    parser.add_argument("--repeat", type=int, default=21, help="paired runs (median kept)")
    args = parser.parse_args()
    repeat = 5 if args.quick else args.repeat
    python = sys.executable
    # Bytecode as an installed package has it (pip compiles at install): with
    # PYTHONDONTWRITEBYTECODE set and no __pycache__, every start-up would compile every module.
    compileall.compile_dir(REPO / "evidencepack", quiet=1)
    bare = [python, "-c", "pass"]

    def pair(ours: list[str], floor: list[str], codes: tuple[int, ...] = (0,)) -> Paired:
        return paired(
            lambda: timed_process(ours, cwd=REPO, exit_codes=codes),
            lambda: timed_process(floor, cwd=REPO),
            repeat,
        )

    help_pair = pair([python, "-m", "evidencepack", "--help"], bare)
    # --quick (the guard) times the guarded rows only: the floors printed beside them (argparse
    # alone, the decision models, pydantic alone) are diagnostics of the full run
    help_extra = {}
    if not args.quick:
        argparse_pair = pair([python, "-c", ARGPARSE_FLOOR], bare)
        print(
            f"argparse alone, the same top-level parser and --help: "
            f"{argparse_pair.cpu_ratio:.2f}x python -c pass; evidencepack --help is "
            f"{help_pair.ours.cpu_s / argparse_pair.ours.cpu_s:.2f}x that"
        )
        help_extra = {"argparse_floor_ratio": round(argparse_pair.cpu_ratio, 3)}
        _per_command(python)
    report(
        "--help",
        help_pair,
        ours="evidencepack --help",
        floor="python -c pass",
        goal=2.0,
        extra=help_extra,
        row_id="help",
    )
    missing = str(CACHE / "no-such-spec.yaml")
    report(
        "check start-up (missing spec)",
        pair([python, "-m", "evidencepack", "check", missing], bare, codes=(1,)),
        ours="evidencepack check MISSING.yaml (exit 1)",
        floor="python -c pass",
        goal=5.0,
        row_id="check-startup",
    )
    old, new = _sample_packs()
    diff_argv = [python, "-m", "evidencepack", "diff", old, new, "--as-of", "2026-12-01"]
    decisions = [f"{old}/decision.json", f"{new}/decision.json"]
    diff_pair = pair(diff_argv, [python, "-c", DIFF_FLOOR, *decisions])
    diff_extra = {}
    if not args.quick:
        model_pair = pair(
            [python, "-c", MODEL_FLOOR, *decisions], [python, "-c", DIFF_FLOOR, *decisions]
        )
        pydantic_pair = pair([python, "-c", PYDANTIC_FLOOR], [python, "-c", DIFF_FLOOR, *decisions])
        print(
            f"pydantic alone (one one-field model): {pydantic_pair.cpu_ratio:.2f}x the json.load "
            "floor; "
            f"reading both decisions as DecisionDocument models: {model_pair.cpu_ratio:.2f}x; "
            f"diff is {diff_pair.ours.cpu_s / model_pair.ours.cpu_s:.2f}x that"
        )
        diff_extra = {
            "model_floor_ratio": round(model_pair.cpu_ratio, 3),
            "pydantic_floor_ratio": round(pydantic_pair.cpu_ratio, 3),
        }
    report(
        "diff",
        diff_pair,
        ours="evidencepack diff of two copies of the sample pack",
        floor="python: json.load both decision.json",
        goal=5.0,
        extra=diff_extra,
        row_id="diff",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
