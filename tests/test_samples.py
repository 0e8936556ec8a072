"""The committed sample evidence (samples/evidence) is what samples/generate says it made.

Reads the files in place (the generator is too slow for a test); fast tests drive the simulated
SUT through the real LoadGen, once within capacity and once overloaded, and through
``evidencepack measure`` behind its OpenAI-compatible endpoint.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.pipeline import CompileOptions, check
from evidencepack.spec.load import load_spec
from evidencepack.spec.models import PackSpec

from .conftest import REPO_ROOT, SAMPLE_SPEC

SAMPLES = REPO_ROOT / "samples"
EVIDENCE = SAMPLES / "evidence"
MLPERF_ROOT = EVIDENCE / "mlperf" / "closed" / "SampleVendor"
MLLOG_FIELDS = {"key", "value", "time_ms", "namespace", "event_type", "metadata"}

# The story the README tells: each candidate's highest swept rate within the SLO (req/s/replica).
EXPECTED_OPERATING_POINT = {"h200-vllm": 4.0, "mi325x-vllm": 2.2, "b200-trtllm": 3.5}


@pytest.fixture(scope="module")
def spec() -> PackSpec:
    return load_spec(SAMPLE_SPEC).spec


@pytest.fixture(scope="module")
def generate() -> Iterator[ModuleType]:
    """samples/generate/simsut.py, imported (not run) with its folder on sys.path."""
    folder = str(SAMPLES / "generate")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module("simsut")
    finally:
        sys.path.remove(folder)


def mllog(path: Path) -> dict[str, object]:
    """Every ``:::MLLOG`` line of a LoadGen detail log, last value per key; fails on others."""
    values: dict[str, object] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert line.startswith(":::MLLOG {"), f"{path}:{number}: not an MLLOG line"
        record = json.loads(line.removeprefix(":::MLLOG "))
        assert record.keys() >= MLLOG_FIELDS, f"{path}:{number}: fields {sorted(record)}"
        assert record["metadata"]["is_error"] is False, f"{path}:{number}: {record}"
        values[record["key"]] = record["value"]
    return values


def p99_ms(log: dict[str, object]) -> tuple[float, float]:
    ttft = float(str(log["result_first_token_99.00_percentile_latency_ns"])) / 1e6
    tpot = float(str(log["result_time_per_output_token_99.00_percentile_ns"])) / 1e6
    return ttft, tpot


def sweep(spec: PackSpec, candidate: str) -> list[tuple[float, dict[str, object]]]:
    """The candidate's runs from pack.yaml as (target req/s, detail log), lowest rate first."""
    points = []
    for ref in spec.candidate(candidate).evidence.runs:
        log = mllog(SAMPLES / ref.path / "mlperf_log_detail.txt")
        points.append((float(str(log["effective_target_qps"])), log))
    return sorted(points, key=lambda point: point[0])


def within_slo(spec: PackSpec, log: dict[str, object]) -> bool:
    ttft, tpot = p99_ms(log)
    return ttft <= spec.slo.ttft_p99_ms and tpot <= spec.slo.tpot_p99_ms


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_detail_log_is_loadgen_output() -> None:
    logs = sorted(EVIDENCE.rglob("mlperf_log_detail.txt"))
    # 3 sweeps of 5 points, 3 systems x Server/Offline, the stack bump's re-measured sweep of 5,
    # the hosted API's 4 load points (pack-api.yaml)
    assert len(logs) == 15 + 6 + 5 + 4
    for path in logs:
        log = mllog(path)
        assert log["result_validity"] in {"VALID", "INVALID"}, path
        assert str(log["loadgen_version"]).startswith("6.0.17 "), path
        assert log["effective_test_mode"] == "PerformanceOnly", path
        assert log["num_errors"] == 0, path
        summary = (path.parent / "mlperf_log_summary.txt").read_text(encoding="utf-8")
        assert f"Result is : {log['result_validity']}" in summary, path


