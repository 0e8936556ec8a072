"""How time and memory grow with the size of the input: the scale figures of docs/benchmarks.md.

    python benchmarks/scale.py [--quick] [--only requests,pack-files]
    python benchmarks/scale.py --only requests --requests 1000000,2000000 --repeat 3

Each size is measured once, as a fresh process (CPU time from ``wait4``, peak RSS), its inputs
generated into ``benchmarks/.cache/`` the first time:

- **requests**: one AIPerf per-request file of 100,000, 1M, 2M, 5M and 10M requests
  (``bench_requests.py``'s generator; 10M are a 5.7 GiB file), loaded by ``read_input`` +
  ``load_input`` into a store, beside DuckDB's ``read_json`` of the same file, each
  ``--repeat`` times (medians; alternated). A file over the 1 GiB default limit is read with
  the limit raised for it, as a spec's ``max_file_bytes`` raises it;
- **pack-files**: ``verify --key`` of signed packs of 1,000, 10,000 and 90,000 tiny files
  (``bench_verify_memory.py``'s generator; 90,000 is about the most a pack's bundle holds);
- **candidates**: ``evidencepack build`` (unsigned) of a spec with 1, 10, 50 and 100 candidates
  (``many_candidates.py``: copies of the sample's candidates, each citing its own copy of the
  sample's run files and scores, in a temporary folder), with the report's page count, beside
  WeasyPrint alone writing the same ``report.html`` (``bench_build.py``'s floor).

Prints one Markdown table per series (docs/benchmarks.md, "Performance and scale") and writes
them as JSON to ``benchmarks/.cache/scale.json``. ``--quick`` runs the two smallest sizes of each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import CACHE, REPO, timed_process  # noqa: E402
from bench_requests import generate, run_child  # noqa: E402
from many_candidates import make_spec  # noqa: E402

REQUESTS = (100_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000)
PACK_FILES = (1_000, 10_000, 90_000)
CANDIDATES = (1, 10, 50, 100)


def requests_series(sizes: tuple[int, ...], repeat: int = 1) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        path = CACHE / f"profile_export_{n}.jsonl"
        if not path.exists():
            CACHE.mkdir(parents=True, exist_ok=True)
            generate(path, n)
        runs: dict[str, list[dict[str, Any]]] = {"evidencepack": [], "duckdb": []}
        for i in range(repeat):
            for kind in sorted(runs, reverse=i % 2 == 1):  # alternated
                runs[kind].append(run_child(kind, path))

        def median(kind: str, key: str, runs: dict[str, list[dict[str, Any]]] = runs) -> float:
            return statistics.median(float(r[key]) for r in runs[kind])

        rows.append(
            {
                "requests": n,
                "file_mib": round(path.stat().st_size / 2**20),
                "runs": repeat,
                "cpu_s": round(median("evidencepack", "cpu_s"), 2),
                "wall_s": round(median("evidencepack", "wall_s"), 2),
                "peak_mib": round(median("evidencepack", "peak_rss_mib")),
                "duckdb_cpu_s": round(median("duckdb", "cpu_s"), 2),
                "duckdb_peak_mib": round(median("duckdb", "peak_rss_mib")),
                "cpu_ratio": round(median("evidencepack", "cpu_s") / median("duckdb", "cpu_s"), 2),
                "cpu_us_per_request": round(median("evidencepack", "cpu_s") / n * 1e6, 2),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def pack_files_series(sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        script = str(HERE / "bench_verify_memory.py")
        subprocess.run([sys.executable, script, "--prepare", "--files", str(n)], check=True)
        folder = CACHE / f"verify-memory-{n}"
        public = CACHE / f"verify-memory-{n}.pub.pem"
        argv = [sys.executable, "-m", "evidencepack", "verify", str(folder), "--key", str(public)]
        timing = timed_process(argv, cwd=REPO)
        bundle = (folder / "pack.sigstore.json").stat().st_size
        rows.append(
            {
                "files": n,
                "bundle_mib": round(bundle / 2**20, 1),
                "cpu_s": round(timing.cpu_s, 2),
                "wall_s": round(timing.wall_s, 2),
                "peak_mib": round(timing.peak_mib),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def _pages(pdf: Path) -> int:
    """The PDF's page count (pypdf, a dev dependency: the tests read PDFs with it)."""
    import pypdf

    return len(pypdf.PdfReader(pdf).pages)


FLOOR_CODE = (
    "import sys, weasyprint\n"
    "html, manifest, decision, out = sys.argv[1:]\n"
    "files = [weasyprint.Attachment(filename=p, relationship='Data')\n"
    "         for p in (manifest, decision)]\n"
    "weasyprint.HTML(filename=html).write_pdf(out, attachments=files, pdf_variant='pdf/a-3b')\n"
)
"""WeasyPrint alone writing the build's report.html as PDF/A-3b (``bench_build.py``'s floor)."""


def candidates_series(sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix=f"evidencepack-{n}-candidates-") as tmp:
            spec = make_spec(n, Path(tmp) / "spec")
            out = Path(tmp) / "pack"
            argv = [sys.executable, "-m", "evidencepack", "build", str(spec), "-o", str(out)]
            timing = timed_process(argv, cwd=REPO)
            floor_argv = [sys.executable, "-c", FLOOR_CODE, str(out / "report.html")]
            floor_argv += [str(out / "manifest.json"), str(out / "decision.json")]
            floor = timed_process([*floor_argv, str(Path(tmp) / "floor.pdf")], cwd=REPO)
            rows.append(
                {
                    "candidates": n,
                    "cpu_s": round(timing.cpu_s, 2),
                    "wall_s": round(timing.wall_s, 2),
                    "peak_mib": round(timing.peak_mib),
                    "pages": _pages(out / "report.pdf"),
                    "html_kib": round((out / "report.html").stat().st_size / 1024),
                    "weasyprint_cpu_s": round(floor.cpu_s, 2),
                    "weasyprint_peak_mib": round(floor.peak_mib),
                }
            )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    keys = list(dict.fromkeys(k for r in rows for k in r))

    def cell(value: Any) -> str:
        return "" if value is None else f"{value:,}" if isinstance(value, int | float) else value

    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(r.get(k)) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the two smallest sizes of each")
    parser.add_argument("--only", help="comma-separated series: requests, pack-files, candidates")
    parser.add_argument(
        "--requests", help="comma-separated sizes of the requests series (default: all five)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per size of the requests series (medians)"
    )
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.requests.split(",")) if args.requests else REQUESTS
    series = {
        "requests": (lambda n: requests_series(n, args.repeat), sizes),
        "pack-files": (pack_files_series, PACK_FILES),
        "candidates": (candidates_series, CANDIDATES),
    }
    chosen = args.only.split(",") if args.only else list(series)
    began = time.perf_counter()
    results = {}
    for name in chosen:
        run, sizes = series[name]
        print(f"== {name}", flush=True)
        results[name] = run(sizes[:2] if args.quick else sizes)
    print()
    for name, rows in results.items():
        print(f"{name}:\n{markdown(rows)}\n")
    print(f"({time.perf_counter() - began:.0f} s)")
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "scale.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
