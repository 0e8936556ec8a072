"""``check`` of a spec citing 3 results of the real v5.1 tree beside ``check`` of the sample.

Copies ``samples/`` into ``benchmarks/.cache/`` and points each candidate's MLPerf reference at
one llama2-70b-99 Server result of ``../shared/data/mlperf/v5.1`` (outside the spec's folder,
so with ``allow_outside``). Both specs are checked in this process, paired and alternated; the
ratio is by CPU time. The goal (<= 1.3x) needs each cited tree imported once per build and
only the cited results parsed.

    python benchmarks/bench_check_mlperf.py [--quick] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from _common import CACHE, REPO, SHARED, Timing, paired, report, timed

from evidencepack.pipeline import CompileOptions, check

SAMPLE = REPO / "samples" / "pack.yaml"
CITED = {
    # the sample's reference -> a real v5.1 result of the same benchmark and scenario
    "no-round/closed/SampleVendor/8xH200-SXM-141GB_TRT/llama2-70b-99/Server": (
        "v5.1/closed/ASUSTeK/ESC_N8_H200-SXM-141GBx8_TRT/llama2-70b-99/Server"
    ),
    "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server": (
        "v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_1/llama2-70b-99/Server"
    ),
    "no-round/closed/SampleVendor/8xB200-SXM-180GB_TRT/llama2-70b-99/Server": (
        "v5.1/closed/Dell/XE9680L_B200_SXM_180GBx8_TRT/llama2-70b-99/Server"
    ),
}


def cited_spec(tree: Path) -> Path:
    """The sample, copied, with its three MLPerf references pointing into ``tree``."""
    folder = CACHE / "check-mlperf"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(REPO / "samples", folder, ignore=shutil.ignore_patterns("generate"))
    spec = folder / "pack.yaml"
    text = spec.read_text()
    for sample_key, real_key in CITED.items():
        old = f"        - path: evidence/mlperf\n          result: {sample_key}"
        if old not in text:
            raise SystemExit(f"the sample no longer cites {sample_key}: update CITED")
        text = text.replace(old, f"        - path: {tree}\n          result: {real_key}")
    spec.write_text(text)
    return spec


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs")
    parser.add_argument("--repeat", type=int, default=5, help="paired runs (median kept)")
    args = parser.parse_args()
    tree = (SHARED / "mlperf" / "v5.1").resolve()
    spec = cited_spec(tree)
    options = CompileOptions(allow_outside=True)
    decision = check(spec, options)
    cited = sorted({r.key for r in decision.references if r.key and r.key.startswith("v5.1/")})
    if len(cited) != len(CITED):
        raise SystemExit(f"expected {len(CITED)} v5.1 references in the decision, got {cited}")

    def ours() -> Timing:
        return timed(lambda: check(spec, options))

    def floor() -> Timing:
        return timed(lambda: check(SAMPLE, CompileOptions()))

    # the check above warmed imports, page cache and the tree's files: --quick (the guard)
    # times its 3 pairs without another warm-up pair
    result = paired(ours, floor, 3 if args.quick else args.repeat, warm_up=not args.quick)
    report(
        "check + 3 MLPerf refs",
        result,
        ours="check, 3 references into the v5.1 tree",
        floor="check of the sample",
        row_id="check-mlperf",
        goal=1.3,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