def test_candidate_runs_are_server_runs_at_their_folder_rate(spec: PackSpec) -> None:
    for candidate in spec.candidates:
        assert len(candidate.evidence.runs) == 5, candidate.id
        for ref in candidate.evidence.runs:
            folder = SAMPLES / ref.path
            log = mllog(folder / "mlperf_log_detail.txt")
            assert folder.name == f"qps_{float(str(log['effective_target_qps'])):.1f}"
            assert log["effective_scenario"] == "Server"
            assert log["requested_use_token_latencies"] is True
            assert log["requested_server_ttft_latency"] == spec.slo.ttft_p99_ms * 1e6
            assert log["requested_server_tpot_latency"] == spec.slo.tpot_p99_ms * 1e6
            assert log["generated_query_count"] == 500
            assert (folder / "mlperf_log_accuracy.json").is_file()
            # Made the way a team would: `evidencepack measure` against an HTTP endpoint.
            record = json.loads((folder / "run.json").read_text(encoding="utf-8"))
            assert record["complete"] is True
            assert "SAMPLE DATA" in record["note"]
            assert record["server"]["headers"] == {"server": "simsut"}
            assert record["response_models"] == [spec.envelope.model.name]
            assert record["requests"]["failed"] == 0
            requests = (folder / "requests.jsonl").read_text(encoding="utf-8").splitlines()
            assert len(requests) == record["requests"]["ok"] == 500


@pytest.mark.parametrize("candidate", sorted(EXPECTED_OPERATING_POINT))
def test_each_sweep_brackets_the_slo(spec: PackSpec, candidate: str) -> None:
    points = sweep(spec, candidate)
    (low_rate, low), (high_rate, high) = points[0], points[-1]
    assert within_slo(spec, low), (candidate, low_rate, p99_ms(low))
    assert low["result_validity"] == "VALID"
    assert not within_slo(spec, high), (candidate, high_rate, p99_ms(high))
    assert high["result_validity"] == "INVALID"
    inside = [rate for rate, log in points if within_slo(spec, log)]
    assert max(inside) == EXPECTED_OPERATING_POINT[candidate]
    # Below the operating point LoadGen agrees: every run within the SLO is VALID.
    assert all(log["result_validity"] == "VALID" for rate, log in points if rate in inside)


def story(doc: DecisionDocument) -> str:
    """The README's story of the sample, told from the tool's own decision (one source of
    truth: the README block must be exactly this)."""
    capacity = {c.candidate: c for c in doc.capacity}
    verdicts = {v.id: v for v in doc.candidates}
    spec = doc.spec
    parts = []
    for c in spec.candidates:
        cap, v = capacity[c.id], verdicts[c.id]
        assert cap.operating_point_rps is not None
        assert v.cost_per_month is not None
        parts.append(
            f"{c.id} runs {cap.replicas} replicas on {cap.accelerators} accelerators "
            f"({cap.servers} server{'s' if cap.servers != 1 else ''}; X* "
            f"{cap.operating_point_rps:.2f} req/s per replica) for {v.currency} "
            f"{v.cost_per_month:,.0f} a month, billed per {c.price.billed_per}"
        )
    required = spec.traffic.peak_requests_per_s * (1 + spec.headroom)
    robust = doc.robustness
    assert robust is not None
    return (
        f"Sizing {spec.traffic.peak_requests_per_s:g} req/s x {1 + spec.headroom:g} headroom = "
        f"{required:g} req/s at each candidate's X* (the highest completed rate per replica "
        f"within the SLO): {'; '.join(parts)}. The tool recommends {doc.recommendation}, the "
        f"spec's chosen candidate, with the verdict {doc.verdict}; {robust.sentence} All three "
        "clear the quality bar. The MLPerf references alone would point elsewhere: per "
        "accelerator-hour the H200 reference gives the lowest cost per request, but on "
        "TensorRT-LLM, a stack the h200-vllm candidate does not run."
    )


def test_the_readme_tells_the_tools_own_story() -> None:
    doc = check(SAMPLE_SPEC, CompileOptions())
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- story:start -->\n", 1)[1].split("\n<!-- story:end -->", 1)[0]
    assert " ".join(block.split()) == story(doc), "rewrite the story block from story(doc)"
    assert doc.recommendation == doc.spec.chosen


