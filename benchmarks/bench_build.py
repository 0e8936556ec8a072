"""``build`` of the sample beside WeasyPrint alone rendering the same ``report.html``, same run.

Builds the sample once (unsigned) into ``benchmarks/.cache/``, then, paired and alternated,
each as a fresh process (start-up and imports count, as they do for a user): ``evidencepack
build`` (spec, inputs, store, analysis, HTML, PDF, pack files) against a Python process that
imports WeasyPrint and writes the same ``report.html`` as PDF/A-3b with the same two
attachments. The ratio is by CPU time (goal <= 1.25x); ``--profile`` prints where an
in-process build's time goes besides WeasyPrint.

    python benchmarks/bench_build.py [--quick] [--repeat 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys

from _common import CACHE, REPO, Timing, paired, report, timed_process

from evidencepack.pack.layout import MANIFEST_NAME
from evidencepack.pipeline import BuildOptions, CompileOptions, build

SAMPLE = REPO / "samples" / "pack.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one pair")
    parser.add_argument("--repeat", type=int, default=5, help="paired runs (median kept)")
    parser.add_argument("--profile", action="store_true", help="cProfile one build")
    args = parser.parse_args()
    out = CACHE / "build-sample"
    options = BuildOptions(compile=CompileOptions(), force=True)
    CACHE.mkdir(exist_ok=True)
    build(SAMPLE, out, options)

    floor_code = (
        "import sys, weasyprint\n"
        "html, manifest, decision, out = sys.argv[1:]\n"
        "files = [weasyprint.Attachment(filename=p, relationship='Data')\n"
        "         for p in (manifest, decision)]\n"
        "weasyprint.HTML(filename=html).write_pdf(out, attachments=files, pdf_variant='pdf/a-3b')\n"
    )
    python = sys.executable
    fresh = CACHE / "build-sample-again"
    ours_argv = [python, "-m", "evidencepack", "build", str(SAMPLE), "-o", str(fresh), "--force"]
    floor_argv = [
        python, "-c", floor_code, str(out / "report.html"), str(out / MANIFEST_NAME),
        str(out / "decision.json"), str(CACHE / "weasyprint-alone.pdf"),
    ]  # fmt: skip

    def ours() -> Timing:
        return timed_process(ours_argv, cwd=REPO)

    def floor() -> Timing:
        return timed_process(floor_argv, cwd=REPO)

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(build, SAMPLE, out, options)
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
    # --quick: the in-process build above already warmed the page cache, the .pyc files and
    # WeasyPrint's fonts for both sides
    result = paired(ours, floor, 1 if args.quick else args.repeat, warm_up=not args.quick)
    for folder in (out, fresh):
        shutil.rmtree(folder, ignore_errors=True)
    report(
        "build",
        result,
        ours="evidencepack build of the sample (unsigned)",
        floor="python + WeasyPrint: same report.html, PDF/A-3b, same attachments",
        row_id="build",
        goal=1.25,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
