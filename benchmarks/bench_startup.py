"""Start-up: ``evidencepack --help`` beside ``python -c pass``, same interpreter, same run.

Both are child processes timed by CPU (user + system from wait4) and wall, paired and
alternated. Also prints what importing each command's library costs over a bare interpreter
(``python -c 'import evidencepack.X'``), and the heavy libraries each one loads.

    python benchmarks/bench_startup.py [--quick] [--repeat 21]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from _common import REPO, paired, report, timed_process

HEAVY = ("duckdb", "weasyprint", "sigstore", "numpy", "jinja2", "pydantic", "cryptography")
# the module each command's _cmd_ function imports first
COMMAND_MODULES = {
    "validate": "evidencepack.spec",
    "check": "evidencepack.pipeline",
    "inspect": "evidencepack.inputs.registry",
    "mlperf import": "evidencepack.mlperf.importer",
    "verify": "evidencepack.signing.verify",
    "build": "evidencepack.pipeline, evidencepack.render.pdf",
}


def _heavy(modules: str) -> str:
    code = (
        f"import {modules}, sys; "
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip() or "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs, no per-command table")
    parser.add_argument("--repeat", type=int, default=21, help="paired runs (median kept)")
    args = parser.parse_args()
    repeat = 3 if args.quick else args.repeat
    python = sys.executable
    result = paired(
        lambda: timed_process([python, "-m", "evidencepack", "--help"], cwd=REPO),
        lambda: timed_process([python, "-c", "pass"], cwd=REPO),
        repeat,
    )
    if not args.quick:
        bare = statistics.median(
            timed_process([python, "-c", "pass"], cwd=REPO).cpu_s for _ in range(5)
        )
        print("per command: cpu of importing its library over a bare interpreter, heavy libraries")
        for command, modules in COMMAND_MODULES.items():
            argv = [python, "-c", f"import {modules}"]
            cost = statistics.median(timed_process(argv, cwd=REPO).cpu_s for _ in range(5))
            print(f"  {command:<14} +{(cost - bare) * 1000:6.0f} ms  {_heavy(modules)}")
    report(
        "--help",
        result,
        ours="evidencepack --help",
        floor="python -c pass",
        goal=2.0,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