def test_dataset_matches_its_digest_and_the_traffic(spec: PackSpec) -> None:
    assert spec.dataset.path is not None
    path = SAMPLES / spec.dataset.path
    assert sha256(path) == spec.dataset.digest
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == spec.dataset.size_items
    assert len({row["id"] for row in rows}) == len(rows)
    assert all(row["prompt"].startswith("SAMPLE DATA") for row in rows)
    mean_in = sum(row["input_tokens"] for row in rows) / len(rows)
    mean_out = sum(row["reference_summary_tokens"] for row in rows) / len(rows)
    assert mean_in == pytest.approx(spec.traffic.input_tokens.mean, rel=0.1)
    assert mean_out == pytest.approx(spec.traffic.output_tokens.mean, rel=0.1)
    assert max(row["input_tokens"] + row["reference_summary_tokens"] for row in rows) <= 8192


def wilson_lower(passed: int, n: int, z: float = 1.959964) -> float:
    p = passed / n
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (p + z * z / (2 * n) - spread) / (1 + z * z / n)


def test_wilson_lower_bound_matches_a_known_value() -> None:
    # 350 of 400 (p = 0.875, z = 1.96): (0.87143 - 0.03245) by the textbook formula.
    assert wilson_lower(350, 400) == pytest.approx(0.8390, abs=1e-4)
    assert wilson_lower(320, 400) < 0.80 < wilson_lower(340, 400)


@pytest.mark.parametrize("candidate", sorted(EXPECTED_OPERATING_POINT))
def test_scores_cover_the_dataset_and_clear_the_bar(spec: PackSpec, candidate: str) -> None:
    (ref,) = spec.candidate(candidate).evidence.scores
    path = SAMPLES / ref.path
    assert ref.sha256 == sha256(path)
    header, *items = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    stack = spec.candidate(candidate).stack
    assert header["evidencepack_scores"] == "v1"
    assert header["metric"] == spec.scoring.metric
    assert header["model"]["digest"] == spec.envelope.model.digest
    assert header["runtime"] == {"name": stack.runtime, "version": stack.version}
    assert header["dataset"]["digest"] == spec.dataset.digest
    assert len(items) == spec.dataset.size_items
    assert spec.dataset.path is not None
    dataset = (SAMPLES / spec.dataset.path).read_text(encoding="utf-8").splitlines()
    assert [item["item_id"] for item in items] == [json.loads(row)["id"] for row in dataset]
    for item in items:
        assert item["score"] in (0, 1)
        assert item["label"] == ("pass" if item["score"] else "fail")
    passed = sum(item["score"] for item in items)
    assert 0.86 <= passed / len(items) <= 0.90
    assert wilson_lower(passed, len(items)) > spec.scoring.bar.threshold


def test_every_pinned_digest_matches(spec: PackSpec) -> None:
    pinned = 0
    for candidate in spec.candidates:
        evidence = candidate.evidence
        for ref in [*evidence.mlperf, *evidence.runs, *evidence.scores]:
            target = SAMPLES / ref.path
            if target.is_file():
                assert ref.sha256 == sha256(target), ref.path
                pinned += 1
            else:
                assert ref.sha256 is None, f"{ref.path} is a folder and cannot be pinned"
    assert pinned == len(spec.candidates)


ROUGE_99 = {"rouge1": 43.9869, "rouge2": 21.8148, "rougeL": 28.3300}
SYSTEMS = {  # system -> (candidate it matches, a word its framework must name)
    "8xH200-SXM-141GB_TRT": ("h200-vllm", "TensorRT-LLM"),
    "8xMI325X_vLLM": ("mi325x-vllm", "vLLM"),
    "8xB200-SXM-180GB_TRT": ("b200-trtllm", "TensorRT-LLM"),
}


