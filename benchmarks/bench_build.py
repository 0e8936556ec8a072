"""``build`` of the sample beside WeasyPrint alone rendering the same ``report.html``, same run.

Builds the sample once (unsigned) into ``benchmarks/.cache/``, then, paired and alternated,
each as a fresh process (start-up and imports count, as they do for a user): ``evidencepack
build`` (spec, inputs, store, analysis, HTML, PDF, pack files) against a Python process that
imports WeasyPrint and writes the same ``report.html`` as PDF/A-3b with the same two
attachments. The ratio is by CPU time (goal <= 1.25x); ``--profile`` prints where an
in-process build's time goes besides WeasyPrint.

Beside them, in the same rotation, ``evidencepack check`` of the same spec (a process): the
decision a build renders is exactly what ``check`` computes, so ``check`` + WeasyPrint alone is
the floor of any build that both decides and renders (``true_floor_ratio`` in the RESULT line;
see benchmarks/README.md).

    python benchmarks/bench_build.py [--quick] [--repeat 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys
from collections.abc import Callable

from _common import CACHE, REPO, SAMPLE_PACK, Paired, Timing, median, report, timed_process

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
    python = sys.executable
    fresh = CACHE / "build-sample-again"
    if args.quick:
        # the guard's one rotation: the floor renders the report.html that `ours` (run before
        # it) just built, instead of a build in this process first (seconds of CPU for a file)
        out = fresh
    else:
        build(SAMPLE, out, options)

    floor_code = (
        "import sys, weasyprint\n"
        "html, manifest, decision, out = sys.argv[1:]\n"
        "files = [weasyprint.Attachment(filename=p, relationship='Data')\n"
        "         for p in (manifest, decision)]\n"
        "weasyprint.HTML(filename=html).write_pdf(out, attachments=files, pdf_variant='pdf/a-3b')\n"
    )
    ours_argv = [python, "-m", "evidencepack", "build", str(SAMPLE), "-o", str(fresh), "--force"]
    floor_argv = [
        python, "-c", floor_code, str(out / "report.html"), str(out / MANIFEST_NAME),
        str(out / "decision.json"), str(CACHE / "weasyprint-alone.pdf"),
    ]  # fmt: skip

    def ours() -> Timing:
        return timed_process(ours_argv, cwd=REPO)

    def floor() -> Timing:
        return timed_process(floor_argv, cwd=REPO)

    check_argv = [python, "-m", "evidencepack", "check", str(SAMPLE)]

    def check() -> Timing:
        return timed_process(check_argv, cwd=REPO)

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(build, SAMPLE, out, options)
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
    runs = 1 if args.quick else args.repeat
    sides: list[tuple[Callable[[], Timing], list[Timing]]] = [(ours, []), (floor, []), (check, [])]
    if args.quick:
        # one rotation, `check` first: it warms the page cache and the .pyc files of
        # evidencepack for `ours`, whose build then writes the report.html the floor renders
        sides = sides[2:] + sides[:2]
    else:
        for fn, _ in sides:
            fn()
    for i in range(runs):  # the three rotated: each goes first, second and third in turn
        for fn, timings in sides[i % 3 :] + sides[: i % 3]:
            timings.append(fn())
    by_side = dict(sides)
    result = Paired(ours=median(by_side[ours]), floor=median(by_side[floor]), runs=runs)
    checked = median(by_side[check])
    true_floor = checked.cpu_s + result.floor.cpu_s
    print(
        f"  check of the sample (a process): cpu {checked.cpu_s:.3f} s; check + WeasyPrint alone "
        f"{true_floor:.3f} s; build / (check + WeasyPrint) {result.ours.cpu_s / true_floor:.2f}x"
    )
    # the sample pack `ours` built stays, for bench_startup.py's diff (it runs next)
    shutil.rmtree(SAMPLE_PACK, ignore_errors=True)
    fresh.replace(SAMPLE_PACK)
    shutil.rmtree(out, ignore_errors=True)
    report(
        "build",
        result,
        ours="evidencepack build of the sample (unsigned)",
        floor="python + WeasyPrint: same report.html, PDF/A-3b, same attachments",
        row_id="build",
        goal=1.25,
        extra={
            "check_cpu_s": round(checked.cpu_s, 4),
            "true_floor_cpu_s": round(true_floor, 4),
            "true_floor_ratio": round(result.ours.cpu_s / true_floor, 3),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
