"""Real files users committed to public repositories (``formats/*/public/``), each read against
figures the test takes from the file itself, and the variants of their layouts built from the
tools' documented fields."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.errors import InputError
from evidencepack.intake.load import load_input
from evidencepack.intake.stored import load_score_sets
from evidencepack.readers.registry import read_input
from evidencepack.store import Store

from .builders import requests, sglang_result, vllm_result, write_json, write_jsonl

VLLM = "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json"
GENAI_PERF = "formats/aiperf/public/wellflat_profile_export_genai_perf_2025-09-30.json"
LM_EVAL_RESULTS = "formats/lm-eval/public/bias_llama3-8b_results_2024-06-17.json"
LM_EVAL_SAMPLES = (
    "formats/lm-eval/public/bias_llama3-8b_samples_bias_classification_2024-06-17.json"
)
AIPERF_CSV = "formats/aiperf/generated/profile_export_aiperf.csv"


def test_every_public_file_is_read(shared_data: Path) -> None:
    files = sorted(
        p
        for p in shared_data.glob("formats/*/public/*")
        if p.is_file() and p.name != "MANIFEST.tsv" and "schema" not in p.name
        and "accuracy_results" not in p.name
    )  # fmt: skip
    assert files
    for path in files:
        parsed = read_input(path)
        assert parsed.runs or parsed.score_sets or parsed.references, path


# -- vLLM ------------------------------------------------------------------------------------


def test_vllm_010_result_with_endpoint_type_and_no_backend(shared_data: Path) -> None:
    path = shared_data / VLLM
    doc = json.loads(path.read_text())
    assert "backend" not in doc
    assert "endpoint_type" in doc
    parsed = read_input(path)
    assert parsed.format_id == "vllm-bench-serve"
    (run,) = parsed.runs
    assert run.layout == "new fields, endpoint_type (0.10+)"
    assert run.backend == doc["endpoint_type"]
    assert run.identity.model_name == doc["model_id"]
    assert run.requests_completed == doc["completed"]
    assert run.requests_failed == doc["num_prompts"] - doc["completed"]
    assert run.request_throughput_per_s == doc["request_throughput"]
    assert run.output_token_throughput_per_s == doc["output_throughput"]
    assert (run.load.kind, run.load.concurrency) == ("closed_loop", doc["max_concurrency"])
    for slot, key in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl")):
        stats = run.latency(slot)  # type: ignore[arg-type]
        assert stats is not None
        assert stats.mean_ms == doc[f"mean_{key}_ms"]
        assert stats.p50_ms == doc[f"median_{key}_ms"]
        assert stats.p99_ms == doc[f"p99_{key}_ms"]
    assert run.tokens.output_total_tokens == doc["total_output_tokens"]


@pytest.mark.parametrize(
    ("drop", "add", "layout"),
    [
        ((), {}, "new fields"),  # backend and endpoint_type both (0.9.x)
        (("backend",), {}, "new fields, endpoint_type (0.10+)"),
        (("backend", "failed", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
          "latencies", "start_times"), {}, "new fields, endpoint_type (0.10+)"),
        (("endpoint_type", "label", "failed", "max_output_tokens_per_s",
          "max_concurrent_requests", "rtfx"), {}, "old fields"),
        (("backend",), {"ramp_up_strategy": None, "request_goodput": 3.0}, "new fields, "
         "endpoint_type (0.10+)"),
    ],
)  # fmt: skip
def test_vllm_field_sets(
    tmp_path: Path, drop: tuple[str, ...], add: dict[str, Any], layout: str
) -> None:
    r = requests(n=24, seed=7)
    doc = {k: v for k, v in vllm_result(r, max_concurrency=4).items() if k not in drop}
    doc.update(add)
    parsed = read_input(write_json(tmp_path / "result.json", doc))
    assert parsed.format_id == "vllm-bench-serve"
    (run,) = parsed.runs
    assert run.layout == layout
    assert run.requests_completed == doc["completed"]
    assert run.backend == doc.get("backend", doc.get("endpoint_type"))


def test_vllm_lookalike_without_its_core_is_not_vllm(tmp_path: Path) -> None:
    doc = vllm_result(requests(n=10, seed=3), detailed=False)
    for key in ("backend", "endpoint_type"):
        doc.pop(key, None)
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "result.json", doc))


# -- SGLang ----------------------------------------------------------------------------------


def test_sglang_compact_line_derives_the_request_rate(tmp_path: Path) -> None:
    r = requests(n=30, seed=5)
    full = sglang_result(r, details=False)
    # the compact result line older bench_serving releases wrote (medians only)
    keys = ("backend", "dataset_name", "request_rate", "max_concurrency", "total_input_tokens",
            "total_output_tokens", "total_output_tokens_retokenized", "mean_e2e_latency_ms",
            "median_e2e_latency_ms", "median_ttft_ms", "median_itl_ms", "output_throughput",
            "random_input_len", "random_output_len", "random_range_ratio", "duration",
            "completed")  # fmt: skip
    compact = {k: full[k] for k in keys if k in full}
    compact.setdefault("max_concurrency", 16)
    path = write_jsonl(tmp_path / "sglang.jsonl", [compact, compact])
    parsed = read_input(path)
    assert parsed.format_id == "sglang-bench-serving"
    for run in parsed.runs:
        assert run.layout == "compact (medians only)"
        assert run.request_throughput_per_s == pytest.approx(
            compact["completed"] / compact["duration"]
        )
        assert any("derived as completed / duration" in w for w in run.warnings)
        assert run.ttft is not None
        assert run.ttft.p50_ms == compact["median_ttft_ms"]


def test_sglang_full_line_keeps_its_rate(tmp_path: Path) -> None:
    doc = sglang_result(requests(n=30, seed=6), details=False)
    (run,) = read_input(write_jsonl(tmp_path / "s.jsonl", [doc])).runs
    assert run.layout == "new fields"
    assert run.request_throughput_per_s == doc["request_throughput"]
    assert not any("derived" in w for w in run.warnings)


# -- GenAI-Perf / AIPerf ---------------------------------------------------------------------


def test_genai_perf_model_and_concurrency_from_input_config(shared_data: Path) -> None:
    path = shared_data / GENAI_PERF
    doc = json.loads(path.read_text())
    config = doc["input_config"]
    parsed = read_input(path)
    (run,) = parsed.runs
    assert run.tool == parsed.file.tool == "genai-perf"
    assert run.identity.model_name == config["model_names"][0]
    concurrency = config["perf_analyzer"]["stimulus"]["concurrency"]
    assert (run.load.kind, run.load.concurrency) == ("closed_loop", concurrency)
    assert run.requests_completed == int(doc["request_count"]["avg"])
    assert run.request_throughput_per_s == doc["request_throughput"]["avg"]
    assert run.ttft is not None
    assert run.ttft.p99_ms == doc["time_to_first_token"]["p99"]
    assert run.tpot is not None
    assert run.tpot.mean_ms == doc["inter_token_latency"]["avg"]


@pytest.mark.parametrize(
    ("config", "model", "kind", "concurrency", "rate"),
    [
        ({"model": ["acme/m"], "concurrency": 8}, "acme/m", "closed_loop", 8, None),
        ({"model_names": ["acme/m"], "perf_analyzer": {"stimulus": {"request_rate": 4.0}}},
         "acme/m", "open_loop", None, 4.0),
        ({"model_names": ["acme/m"], "concurrency": 2}, "acme/m", "closed_loop", 2, None),
    ],
)  # fmt: skip
def test_genai_perf_config_variants(
    shared_data: Path,
    tmp_path: Path,
    config: dict[str, Any],
    model: str,
    kind: str,
    concurrency: int | None,
    rate: float | None,
) -> None:
    doc = json.loads((shared_data / GENAI_PERF).read_text())
    doc["input_config"] = config
    (run,) = read_input(write_json(tmp_path / "p.json", doc)).runs
    assert run.tool == "genai-perf"
    assert run.identity.model_name == model
    assert (run.load.kind, run.load.concurrency, run.load.request_rate_per_s) == (
        kind,
        concurrency,
        rate,
    )


def test_aiperf_without_its_version_is_still_aiperf(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads(
        (shared_data / "formats/aiperf/generated/profile_export_aiperf.json").read_text()
    )
    doc.pop("aiperf_version")
    (run,) = read_input(write_json(tmp_path / "p.json", doc)).runs
    assert run.tool == "aiperf"
    assert run.identity.model_name == doc["input_config"]["models"]["items"][0]["name"]


def test_aiperf_csv_with_a_telemetry_table_reads_the_tables_it_knows(
    shared_data: Path, tmp_path: Path
) -> None:
    original = (shared_data / AIPERF_CSV).read_text()
    telemetry = [
        "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,min,max,p50,p90,p99,std",
        "http://localhost:9401/metrics,0,NVIDIA H100,GPU-1,GPU Power Usage (W),310.5,300,320,"
        "311,318,320,4.1",
        "http://localhost:9401/metrics,1,NVIDIA H100,GPU-2,GPU Utilization (%),97,90,100,97,99,"
        "100,2",
    ]
    path = tmp_path / "profile_export_aiperf.csv"
    path.write_text(original.rstrip("\n") + "\n\n" + "\n".join(telemetry) + "\n")
    glued = tmp_path / "glued.csv"  # the same table written without a blank line before it
    glued.write_text(original.rstrip("\n") + "\n" + "\n".join(telemetry) + "\n")
    assert read_input(glued).runs[0].ttft == read_input(shared_data / AIPERF_CSV).runs[0].ttft
    expected = read_input(shared_data / AIPERF_CSV).runs[0]
    parsed = read_input(path)
    (run,) = parsed.runs
    assert run.ttft == expected.ttft
    assert run.request_throughput_per_s == expected.request_throughput_per_s
    header_line = len(original.rstrip("\n").splitlines()) + 2
    (note,) = [w for w in run.warnings if "skipped" in w]
    assert f"line {header_line}" in note
    assert "GPU_Index" in note
    assert "2 rows" in note
    rows = list(csv.reader(path.open(newline="")))
    assert rows[header_line - 1][1] == "GPU_Index"


# -- lm-evaluation-harness -------------------------------------------------------------------


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_lm_eval_042_samples_with_metric_keys(shared_data: Path) -> None:
    path = shared_data / LM_EVAL_SAMPLES
    rows = _rows(path)
    assert "metrics" not in rows[0]
    assert "filter" not in rows[0]
    parsed = read_input(path)
    by_metric = {s.metric: s for s in parsed.score_sets}
    numeric = {k for k, v in rows[0].items() if isinstance(v, int | float) and k != "doc_id"}
    assert set(by_metric) == numeric
    for metric, score_set in by_metric.items():
        values = [float(r[metric]) for r in rows]
        assert score_set.n_items == len(rows)
        assert score_set.filter is None  # 0.4.2 rows do not record it: unknown
        assert score_set.mean_item_score == pytest.approx(sum(values) / len(values))
        assert score_set.n_passed == sum(1 for v in values if v == 1)
    digest = hashlib.sha256(
        "".join(r["doc_hash"] + r["prompt_hash"] + r["target_hash"] for r in rows).encode()
    ).hexdigest()
    assert by_metric["acc"].task_hash == digest
    # f1 is stored per item as [gold, pred] pairs: a corpus-level metric, dropped and named
    assert isinstance(rows[0]["f1"], list)
    (warning,) = parsed.warnings
    assert "'f1' dropped" in warning


def test_lm_eval_042_results_and_samples_link_by_task_hash(shared_data: Path) -> None:
    results_doc = json.loads((shared_data / LM_EVAL_RESULTS).read_text())
    store = Store()
    try:
        for name in (LM_EVAL_RESULTS, LM_EVAL_SAMPLES):
            load_input(store, read_input(shared_data / name), role="scores", candidate="a")
        sets = load_score_sets(store, candidate="a")
    finally:
        store.close()
    samples = [s for s in sets if s.format_id == "lm-eval-samples"]
    assert samples
    for s in samples:
        (task,) = results_doc["results"]
        assert s.task == task
        assert s.value == results_doc["results"][task][f"{s.metric},none"]
        assert s.mean_item_score == pytest.approx(s.value)
        assert s.identity.model_name == results_doc["model_name"]


def test_lm_eval_040_samples_as_a_json_array_without_hashes(
    shared_data: Path, tmp_path: Path
) -> None:
    rows = _rows(shared_data / LM_EVAL_SAMPLES)[:50]
    for row in rows:
        for key in ("doc_hash", "prompt_hash", "target_hash"):
            row.pop(key)
    path = write_json(tmp_path / "samples_task.json", rows)  # one JSON array, one line
    parsed = read_input(path)
    assert parsed.format_id == "lm-eval-samples"
    acc = next(s for s in parsed.score_sets if s.metric == "acc")
    assert acc.n_items == len(rows)
    assert acc.task_hash is None
    assert acc.mean_item_score == pytest.approx(sum(r["acc"] for r in rows) / len(rows))


def test_lm_eval_samples_with_only_corpus_metrics_are_an_error(
    shared_data: Path, tmp_path: Path
) -> None:
    rows = _rows(shared_data / LM_EVAL_SAMPLES)[:20]
    for row in rows:
        row.pop("acc")
        row.pop("acc_norm")
    path = write_jsonl(tmp_path / "samples.json", rows)
    with pytest.raises(InputError, match=r"nothing to score.*'f1'"):
        read_input(path)


def test_lm_eval_042_samples_of_a_task_with_two_filters(shared_data: Path, tmp_path: Path) -> None:
    """0.4.2-0.4.3 log every doc once per filter, filter after filter, without naming it."""
    rows = _rows(shared_data / LM_EVAL_SAMPLES)[:40]
    second = [dict(r, acc=1.0 - float(r["acc"])) for r in rows]  # another filter's verdicts
    path = write_jsonl(tmp_path / "samples_gsm8k.json", rows + second)
    parsed = read_input(path)
    acc = {s.filter: s for s in parsed.score_sets if s.metric == "acc"}
    assert set(acc) == {"unnamed 1 of 2", "unnamed 2 of 2"}
    first_mean = sum(float(r["acc"]) for r in rows) / len(rows)
    assert acc["unnamed 1 of 2"].mean_item_score == pytest.approx(first_mean)
    assert acc["unnamed 2 of 2"].mean_item_score == pytest.approx(1 - first_mean)
    assert all(s.n_items == len(rows) for s in acc.values())
    assert any("appears 2 times, once per filter" in w for w in parsed.warnings)


def test_lm_eval_samples_of_a_named_filter_link_to_their_results(
    shared_data: Path, tmp_path: Path
) -> None:
    """0.4.3-0.4.4: a task with one named filter (gsm8k's ``get-answer``) logs its rows without
    naming it; the results file names it, and the samples take it, the task and the model."""
    doc = json.loads((shared_data / LM_EVAL_RESULTS).read_text())
    (task,) = doc["results"]
    doc["results"][task] = {
        key.replace(",none", ",get-answer"): value for key, value in doc["results"][task].items()
    }
    results = write_json(tmp_path / "results.json", doc)
    store = Store()
    try:
        for path in (results, shared_data / LM_EVAL_SAMPLES):
            load_input(store, read_input(path), role="scores", candidate="a")
        sets = load_score_sets(store, candidate="a")
    finally:
        store.close()
    samples = {s.metric: s for s in sets if s.format_id == "lm-eval-samples"}
    assert samples
    for metric, s in samples.items():
        assert (s.task, s.filter) == (task, "get-answer")
        assert s.value == doc["results"][task][f"{metric},get-answer"]
        assert s.identity.model_name == doc["model_name"]
        assert any("'get-answer', is theirs" in w for w in s.warnings)