def test_mlperf_tree_has_the_three_sample_systems() -> None:
    systems = {path.stem for path in (MLPERF_ROOT / "systems").glob("*.json")}
    assert systems == set(SYSTEMS)
    for system, (_, framework) in SYSTEMS.items():
        desc = json.loads((MLPERF_ROOT / "systems" / f"{system}.json").read_text(encoding="utf-8"))
        assert desc["submitter"] == "SampleVendor"
        assert desc["division"] == "closed"
        assert desc["number_of_nodes"] * desc["accelerators_per_node"] == 8
        assert framework in desc["framework"]
        assert "SAMPLE DATA" in desc["system_name"]
        assert "SAMPLE DATA" in desc["hw_notes"]
        assert "SAMPLE DATA" in desc["sw_notes"]


@pytest.mark.parametrize("scenario", ["Server", "Offline"])
@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_mlperf_results_are_valid_loadgen_runs(system: str, scenario: str) -> None:
    base = MLPERF_ROOT / "results" / system / "llama2-70b-99" / scenario
    log = mllog(base / "performance" / "run_1" / "mlperf_log_detail.txt")
    assert log["effective_scenario"] == scenario
    assert log["result_validity"] == "VALID"
    assert log["requested_use_token_latencies"] is True
    measured = MLPERF_ROOT / "measurements" / system / "llama2-70b-99" / scenario
    conf = (measured / "user.conf").read_text(encoding="utf-8")
    assert "SAMPLE DATA" in conf
    qps = re.search(rf"^llama2-70b\.{scenario}\.target_qps = ([0-9.]+)$", conf, re.M)
    assert qps is not None
    assert float(qps.group(1)) == log["effective_target_qps"]
    if scenario == "Server":  # MLPerf's llama2-70b limits, from LoadGen's built-in mlperf.conf
        assert log["requested_server_ttft_latency"] == 2000 * 1e6
        assert log["requested_server_tpot_latency"] == 200 * 1e6
        ttft, tpot = p99_ms(log)
        assert ttft < 2000
        assert tpot < 200
    weights = json.loads((measured / f"{system}.json").read_text(encoding="utf-8"))
    assert weights["weight_data_types"] == "fp8"

    text = (base / "accuracy" / "accuracy.txt").read_text(encoding="utf-8")
    match = re.fullmatch(r"\nResults\n\n(\{.*\})\n\nhash=([0-9a-f]{64})\n", text)
    assert match is not None, text
    scores = ast.literal_eval(match.group(1))
    for metric, floor in ROUGE_99.items():
        assert scores[metric] >= floor
    assert 0.9 * 294.45 <= scores["tokens_per_sample"] <= 1.1 * 294.45
    assert scores["tokens_per_sample"] == round(scores["gen_tok_len"] / scores["gen_num"], 1)


def test_references_sit_above_the_candidates_own_rates(spec: PackSpec) -> None:
    for system, (candidate, _) in SYSTEMS.items():
        server = MLPERF_ROOT / "results" / system / "llama2-70b-99" / "Server"
        log = mllog(server / "performance" / "run_1" / "mlperf_log_detail.txt")
        reference = float(str(log["result_completed_samples_per_sec"])) / 8
        own = EXPECTED_OPERATING_POINT[candidate]
        own /= spec.candidate(candidate).hardware.accelerators_per_replica
        assert 2 <= reference / own <= 5, (system, reference, own)


def test_references_alone_would_rank_the_h200_stack_cheapest(spec: PackSpec) -> None:
    """The trap the sample shows: by MLPerf figures the H200 (on TensorRT-LLM) wins on cost."""
    per_request = {}
    for system, (candidate, _) in SYSTEMS.items():
        server = MLPERF_ROOT / "results" / system / "llama2-70b-99" / "Server"
        log = mllog(server / "performance" / "run_1" / "mlperf_log_detail.txt")
        per_accel = float(str(log["result_completed_samples_per_sec"])) / 8
        per_request[candidate] = spec.candidate(candidate).price.per_accelerator_hour / per_accel
    assert min(per_request, key=per_request.__getitem__) == "h200-vllm" != spec.chosen
    assert spec.candidate("h200-vllm").stack.runtime == "vllm"


