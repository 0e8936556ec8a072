"""Remake the hosted-API evidence of ``samples/pack-api.yaml`` (SAMPLE DATA made by the project).

Each load point is one account of a simulated hosted API (``simapi.py``: 127.0.0.1, a latency
profile, a rate limit answering 429 with Retry-After) measured by the real
``evidencepack measure`` (LoadGen driving the streaming client), with the key sent from an
environment variable (``--api-key-env``), as a team would measure a provider's endpoint. The
score file is made like the first sample's (``make_evidence.py``), for the API's model.

    python samples/generate/make_api_evidence.py            # runs and scores (about 5 minutes)
    python samples/generate/make_api_evidence.py --runs none  # scores only
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_evidence  # noqa: E402
from simapi import ApiProfile, SimApi  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "evidence" / "hosted-api"
PROVIDER = "example-ai"
MODEL = "example-ai/summarise-large (sample)"
VERSION = "2026-10-01"
REQUESTS_PER_MINUTE = 240.0
TOKENS_PER_MINUTE = 600_000.0
RATES = (2.0, 3.0, 3.6, 4.8)
"""Per-account request rates: the last is past the 240 requests/minute (4 req/s) limit."""
PASS_RATE = 0.87
KEY_ENV = "SAMPLE_API_KEY"
SAMPLE_KEY = "sample-key-made-up-not-a-secret"
SLO = {"ttft_p99_ms": 2000.0, "tpot_p99_ms": 100.0}


def write_prompts(path: Path) -> None:
    """The dataset's items as prompts, each carrying its input length as ``[in=N]`` (the
    simulated API's prompt tokens) and its reference summary length as ``max_tokens``."""
    rows = make_evidence.read_dataset()
    path.write_text(
        "".join(
            json.dumps(
                {
                    "prompt": f"{row['prompt']} [in={row['input_tokens']}]",
                    "max_tokens": row["reference_summary_tokens"],
                    "input_tokens": row["input_tokens"],
                }
            )
            + "\n"
            for row in rows
        ),
        encoding="utf-8",
    )


def measure_one(rate: float) -> None:
    """One account measured at ``rate`` req/s (runs in its own process: LoadGen is global)."""
    from evidencepack.measure.options import MeasureOptions
    from evidencepack.measure.run import measure

    final = OUT / "runs" / f"qps_{rate:g}"
    fresh = final.with_name(final.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    os.environ[KEY_ENV] = SAMPLE_KEY
    with tempfile.TemporaryDirectory() as tmp:
        prompts = Path(tmp) / "prompts.jsonl"
        write_prompts(prompts)
        with SimApi(
            ApiProfile(),
            model=MODEL,
            provider=PROVIDER,
            requests_per_minute=REQUESTS_PER_MINUTE,
            tokens_per_minute=TOKENS_PER_MINUTE,
            seed=make_evidence.derived_seed("api", rate),
            api_key=SAMPLE_KEY,
            max_requests=2000,
            max_seconds=900,
        ) as api:
            (result,) = measure(
                MeasureOptions(
                    endpoint=api.url,
                    model=MODEL,
                    prompts=prompts,
                    outdir=fresh,
                    target_qps=rate,
                    ttft_ms=SLO["ttft_p99_ms"],
                    tpot_ms=SLO["tpot_p99_ms"],
                    min_duration_ms=make_evidence.RUN_MIN_DURATION_MS,
                    min_query_count=make_evidence.RUN_QUERIES,
                    timeout_s=120,
                    api_key_env=KEY_ENV,
                    note="SAMPLE DATA made by samples/generate/make_api_evidence.py: one account "
                    "of the simulated hosted API (simapi.py) measured with evidencepack measure",
                )
            )
    if not result.complete:
        raise SystemExit(f"qps_{rate:g}: incomplete: {result.stop_reason}")
    trace = fresh / "mlperf_log_trace.json"
    if trace.exists() and trace.stat().st_size == 0:
        trace.unlink()
    shutil.rmtree(final, ignore_errors=True)
    fresh.rename(final)


def make_scores() -> None:
    """The API model's per-item pass/fail on the sample dataset (``evidencepack-scores`` v1)."""
    rows = make_evidence.read_dataset()
    difficulty = make_evidence.random.Random(make_evidence.derived_seed("difficulty"))
    ease = [difficulty.random() for _ in rows]
    seed = make_evidence.derived_seed("scores", "api")
    passing = make_evidence.passing_items(ease, seed, PASS_RATE)
    spec = make_evidence.yaml.safe_load(make_evidence.SPEC.read_text(encoding="utf-8"))
    dataset = spec["dataset"]
    header = {
        "evidencepack_scores": "v1",
        "metric": "pass_rate",
        "direction": "higher_is_better",
        "model": {"name": MODEL},
        "runtime": {"name": PROVIDER, "version": VERSION},
        "dataset": {
            "name": dataset["name"],
            "version": dataset["version"],
            "digest": dataset["digest"],
        },
    }
    OUT.mkdir(parents=True, exist_ok=True)
    text = make_evidence.scores_text(header, rows, passing)
    make_evidence.write_atomic(OUT / "scores.jsonl", text)


def main(argv: list[str] | None = None) -> int:
    """Make the scores, then the runs (one process per rate, in parallel)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", choices=("all", "none"), default="all")
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one is not None:
        measure_one(args.one)
        return 0
    make_scores()
    if args.runs == "none":
        return 0
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--one", str(rate)],
            stdout=subprocess.DEVNULL,
        )
        for rate in RATES
    ]
    return max(p.wait() for p in procs)


if __name__ == "__main__":
    raise SystemExit(main())
