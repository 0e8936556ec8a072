"""Every file in ../shared/data/formats and ../shared/data/loadgen is either read, by the format
its content says, or refused with a clear error; nothing depends on file names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.registry import FORMATS, format_by_id, read_input

from ..conftest import SHARED_DATA
from .builders import requests, vllm_result, write_json

# What each real file is (by path suffix). "-" marks files that are not benchmark or score
# outputs: inputs the tools were run with, manifests, MLPerf submission metadata. "FORMAT/TOOL"
# names a tool other than the format's own (GenAI-Perf files share AIPerf's formats).
# "refused:REASON" marks a file that is recognised but refused, with that reason.
EXPECTED: dict[str, str] = {
    "formats/MANIFEST.tsv": "-",
    "formats/aiperf/generated/inputs.json": "-",
    "formats/aiperf/generated/profile_export.jsonl": "aiperf-requests",
    "formats/aiperf/generated/profile_export_aiperf.csv": "aiperf-csv",
    "formats/aiperf/generated/profile_export_aiperf.json": "aiperf-summary",
    "wellflat_profile_export_genai_perf_2025-09-30.json": "aiperf-summary/genai-perf",
    "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json": "vllm-bench-serve",
    "formats/lm-eval/public/bias_llama3-8b_results_2024-06-17.json": "lm-eval-results",
    "bias_llama3-8b_samples_bias_classification_2024-06-17.json": "lm-eval-samples",
    "formats/guidellm/generated/benchmarks.csv": "guidellm-csv",
    "formats/guidellm/generated/benchmarks.json": "guidellm-benchmarks",
    "formats/guidellm/repo_fixtures/llm-d-benchmark_guidellm_report_v2.json": "guidellm-benchmarks",
    "arith_cd35BTSqvLP2vAp46QvUBC.eval": "inspect-ai-eval",
    "arith_6K5jXqkC8Q8GYRTv6FcCgL.json": "inspect-ai-json",
    "inspect_log_schema_0.3.285.json": "-",
    # inspect-ai's own fixture: an eval whose samples carry no score, refused like a serving
    # file with no completed request.
    "popularity_dPiJifoWeEQBrfWsAopzWr.eval": "refused:holds no scored sample",
    "2025-05-12T20-28-13-04-00_popularity.json": "inspect-ai-json",
    "formats/lm-eval/generated/inputs/data.jsonl": "-",
    "formats/lm-eval/generated/inputs/demo_gen.yaml": "-",
    "formats/lm-eval/generated/inputs/demo_mc.yaml": "-",
    "formats/lm-eval/generated/results_2026-11-30T05-02-28.257527.json": "lm-eval-results",
    "samples_demo_arith_gen_2026-11-30T05-02-28.257527.jsonl": "lm-eval-samples",
    "samples_demo_arith_mc_2026-11-30T05-02-28.257527.jsonl": "lm-eval-samples",
    "accuracy/accuracy.txt": "-",
    "performance/run_1/mlperf_log_detail.txt": "mlperf-loadgen-detail",
    "performance/run_1/mlperf_log_summary.txt": "mlperf-loadgen-summary",
    "Server/measurements.json": "-",
    "Server/user.conf": "-",
    "systems/8xMI300X_2xEPYC_9575F.json": "-",
    "formats/promptfoo/generated/promptfooconfig.yaml": "-",
    "formats/promptfoo/generated/results.json": "promptfoo-results",
    "mlperf_log_accuracy.json": "-",
    "mlperf_log_detail.txt": "mlperf-loadgen-detail",
    "mlperf_log_summary.txt": "mlperf-loadgen-summary",
    "loadgen/user.conf": "-",
    # Public results to compare against (reference points) and what sits beside them.
    "formats/inferencex/public/MANIFEST.tsv": "-",
    "_conc4_MI355-gbt350-odcdh5-wbb3.json": "inferencex-agg",
    "_conc32_MI355-gbt350-odcdh5-wbb3.json": "inferencex-agg",
    "_conc64_b200-dgxc-slurm_8.json": "inferencex-agg",
    "_conc8_b200-dgxc-slurm_1.json": "inferencex-agg",
    "rocm-team_0601_results_bmk-2_agg_bmk.json": "inferencex-agg",
    "formats/llm-d-report/public/MANIFEST.tsv": "-",
    "br_v0_1_example.yaml": "llm-d-report",
    "br_v0_2_example.yaml": "llm-d-report",
    "br_v0_2_1_example.yaml": "llm-d-report",
    "br_v0_1_json_schema.json": "-",
    "br_v0_2_json_schema.json": "-",
    "br_v0_2_1_json_schema.json": "-",
    "formats/inference-endpoint/public/MANIFEST.tsv": "-",
    "qwen3.6-27b_result_summary.json": "inference-endpoint-summary",
    "qwen3.6-27b_accuracy_results.json": "-",
    "formats/aiconfigurator/generated/MANIFEST.tsv": "-",
    "generated/agg/pareto.csv": "aiconfigurator-csv",
    "generated/agg/best_config_topn.csv": "aiconfigurator-csv",
    "generated/disagg/pareto.csv": "aiconfigurator-csv",
    "generated/disagg/best_config_topn.csv": "aiconfigurator-csv",
    "exp_config.yaml": "-",
    "aiconfigurator/generated/cli_stdout.txt": "-",
}


def _files() -> list[str]:
    return sorted(
        str(p.relative_to(SHARED_DATA))
        for folder in ("formats", "loadgen")
        for p in (SHARED_DATA / folder).rglob("*")
        if p.is_file()
    )


def _expected(relative: str) -> str:
    matches = [v for k, v in EXPECTED.items() if relative.endswith(k)]
    assert matches, f"{relative}: a new file in the shared data; say what it is in EXPECTED"
    return matches[0]


@pytest.mark.parametrize("relative", _files())
def test_every_shared_file(shared_data: Path, relative: str) -> None:
    expected, _, tool = _expected(relative).partition("/")
    path = shared_data / relative
    if expected.startswith("refused:"):
        with pytest.raises(InputError, match=expected.removeprefix("refused:")):
            read_input(path)
        return
    if expected == "-":
        with pytest.raises(InputError, match="unknown format: the content"):
            read_input(path)
        return
    parsed = read_input(path)
    assert parsed.format_id == expected
    assert parsed.file.sha256
    assert parsed.file.size_bytes == path.stat().st_size
    assert parsed.file.tool == (tool or format_by_id(expected).tool)
    for run in parsed.runs:
        assert run.run_id.startswith(parsed.file.sha256[:12] + "#")
    for score_set in parsed.score_sets:
        assert score_set.set_id.startswith(parsed.file.sha256[:12] + "#")
    for point in parsed.references:
        assert point.point_id.startswith(parsed.file.sha256[:12] + "#")


def test_detection_ignores_file_names(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "formats/aiperf/generated/profile_export_aiperf.json"
    disguised = tmp_path / "results_2026.jsonl"
    shutil.copy(src, disguised)
    assert read_input(disguised).format_id == "aiperf-summary"


def test_format_ids_are_unique() -> None:
    ids = [f.id for f in FORMATS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("model", "codes"),
    [
        ("acme/70b", None),
        ("acme/\u202e70b", "U+202E"),  # bidi override: printable in JSON, not in text
        ("acme/\x1b[31m70b", "U+001B"),  # a control: escaped in JSON, found by the walk
        ("acme/\t70b", None),  # tab is allowed
        ("acme/\u00a070b\\", None),  # unprintable but harmless, and a backslash
    ],
)
def test_misleading_characters_in_a_file_are_warned_of(
    tmp_path: Path, model: str, codes: str | None
) -> None:
    result = vllm_result(requests(n=5, seed=1))
    result["model_id"] = model
    parsed = read_input(write_json(tmp_path / "v.json", result))
    warned = [w for w in parsed.warnings if "control or bidi" in w]
    if codes is None:
        assert warned == []
    else:
        assert len(warned) == 1
        assert codes in warned[0]