def test_readme_sweep_table_matches_the_logs(spec: PackSpec) -> None:
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| ([a-z0-9-]+) \| ([0-9.]+) \| [0-9.]+ \| (\d+) \| ([0-9.]+) \|", readme, re.M
    )
    assert len(rows) == 15
    for candidate, rate, ttft, tpot in rows:
        log = dict(sweep(spec, candidate))[float(rate)]
        measured_ttft, measured_tpot = p99_ms(log)
        assert int(ttft) == round(measured_ttft)
        assert float(tpot) == round(measured_tpot, 1)


def test_capacity_model_queues_prefills_and_slows_decode(generate: ModuleType) -> None:
    capacity = generate.Capacity(
        replicas=1, slots=2, prefill_base_ms=10, prefill_ms_per_token=0.1,
        decode_base_ms=20, decode_ms_per_seq=5, jitter_sigma=0.0,
    )  # fmt: skip
    model = generate.CapacityModel(capacity, seed=1)
    item = generate.Item(input_tokens=100, output_tokens=11)
    # Idle: TTFT is the prefill (10 + 0.1 x 100 = 20 ms); one active sequence decodes at 25 ms.
    assert model.schedule(0.0, item) == pytest.approx((0.020, 0.270, 0.025))
    # The second waits for the prefill lane and decodes beside the first (2 active: 30 ms).
    assert model.schedule(0.0, item) == pytest.approx((0.040, 0.340, 0.030))
    # No slot is free until the first sequence ends at 270 ms.
    assert model.schedule(0.0, item) == pytest.approx((0.290, 0.590, 0.030))


