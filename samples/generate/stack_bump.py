"""Make the SAMPLE DATA "stack bump" of samples/pack.yaml: one candidate on a new runtime version.

The mi325x-vllm candidate moves from vLLM 0.9.2 to vLLM 0.10.1 (a made-up faster decode path in
the simulated SUT) and is re-measured: its own LoadGen Server sweep and its own re-scored quality
run, under samples/evidence/stack-bump/mi325x-vllm/. samples/pack-stack-bump.yaml is
samples/pack.yaml with that candidate's stack, declared version and evidence replaced, and a later
decision date. Nothing of the original sample is rewritten: `evidencepack diff` compares the two.

    python samples/generate/stack_bump.py              # runs, scores and pack-stack-bump.yaml
    python samples/generate/stack_bump.py --runs none  # keep the runs, rewrite scores and spec
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_evidence as sample  # noqa: E402
from simsut import Capacity  # noqa: E402

CANDIDATE = "mi325x-vllm"
OLD_VERSION = "0.9.2"
NEW_VERSION = "0.10.1"
NEW_DATE = "2026-12-14"
BUMP = sample.EVIDENCE / "stack-bump" / CANDIDATE
BUMP_SPEC = sample.SAMPLES / "pack-stack-bump.yaml"

# Same replica, a cheaper decode step and a few more slots: saturation moves from ~2.7 to ~3.3
# req/s, so 2.8 holds the SLO and 4.0 breaks TTFT by queueing.
SWEEP = sample.Sweep(
    Capacity(replicas=1, slots=46, prefill_base_ms=22, prefill_ms_per_token=0.07,
             decode_base_ms=27, decode_ms_per_seq=0.52),
    (1.8, 2.2, 2.5, 2.8, 4.0),
    pass_rate=0.8725,  # re-scored on the new stack: one item fewer than on 0.9.2
)  # fmt: skip


def run_dir(rate: float) -> Path:
    return BUMP / "runs" / f"qps_{rate:.1f}"


def jobs(slo: dict[str, float]) -> list[dict[str, object]]:
    """The re-measured sweep, as make_evidence.py's worker runs it."""
    return [
        {
            "name": f"stack-bump/{CANDIDATE}/qps_{rate:.1f}",
            "final": str(run_dir(rate)),
            "user_conf": sample.candidate_user_conf(
                f"{CANDIDATE} on vLLM {NEW_VERSION}", rate, slo
            ),
            "keep_user_conf": True,
            "model_name": sample.MODEL_NAME,
            "scenario": "Server",
            "capacity": dataclasses.asdict(SWEEP.capacity),
            "items": "dataset",
            "performance_count": 400,
            "seed": sample.derived_seed("run", CANDIDATE, NEW_VERSION, rate),
        }
        for rate in SWEEP.rates_per_s
    ]


def scores_text(spec: dict[str, object]) -> str:
    """The re-scored quality run: each item's pass/fail on the new stack (same latent
    difficulty as the original sample, fresh per-candidate noise)."""
    rows = sample.read_dataset()
    difficulty = random.Random(sample.derived_seed("difficulty"))
    ease = [difficulty.random() for _ in rows]
    seed = sample.derived_seed("scores", CANDIDATE, NEW_VERSION)
    passing = sample.passing_items(ease, seed, SWEEP.pass_rate)
    envelope = spec["envelope"]
    dataset = spec["dataset"]
    assert isinstance(envelope, dict)
    assert isinstance(dataset, dict)
    header = {
        "evidencepack_scores": "v1",
        "metric": "pass_rate",
        "direction": "higher_is_better",
        "model": envelope["model"],
        "precision": "fp8",
        "runtime": {"name": "vllm", "version": NEW_VERSION},
        "dataset": {
            "name": dataset["name"],
            "version": dataset["version"],
            "digest": sample.sha256_file(sample.DATASET),
        },
        "settings": envelope["settings"],
    }
    return sample.scores_text(header, rows, passing)


def bump_spec(text: str, scores_sha: str) -> str:
    """pack.yaml with the candidate's stack, declared version and evidence replaced."""
    out: list[str] = [
        "# SAMPLE DATA: the sample pack after a stack bump (samples/generate/stack_bump.py).\n",
        f"# {CANDIDATE} moves from vLLM {OLD_VERSION} to vLLM {NEW_VERSION} and is re-measured:\n",
        "# a new LoadGen sweep and a re-scored quality run. Compare the two packs with\n",
        "# `evidencepack diff`.\n",
    ]
    lines = text.splitlines(keepends=True)
    current = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("  - id: "):
            current = line.strip().removeprefix("- id: ")
        mine = current == CANDIDATE
        if line.startswith("  date: "):
            line = f"  date: {NEW_DATE}\n"
        elif mine and line.startswith("    description: "):
            line = line.replace("vLLM FP8", f"vLLM {NEW_VERSION} FP8")
        elif mine and line.startswith("    stack: "):
            line = line.replace(f'"{OLD_VERSION}"', f'"{NEW_VERSION}"')
        elif mine and line.startswith("        runtime_version: "):
            line = f'        runtime_version: "{NEW_VERSION}"\n'
        elif mine and line.startswith("      runs:"):
            out.append(line)
            out += [
                f"        - path: {run_dir(r).relative_to(sample.SAMPLES).as_posix()}\n"
                for r in SWEEP.rates_per_s
            ]
            i += 1
            while lines[i].startswith("        - path: "):
                i += 1
            continue
        elif mine and line.startswith("      scores:"):
            scores = (BUMP / "scores.jsonl").relative_to(sample.SAMPLES).as_posix()
            out += [line, f"        - path: {scores}\n", f"          sha256: {scores_sha}\n"]
            i += 3  # the old "- path:" and "sha256:" lines
            continue
        out.append(line)
        i += 1
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", choices=("all", "none"), default="all")
    parser.add_argument("--parallel", type=int, default=8, help="LoadGen processes at once")
    args = parser.parse_args(argv)
    started = time.monotonic()
    text = sample.SPEC.read_text(encoding="utf-8")
    spec = yaml.safe_load(text)
    if args.runs == "all":
        print(f"running {len(SWEEP.rates_per_s)} LoadGen tests", flush=True)
        sample.run_all(jobs(spec["slo"]), args.parallel)
    scores = BUMP / "scores.jsonl"
    sample.write_atomic(scores, scores_text(spec))
    sample.write_atomic(BUMP_SPEC, bump_spec(text, sample.sha256_file(scores)))
    print(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
