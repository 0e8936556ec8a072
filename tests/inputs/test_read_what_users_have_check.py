"""The files of issue 43 cited in a spec and run through ``check`` (one run of the pipeline for
all of them): each is read with its own figures, or refused with a located reason naming what
would be read. The readers' own tests hold the figures; this holds the path through a build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main

from .builders import requests, vllm_result, write_json, write_jsonl
from .formats.test_inference_perf import lifecycle
from .formats.test_lm_eval_043_samples import NAME, _old_rows
from .formats.test_promptfoo_v2 import V3, _v2

RUNS_AFTER = "        - path: evidence/h200-vllm/runs/qps_5.5\n"
SCORES_BEFORE = "        - path: evidence/h200-vllm/scores.jsonl\n"


def test_check_reads_each_case_or_refuses_it_located(
    samples: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = samples / "evidence" / "extra"
    extra.mkdir()
    csv_lines = (shared_data / "formats/aiperf/generated/profile_export_aiperf.csv").read_text()
    (extra / "profile_export_aiperf.csv").write_text(
        "\n".join(
            line.replace("31.25", "-78.77") if line.startswith("OSL Mismatch") else line
            for line in csv_lines.splitlines()
        )
        + "\n"
    )
    sentinel = vllm_result(requests(n=12, seed=3), request_rate=1e9, max_concurrency=32)
    write_json(extra / "vllm_1e9.json", sentinel)
    write_json(extra / "stage_0_lifecycle_metrics.json", lifecycle())
    promptfoo = _v2(json.loads((shared_data / V3).read_text()))
    write_json(extra / "promptfoo_v2.json", promptfoo)
    write_json(extra / "promptfoo_bare.json", promptfoo | {"results": {
        k: v for k, v in promptfoo["results"].items() if k != "table"}})  # fmt: skip
    write_jsonl(extra / NAME, _old_rows(shared_data))
    spec = samples / "pack.yaml"
    text = spec.read_text()
    runs = ("profile_export_aiperf.csv", "vllm_1e9.json", "stage_0_lifecycle_metrics.json")
    scores = ("promptfoo_v2.json", "promptfoo_bare.json", NAME)
    text = text.replace(
        RUNS_AFTER, RUNS_AFTER + "".join(f"        - path: evidence/extra/{n}\n" for n in runs)
    )
    text = text.replace(
        SCORES_BEFORE,
        "".join(f"        - path: evidence/extra/{n}\n" for n in scores) + SCORES_BEFORE,
    )
    spec.write_text(text)

    assert main(["check", "--json", str(spec)]) in (0, 1)
    decision = json.loads(capsys.readouterr().out)
    formats = {i["spec_path"]: i["format"] for i in decision["inputs"]}
    assert formats["evidence/extra/profile_export_aiperf.csv"] == "aiperf-csv"
    assert formats["evidence/extra/vllm_1e9.json"] == "vllm-bench-serve"
    assert formats["evidence/extra/stage_0_lifecycle_metrics.json"] == "inference-perf-lifecycle"
    assert formats["evidence/extra/promptfoo_v2.json"] == "promptfoo-results"
    assert formats[f"evidence/extra/{NAME}"] == "lm-eval-samples"
    fit = {f["subject"]: f for f in decision["fit"]}
    sentinel_fit = " ".join(fit["evidence/extra/vllm_1e9.json"]["reasons"])
    assert "open-loop" not in sentinel_fit  # a closed loop at 32, not 1e9 req/s offered
    (h200,) = [c for c in decision["candidates"] if c["id"] == "h200-vllm"]
    (refusal,) = [r for r in h200["reasons"] if "promptfoo_bare.json" in r]
    assert "$.results: promptfoo results version 2 without evalId or a table" in refusal
    assert "it reads results version 3" in refusal