@pytest.mark.parametrize(
    ("prefill_base_ms", "validity"),
    [(0.5, "VALID"), (3.0, "INVALID")],  # 400 req/s against a 3 ms prefill lane overloads it
)
def test_simulated_sut_runs_through_loadgen(
    tmp_path: Path, prefill_base_ms: float, validity: str
) -> None:
    """The generator's own worker (one LoadGen test per process), on a ~1.5 s run."""
    conf = "".join(
        f"tiny.{setting}\n"
        for setting in (
            "Server.target_qps = 400",
            "Server.min_duration = 1000",
            "Server.min_query_count = 500",
            "Server.use_token_latencies = 1",
            "Server.target_latency = 0",
            "Server.ttft_latency = 100",
            "Server.tpot_latency = 20",
            "Server.sample_concatenate_permutation = 0",
            "*.performance_sample_count_override = 50",
        )
    )
    job = {
        "name": "tiny",
        "final": str(tmp_path / "out"),
        "user_conf": conf,
        "keep_user_conf": True,
        "model_name": "tiny",
        "scenario": "Server",
        "capacity": {
            "replicas": 1, "slots": 32, "prefill_base_ms": prefill_base_ms,
            "prefill_ms_per_token": 0.001, "decode_base_ms": 2, "decode_ms_per_seq": 0.1,
        },
        "items": [[100 + i, 8 + i % 5] for i in range(50)],
        "performance_count": 50,
        "seed": 1,
    }  # fmt: skip
    script = SAMPLES / "generate" / "make_evidence.py"
    subprocess.run(
        [sys.executable, str(script), "--worker", json.dumps(job)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "mlperf_log_accuracy.json",
        "mlperf_log_detail.txt",
        "mlperf_log_summary.txt",
        "user.conf",
    ]
    log = mllog(tmp_path / "out" / "mlperf_log_detail.txt")
    assert log["result_validity"] == validity
    assert log["effective_scenario"] == "Server"
    assert log["result_query_count"] == 500
    ttft, tpot = p99_ms(log)
    assert (ttft < 100) == (validity == "VALID")
    # 2 ms + 0.1 ms per active sequence: TPOT stays under the 20 ms limit in both runs.
    assert 2 <= tpot < 20


def test_simulated_server_measured_through_its_endpoint(
    generate: ModuleType, tmp_path: Path
) -> None:
    """The candidates' runs are made this way: `measure` against simserver.py on loopback."""
    from evidencepack.measure.options import MeasureOptions
    from evidencepack.measure.run import measure

    simserver = importlib.import_module("simserver")
    capacity = generate.Capacity(
        replicas=1, slots=32, prefill_base_ms=2, prefill_ms_per_token=0.01,
        decode_base_ms=2, decode_ms_per_seq=0.1, jitter_sigma=0.0,
    )  # fmt: skip
    inputs = {f"ce-{n:04d}": 100 + n for n in range(1, 21)}
    prompts = tmp_path / "prompts.jsonl"
    lines = [{"prompt": f"item [{item}]", "max_tokens": 6} for item in inputs]
    lines.append({"prompt": "names no item", "max_tokens": 6})
    prompts.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with simserver.SimServer(
        capacity, inputs, model="m", runtime="vllm", version="0.9.2", seed=1
    ) as server:
        (result,) = measure(
            MeasureOptions(
                endpoint=server.url,
                model="m",
                prompts=prompts,
                outdir=tmp_path / "run",
                target_qps=100,
                ttft_ms=500,
                tpot_ms=100,
                min_duration_ms=300,
                min_query_count=60,
                seed=5,
            )
        )
    assert result.complete
    rows = [json.loads(line) for line in (tmp_path / "run" / "requests.jsonl").open()]
    for row in rows:
        if row["sample_index"] == len(inputs):
            assert row["error"].startswith("HTTP 400: ")
            continue
        assert row["status"] == "ok", row
        assert row["output_tokens"] == 6
        assert row["input_tokens"] == 101 + row["sample_index"]
        # Prefill alone: 2 ms + 0.01 ms per input token.
        assert row["ttft_ms"] >= 2 + 0.01 * row["input_tokens"]
    assert {r["sample_index"] for r in rows} >= {0, 1, 2}


STACK_BUMP = SAMPLES / "pack-stack-bump.yaml"


def test_the_stack_bump_remeasures_one_candidate_on_its_new_stack(spec: PackSpec) -> None:
    """pack-stack-bump.yaml: mi325x-vllm on vLLM 0.10.1, with its own sweep and scores; every
    other candidate, and the frame of the decision, exactly as in pack.yaml."""
    bump = load_spec(STACK_BUMP).spec
    assert bump.decision.date > spec.decision.date
    assert bump.envelope == spec.envelope
    assert bump.slo == spec.slo
    for old, new in zip(spec.candidates, bump.candidates, strict=True):
        if old.id != "mi325x-vllm":
            assert new == old
    old, new = spec.candidate("mi325x-vllm"), bump.candidate("mi325x-vllm")
    assert (old.stack.version, new.stack.version) == ("0.9.2", "0.10.1")
    assert new.evidence.declared is not None
    assert new.evidence.declared.runtime_version == "0.10.1"
    assert new.evidence.mlperf == old.evidence.mlperf
    assert all(ref.path.startswith("evidence/stack-bump/mi325x-vllm/") for ref in new.evidence.runs)
    points = sweep(bump, "mi325x-vllm")
    assert [rate for rate, _ in points] == [1.8, 2.2, 2.5, 2.8, 4.0]
    for ref in new.evidence.runs:
        conf = (SAMPLES / ref.path / "user.conf").read_text(encoding="utf-8")
        assert "SAMPLE DATA" in conf
        assert "vLLM 0.10.1" in conf
    inside = [rate for rate, log in points if within_slo(bump, log)]
    assert max(inside) == 2.8  # was 2.2 on vLLM 0.9.2
    assert all(log["result_validity"] == "VALID" for rate, log in points if rate in inside)
    assert points[-1][1]["result_validity"] == "INVALID"
    assert all(str(log["loadgen_version"]).startswith("6.0.17 ") for _, log in points)
    (scores,) = new.evidence.scores
    assert scores.sha256 == sha256(SAMPLES / scores.path)
    header = json.loads((SAMPLES / scores.path).read_text(encoding="utf-8").splitlines()[0])
    assert header["runtime"] == {"name": "vllm", "version": "0.10.1"}
