"""Public results to compare against (reference points): InferenceX rows, llm-d benchmark reports,
MLCommons' endpoint tool summaries and aiconfigurator estimates. Each real file in
``../shared/data/formats`` is read and every figure checked against the file's own text; mutated
copies and lookalikes are refused with the reason."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evidencepack.errors import InputError
from evidencepack.readers.reference_points import read_reference_points
from evidencepack.readers.registry import read_input

from ..builders import write_json

INFX = "formats/inferencex/public"
FIXED = f"{INFX}/agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc4_MI355-gbt350-odcdh5-wbb3.json"  # noqa: E501
AGENTIC = f"{INFX}/agg_dsr1_tp4_users64_offloadon_fp4_vllm_tp4-ep4-dpafalse_disagg-false_spec-none_conc64_b200-dgxc-slurm_8.json"  # noqa: E501
BMK = f"{INFX}/rocm-team_0601_results_bmk-2_agg_bmk.json"
LLMD = "formats/llm-d-report/public"
ENDPOINT = "formats/inference-endpoint/public"
SPARK = f"{ENDPOINT}/mlperf61_atlas_dgx-spark-gb10_qwen3.6-27b_result_summary.json"
STRIX = f"{ENDPOINT}/mlperf61_atlas_strix-halo_qwen3.6-27b_result_summary.json"
AIC = "formats/aiconfigurator/generated"


def _ms(seconds: float) -> Any:
    return pytest.approx(seconds * 1000)


# -- InferenceX ---------------------------------------------------------------------------------


def test_inferencex_fixed_length_row(shared_data: Path) -> None:
    doc = json.loads((shared_data / FIXED).read_text())
    parsed = read_input(shared_data / FIXED)
    assert (parsed.format_id, parsed.kind, parsed.file.tool) == (
        "inferencex-agg", "references", "inferencex"
    )  # fmt: skip
    (p,) = parsed.references
    assert (p.provenance, p.source_tool, p.publisher, p.date) == (
        "measured_elsewhere", "inferencex", None, None
    )  # fmt: skip
    assert (p.accelerator, p.model_name, p.precision) == (doc["hw"], doc["model"], doc["precision"])
    assert p.accelerator_count == doc["tp"]  # single node, aggregated: the TP size, said
    assert p.runtime_name == doc["framework"]
    assert doc["image"].endswith(f":v{p.runtime_version}")  # the stack version from the tag
    assert (p.load.kind, p.load.concurrency) == ("fixed_concurrency", doc["conc"])
    assert (p.load.input_tokens, p.load.output_tokens) == (doc["isl"], doc["osl"])
    assert (p.load.random_prompts, p.load.ignore_eos) == (True, True)
    assert any("--ignore-eos" in w and "random prompts" in w for w in p.warnings)
    f = p.figures
    assert f.throughput_per_accelerator == doc["tput_per_gpu"]
    assert f.output_throughput_per_accelerator == doc["output_tput_per_gpu"]
    assert f.interactivity["mean"] == doc["mean_intvty"]
    assert f.interactivity["p99"] == doc["p99_intvty"]
    assert f.ttft is not None
    assert f.tpot is not None
    assert f.itl is not None
    assert f.e2e is not None
    assert f.ttft.p99_ms == _ms(doc["p99_ttft"])
    assert f.ttft.mean_ms == _ms(doc["mean_ttft"])
    assert f.tpot.p50_ms == _ms(doc["median_tpot"])
    assert f.itl.p90_ms == _ms(doc["p90_itl"])
    assert f.e2e.p99_ms == _ms(doc["p99_e2el"])
    assert f.e2e.extra_percentiles_ms["p99.9"] == _ms(doc["p99.9_e2el"])


def test_inferencex_agentic_row(shared_data: Path) -> None:
    doc = json.loads((shared_data / AGENTIC).read_text())
    (p,) = read_input(shared_data / AGENTIC).references
    assert (p.load.kind, p.load.concurrency, p.load.workload) == (
        "multi_turn", doc["users"], doc["scenario_type"]
    )  # fmt: skip
    assert p.load.random_prompts is None  # a trace replay, not synthetic prompts
    assert p.accelerator_count == round(doc["total_tput_tps"] / doc["tput_per_gpu"]) == doc["tp"]
    f = p.figures
    assert f.total_throughput == doc["total_tput_tps"]
    assert f.output_throughput == doc["output_tput_tps"]
    assert f.requests_completed == doc["num_requests_successful"]
    assert f.requests_failed == doc["num_requests_total"] - doc["num_requests_successful"]
    assert f.e2e is not None
    assert f.ttft is not None
    assert f.e2e.p99_ms == _ms(doc["p99_ttlt"])  # time to last token: the request's e2e
    assert f.ttft.p90_ms == _ms(doc["p90_ttft"])
    assert not any("--ignore-eos" in w for w in p.warnings)
    dropped = next(w for w in p.warnings if "dropped" in w)
    assert "theoretical_cache_hit_rate" in dropped


def test_inferencex_list_of_rows(shared_data: Path) -> None:
    rows = json.loads((shared_data / BMK).read_text())
    parsed = read_input(shared_data / BMK)
    assert len(parsed.references) == len(rows) == 2
    assert len({p.point_id for p in parsed.references}) == 2
    for p, row in zip(parsed.references, rows, strict=True):
        assert p.figures.throughput_per_accelerator == row["tput_per_gpu"]
        assert (p.precision, p.runtime_version) == (None, None)  # empty in the file
        assert any("no container image" in w for w in p.warnings)
        assert p.figures.ttft is not None
        assert p.figures.ttft.p95_ms == _ms(row["p95_ttft"])


def test_inferencex_mutated_and_lookalike(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / FIXED).read_text())
    with pytest.raises(InputError, match=r"\$: an InferenceX row without a model"):
        read_input(write_json(tmp_path / "nomodel.json", {**doc, "model": ""}))
    with pytest.raises(InputError, match=r"\$\.p99_ttft: negative value"):
        read_input(write_json(tmp_path / "neg.json", {**doc, "p99_ttft": -1.0}))
    lookalike = {k: v for k, v in doc.items() if k != "tput_per_gpu"}
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "lookalike.json", lookalike))


# -- llm-d benchmark reports -------------------------------------------------------------------


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def test_llmd_report_v01(shared_data: Path) -> None:
    path = shared_data / LLMD / "br_v0_1_example.yaml"
    doc = _yaml(path)
    parsed = read_input(path)
    assert (parsed.format_id, parsed.file.tool_version) == ("llm-d-report", "0.1")
    (p,) = parsed.references
    scenario, metrics = doc["scenario"], doc["metrics"]
    assert p.model_name == scenario["model"]["name"]
    assert p.precision == scenario["model"]["quantization"]
    assert p.accelerator_count == sum(a["count"] for a in scenario["host"]["accelerator"])
    engine = scenario["platform"]["engine"][0]
    assert (p.runtime_name, p.runtime_version) == (engine["name"], engine["version"])
    assert p.date is not None
    started = dt.datetime.fromtimestamp(metrics["time"]["start"], tz=dt.UTC)
    assert dt.datetime.fromisoformat(p.date) == started.replace(
        microsecond=started.microsecond // 1000 * 1000
    )
    f = p.figures
    assert f.ttft is not None
    assert f.tpot is not None
    assert f.e2e is not None
    assert f.ttft.mean_ms == metrics["latency"]["time_to_first_token"]["mean"]  # units: ms
    assert f.tpot.p90_ms == metrics["latency"]["time_per_output_token"]["p90"]
    assert f.e2e.extra_percentiles_ms["p10"] == metrics["latency"]["request_latency"]["p10"]
    assert f.total_throughput == metrics["throughput"]["total_tokens_per_sec"]
    assert f.throughput_per_accelerator == pytest.approx(
        metrics["throughput"]["total_tokens_per_sec"] / p.accelerator_count
    )
    requests = metrics["requests"]
    assert f.requests_completed == requests["total"] - requests["failures"] - requests["incomplete"]
    assert any("resources, service" in w for w in parsed.warnings)


@pytest.mark.parametrize("name", ["br_v0_2_example.yaml", "br_v0_2_1_example.yaml"])
def test_llmd_report_v02(shared_data: Path, name: str) -> None:
    path = shared_data / LLMD / name
    doc = _yaml(path)
    (p,) = read_input(path).references
    engine = doc["scenario"]["stack"][0]["standardized"]
    assert p.model_name == engine["model"]["name"]
    assert (p.accelerator, p.accelerator_count) == (
        engine["accelerator"]["model"], engine["accelerator"]["count"]
    )  # fmt: skip
    assert engine["tool_version"].endswith(f":{p.runtime_version}")
    assert p.publisher == doc["run"]["user"]
    load = doc["scenario"]["load"]["standardized"]
    assert (p.load.kind, p.load.request_rate_per_s) == ("multi_turn", load["rate_qps"])
    assert p.load.random_prompts is (load["source"] == "random")
    aggregate = doc["results"]["request_performance"]["aggregate"]
    latency = aggregate["latency"]
    assert latency["time_to_first_token"]["units"] == "s"
    f = p.figures
    assert f.ttft is not None
    assert f.e2e is not None
    assert f.ttft.p99_ms == _ms(latency["time_to_first_token"]["p99"])
    assert f.e2e.mean_ms == _ms(latency["request_latency"]["mean"])
    assert f.request_throughput_per_s == aggregate["throughput"]["request_rate"]["mean"]
    assert f.requests_completed == aggregate["requests"]["total"]


def test_llmd_report_as_json_and_mutations(shared_data: Path, tmp_path: Path) -> None:
    doc = _yaml(shared_data / LLMD / "br_v0_2_1_example.yaml")
    as_json = tmp_path / "report.json"
    as_json.write_text(json.dumps(doc, default=str))
    parsed = read_input(as_json)
    assert parsed.format_id == "llm-d-report-json"
    (p,) = parsed.references
    (twin,) = read_input(shared_data / LLMD / "br_v0_2_1_example.yaml").references
    assert p.figures == twin.figures
    doc["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"][
        "units"
    ] = "fortnights"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, default=str))
    with pytest.raises(InputError, match=r"time_to_first_token\.units: unknown time unit"):
        read_input(bad)
    doc["version"] = "0.9"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc, default=str))
    with pytest.raises(InputError, match="unknown format"):
        read_input(other)


# -- MLCommons endpoint tool -------------------------------------------------------------------


@pytest.mark.parametrize("name", [SPARK, STRIX])
def test_endpoint_result_summary(shared_data: Path, name: str) -> None:
    doc = json.loads((shared_data / name).read_text())
    parsed = read_input(shared_data / name)
    assert parsed.format_id == "inference-endpoint-summary"
    assert parsed.file.tool_version == f"{doc['version']} ({doc['git_sha']})"
    (p,) = parsed.references
    assert (p.provenance, p.model_name, p.accelerator) == ("measured_elsewhere", None, None)
    assert any("names no model, accelerator" in w for w in p.warnings)
    f = p.figures
    assert f.ttft is not None
    assert f.tpot is not None
    assert f.e2e is not None
    assert f.ttft.p99_ms == pytest.approx(doc["ttft"]["percentiles"]["99.0"] / 1e6)
    assert f.ttft.mean_ms == pytest.approx(doc["ttft"]["avg"] / 1e6)
    assert f.tpot.p50_ms == pytest.approx(doc["tpot"]["percentiles"]["50.0"] / 1e6)
    assert f.e2e.extra_percentiles_ms["p99.9"] == pytest.approx(
        doc["latency"]["percentiles"]["99.9"] / 1e6
    )
    assert (f.output_throughput, f.request_throughput_per_s) == (doc["tps"], doc["qps"])
    assert f.requests_completed == doc["n_samples_completed"]
    assert f.duration_s == pytest.approx(doc["duration_ns"] / 1e9)
    pattern = doc["run_config"]["load_pattern"]
    assert (p.load.kind, p.load.concurrency, p.load.workload) == (
        "single_stream", pattern["target_concurrency"], pattern["type"]
    )  # fmt: skip
    early = "early_stopping_percentiles" in doc["ttft"]
    assert any("early_stopping_percentiles" in w for w in p.warnings) is early
    if "finish_reason_counts" in doc:
        counts = doc["finish_reason_counts"]
        assert p.settings["finish_reason.tool_calls"] == counts["tool_calls"]


def test_endpoint_unfinished_and_lookalike(shared_data: Path, tmp_path: Path) -> None:
    doc = json.loads((shared_data / SPARK).read_text())
    (p,) = read_input(write_json(tmp_path / "s.json", {**doc, "state": "running",
                                                       "complete": False})).references  # fmt: skip
    assert any("did not complete (state 'running')" in w for w in p.warnings)
    with pytest.raises(InputError, match="unknown format"):
        read_input(write_json(tmp_path / "l.json", {k: v for k, v in doc.items() if k != "ttft"}))
    doc["ttft"]["percentiles"]["ninety"] = 1.0
    with pytest.raises(InputError, match=r"\$\.ttft\.percentiles\.ninety: not a percentile"):
        read_input(write_json(tmp_path / "b.json", doc))


# -- aiconfigurator ----------------------------------------------------------------------------


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("mode", ["agg", "disagg"])
@pytest.mark.parametrize("name", ["pareto.csv", "best_config_topn.csv"])
def test_aiconfigurator_estimates_are_simulated(shared_data: Path, mode: str, name: str) -> None:
    path = shared_data / AIC / mode / name
    rows = _csv_rows(path)
    parsed = read_input(path)
    assert (parsed.format_id, parsed.file.tool) == ("aiconfigurator-csv", "aiconfigurator")
    assert len(parsed.references) == len(rows)
    assert any("not measured" in w for w in parsed.warnings)
    side = "(d)" if mode == "disagg" else ""
    for p, row in zip(parsed.references, rows, strict=True):
        assert p.provenance == "simulated"
        assert (p.model_name, p.accelerator) == (row["model"], row[f"{side}system"])
        assert p.accelerator_count == int(row["num_total_gpus"])
        assert (p.runtime_name, p.runtime_version) == (row[f"{side}backend"], row[f"{side}version"])
        assert p.load.kind == "modelled"
        assert p.load.concurrency == int(row["concurrency"])
        assert p.load.input_tokens == float(row["isl"])
        f = p.figures
        assert f.output_throughput_per_accelerator == float(row["tokens/s/gpu"])
        assert f.interactivity["mean"] == float(row["tokens/s/user"])
        assert f.ttft is not None
        assert f.tpot is not None
        assert (f.ttft.mean_ms, f.tpot.mean_ms) == (float(row["ttft"]), float(row["tpot"]))
        if mode == "disagg":
            assert p.parallelism["(p)workers"] == int(row["(p)workers"])


def test_aiconfigurator_bad_cell_and_lookalike(shared_data: Path, tmp_path: Path) -> None:
    lines = (shared_data / AIC / "agg/pareto.csv").read_text().splitlines()
    cells = lines[2].split(",")
    cells[8] = "fast"  # ttft
    bad = tmp_path / "pareto.csv"
    bad.write_text("\n".join([*lines[:2], ",".join(cells), *lines[3:]]) + "\n")
    with pytest.raises(InputError, match="line 3: ttft: not a number: 'fast'"):
        read_input(bad)
    header = lines[0].replace("tokens/s/user", "per_user")
    other = tmp_path / "other.csv"
    other.write_text("\n".join([header, *lines[1:]]) + "\n")
    with pytest.raises(InputError, match="unknown format"):
        read_input(other)


def test_inferencex_disaggregated_row_counts_prefill_and_decode_gpus(
    shared_data: Path, tmp_path: Path
) -> None:
    doc = json.loads((shared_data / FIXED).read_text())
    doc.update(disagg=True, is_multinode=True, num_prefill_gpu=16, num_decode_gpu=16,
               prefill_tp=16, decode_tp=16)  # fmt: skip
    (p,) = read_input(write_json(tmp_path / "disagg.json", doc)).references
    assert p.accelerator_count == 32
    assert (p.parallelism["prefill_tp"], p.parallelism["disagg"]) == (16, True)
    assert not any("GPU count taken" in w for w in p.warnings)
    del doc["num_prefill_gpu"]
    (q,) = read_input(write_json(tmp_path / "unknown.json", doc)).references
    assert q.accelerator_count is None
    assert any("GPU count is not stated" in w for w in q.warnings)


def test_read_reference_points_refuses_a_teams_own_run(shared_data: Path) -> None:
    parsed = read_reference_points(shared_data / FIXED)
    assert [p.provenance for p in parsed.references] == ["measured_elsewhere"]
    run = shared_data / "formats/aiperf/generated/profile_export_aiperf.json"
    with pytest.raises(InputError, match="aiperf-summary file holds serving runs, not a public"):
        read_reference_points(run)
