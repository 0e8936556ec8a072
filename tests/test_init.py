"""`evidencepack init`: a spec started from a folder of real evidence; validate names its TODOs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from evidencepack._cli import main

from .conftest import SAMPLE_SPEC

# What a team fills in for each TODO key (the key the TODO value sits under).
FILLED = {
    "question": "Which configuration serves the assistant at peak within the SLO?",
    "owner": "ML Platform team",
    "date": "2026-11-30",
    "statement": "Classify the bias of a statement.",
    "name": "bias-eval",
    "version": '"2026.11"',
    "size_items": "609",
    "digest": "9b2d4e6f8a0c1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f",
    "threshold": "0.5",
    "pattern": "interactive",
    "peak_requests_per_s": "4",
    "mean": "128",
    "ttft_p99_ms": "2000",
    "tpot_p99_ms": "100",
    "accelerator": "NVIDIA H100-SXM-80GB",
    "accelerators_per_node": "8",
    "accelerators_per_replica": "1",
    "runtime": "vllm",
    "precision": "bf16",
    "per_accelerator_hour": "2.5",
}


@pytest.fixture
def evidence(tmp_path: Path, shared_data: Path) -> Path:
    """Real files laid out one folder per candidate (copies: evidence may not be symlinks)."""
    root = tmp_path / "evidence"
    serving = root / "cpu-loadgen"
    (serving / "runs").mkdir(parents=True)
    for run in ("llama2-70b_Server_perf", "llama2-70b-interactive_Server_perf"):
        shutil.copytree(shared_data / "loadgen" / run, serving / "runs" / run)
    aiperf = shared_data / "formats/aiperf/generated"
    shutil.copy(aiperf / "profile_export_aiperf.json", serving)
    shutil.copy(aiperf / "inputs.json", serving)  # the prompts: not evidence init can cite
    quality = root / "llama3-8b"
    quality.mkdir()
    for name in (
        "bias_llama3-8b_results_2024-06-17.json",
        "bias_llama3-8b_samples_bias_classification_2024-06-17.json",
    ):
        shutil.copy(shared_data / "formats/lm-eval/public" / name, quality)
    return root


def _fill(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        return f"{match.group(1)}: {FILLED[match.group(1)]}"

    return re.sub(r"(\w+): TODO\b", one, text)


def test_init_then_validate_names_each_todo_and_accepts_the_filled_spec(
    evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(evidence)]) == 0
    out = capsys.readouterr().out
    spec = evidence / "pack.yaml"
    assert f"wrote {spec}: 2 candidate(s) (cpu-loadgen, llama3-8b), 5 evidence reference(s)" in out
    assert "cpu-loadgen/inputs.json: unknown format" in out
    text = spec.read_text(encoding="utf-8")
    doc = yaml.safe_load(text)

    # What the files record is filled in.
    assert doc["envelope"]["model"]["name"] == "meta-llama/Meta-Llama-3-8B"
    assert doc["envelope"]["max_concurrency"] == 4  # the AIPerf run's concurrency
    assert doc["scoring"]["metric"] == "acc"
    by_id = {c["id"]: c for c in doc["candidates"]}
    assert [r["path"] for r in by_id["cpu-loadgen"]["evidence"]["runs"]] == [
        "cpu-loadgen/profile_export_aiperf.json",
        "cpu-loadgen/runs/llama2-70b-interactive_Server_perf",
        "cpu-loadgen/runs/llama2-70b_Server_perf",
    ]
    assert len(by_id["llama3-8b"]["evidence"]["scores"]) == 2
    assert by_id["llama3-8b"]["stack"]["precision"] == "torch.bfloat16"
    # The fit rules and the traffic's arrival process are written with their defaults, once.
    assert doc["traffic"]["arrival"] == "poisson"
    assert doc["fit"] == {
        "token_tolerance": 0.25,
        "tail_tolerance": 0.4,
        "min_duration_s": 60,
        "min_requests": 100,
        "max_over_reference": 1.5,
    }
    assert text.count("\nfit:\n") == 1

    # Validate names exactly the TODO values, each on its own line, in one pass.
    todo_lines = [n for n, line in enumerate(text.splitlines(), 1) if re.search(r": TODO\b", line)]
    assert len(todo_lines) == int(re.search(r"(\d+) TODO value", out).group(1))  # type: ignore[union-attr]
    assert main(["validate", str(spec)]) == 1
    problems = [line.strip() for line in capsys.readouterr().err.splitlines()[1:]]
    assert len(problems) == len(todo_lines), problems
    assert all("still TODO" in p for p in problems)
    assert sorted(int(p.split(":")[1]) for p in problems) == todo_lines
    assert any(
        p.endswith(
            "slo.ttft_p99_ms: still TODO: fill in this value "
            "(p99 time to first token you promise, in ms)"
        )
        for p in problems
    )

    spec.write_text(_fill(text), encoding="utf-8")
    assert main(["validate", str(spec)]) == 0, capsys.readouterr().err
    assert "2 candidate(s), 5 evidence reference(s)" in capsys.readouterr().out


def test_init_refuses_to_overwrite_and_a_folder_with_no_evidence(
    evidence: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "evidence" / "pack.yaml"
    spec.write_text("mine\n")
    assert main(["init", str(evidence)]) == 2
    assert spec.read_text() == "mine\n"
    assert main(["init", str(evidence), "--force"]) == 0
    empty = tmp_path / "empty"
    (empty / "notes").mkdir(parents=True)
    (empty / "notes" / "readme.txt").write_text("nothing to read\n")
    capsys.readouterr()
    assert main(["init", str(empty)]) == 1
    assert "no evidence evidencepack can read (1 file(s) not recognised)" in capsys.readouterr().err
    assert not (empty / "pack.yaml").exists()


def test_init_quotes_what_the_files_say(tmp_path: Path, shared_data: Path) -> None:
    """Names from the files and folders are YAML-quoted where needed: never spec syntax."""
    folder = tmp_path / "a: b # c"
    folder.mkdir()
    shutil.copy(shared_data / "formats/aiperf/generated/profile_export_aiperf.json", folder)
    assert main(["init", str(folder), "-o", str(tmp_path / "pack.yaml")]) == 0
    doc = yaml.safe_load((tmp_path / "pack.yaml").read_text(encoding="utf-8"))
    assert doc["candidates"][0]["id"] == "a-b-c"
    assert doc["candidates"][0]["evidence"]["runs"] == [
        {"path": "a: b # c/profile_export_aiperf.json"}
    ]


def test_a_shared_mlperf_tree_is_every_candidates_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sample's layout: candidate folders beside one MLPerf tree; init lists its result
    keys for each candidate to pick from, and takes the stack the score files record."""
    shutil.copytree(
        SAMPLE_SPEC.parent / "evidence",
        tmp_path / "evidence",
        # the stack bump's re-measurement and the hosted API (pack-api.yaml): other samples
        ignore=shutil.ignore_patterns("stack-bump", "hosted-api"),
    )
    spec = tmp_path / "pack.yaml"
    assert main(["init", str(tmp_path / "evidence"), "-o", str(spec)]) == 0
    doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
    assert [c["id"] for c in doc["candidates"]] == ["b200-trtllm", "h200-vllm", "mi325x-vllm"]
    b200 = doc["candidates"][0]
    assert b200["evidence"]["mlperf"] == [{"path": "evidence/mlperf", "result": "TODO"}]
    assert b200["stack"] == {"runtime": "tensorrt-llm", "version": "0.21.0", "precision": "fp8"}
    assert doc["envelope"]["runtime"] == {"name": "vllm", "version": "0.9.2"}
    key = "no-round/closed/SampleVendor/8xB200-SXM-180GB_TRT/llama2-70b-99/Server"
    assert f"#   {key}" in spec.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(spec)]) == 1
    err = capsys.readouterr().err
    assert "candidates[0].evidence.mlperf[0].result: still TODO: fill in this value (one of" in err
