"""LoadGen logs: every real run in ../shared/data/loadgen, summary variants, and broken copies."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.mlperf.loadgen_log import DETAIL_NAME, LoadgenLogError, parse_detail
from evidencepack.mlperf.loadgen_run import parse_loadgen_dir, parse_run

from .conftest import copy_run

# folder -> (scenario, validity, headline tokens/s as LoadGen logged it, inferred tokens?)
RUNS = {
    "llama2-70b_Offline_perf": ("Offline", "VALID", 13103.8, False),
    "llama2-70b_Server_perf": ("Server", "VALID", 6352.22, False),
    "llama2-70b-interactive_Server_perf": ("Server", "VALID", 6352.46, False),
    "gptj_Offline_perf": ("Offline", "VALID", 20331.0, True),
    "gptj_Server_perf": ("Server", "VALID", 9830.25, True),
    "custom_Server_overload_perf": ("Server", "INVALID", 12973.2, False),
}


@pytest.mark.parametrize("folder", sorted(RUNS))
def test_every_real_performance_run(loadgen: Path, folder: str) -> None:
    scenario, validity, tokens, inferred = RUNS[folder]
    log = parse_loadgen_dir(loadgen / folder)
    assert log.source == "detail"
    assert log.summary_path is not None  # cross-checked
    assert log.scenario == scenario
    assert log.test_mode == "PerformanceOnly"
    assert log.validity == validity
    assert log.headline_value == tokens
    assert log.headline_unit == "Tokens/s"
    assert log.tokens_inferred is inferred
    assert log.loadgen_version == "6.0.17 @ d6147c7eb7"
    # LoadGen 6.0.17's built-in seeds (v6.1's: every such run carries them, so they identify
    # no round) or the custom run's zeros
    assert log.seeds is not None
    custom = folder.startswith("custom")
    assert log.seeds.qsl_rng_seed == (0 if custom else 2085463073848966840)
    assert log.seed_round is None
    assert set(log.latency_ms) >= {"min", "max", "mean", "p50", "p90", "p99", "p99.9"}
    if scenario == "Server" and not inferred:
        assert log.ttft_p99_ms is not None
        assert log.tpot_p99_ms is not None
    else:
        assert log.ttft_p99_ms is None  # Offline and gptj log no token latencies
    assert log.num_errors == 0
    assert log.errors == ()


def test_invalid_run_reports_loadgen_reason(loadgen: Path) -> None:
    log = parse_loadgen_dir(loadgen / "custom_Server_overload_perf")
    assert log.validity == "INVALID"
    assert log.invalid_reasons == ("TTFT constrain not met: Reduce target QPS to improve latency.",)
    assert log.perf_constraints_met is False
    assert log.early_stopping_met is False
    assert log.min_duration_met is True
    assert log.settings.ttft_latency_ms == 20.0
    assert log.ttft_p99_ms == pytest.approx(991.615098)
    assert log.ttft_p99_ms > log.settings.ttft_latency_ms
    assert log.cite("result_validity").endswith(f"{DETAIL_NAME}:{log.lines['result_validity']}")


def test_valid_interactive_run_settings(loadgen: Path) -> None:
    log = parse_loadgen_dir(loadgen / "llama2-70b-interactive_Server_perf")
    assert (log.settings.ttft_latency_ms, log.settings.tpot_latency_ms) == (450.0, 40.0)
    assert log.settings.target_qps == 150.0
    assert log.settings.min_query_count == 500
    assert log.query_count == 500
    assert log.ttft_p99_ms == pytest.approx(12.673714)
    assert log.tpot_p99_ms == pytest.approx(1.007551)


def test_accuracy_run_has_no_validity(loadgen: Path) -> None:
    log = parse_loadgen_dir(loadgen / "llama2-70b_Offline_acc")
    assert log.test_mode == "AccuracyOnly"
    assert log.validity is None
    assert log.headline_value is None
    assert not log.is_performance_run


def test_summary_only_v40_server(shared_data: Path) -> None:
    run = (
        shared_data / "mlperf/v4.0-transcribed/v4.0/closed/Intel-HabanaLabs/results/HLS-Gaudi2-PT"
        "/llama2-70b-99.9/Server/performance/run_1"
    )
    log = parse_loadgen_dir(run)
    assert log.source == "summary"
    assert log.detail_path is None
    assert (log.scenario, log.validity) == ("Server", "VALID")
    assert log.headline_value == 6287.47
    assert log.headline_unit == "Tokens/s"
    assert log.ttft_p99_ms == pytest.approx(1621.209252)
    assert log.tpot_p99_ms == pytest.approx(130.950205)
    assert log.seed_round == "v4.0"


def test_summary_only_v40_gptj_has_samples_not_tokens(shared_data: Path) -> None:
    run = (
        shared_data / "mlperf/v4.0-transcribed/v4.0/closed/Google/results/tpu_v5e_x4/gptj-99"
        "/offline/performance/run_1"
    )
    log = parse_loadgen_dir(run)
    assert log.tokens_per_s is None
    assert (log.headline_value, log.headline_unit) == (10.1502, "Samples/s")


def test_summary_only_v41_gptj_inferred_tokens(shared_data: Path) -> None:
    base = shared_data / "mlperf/v4.1/closed/NVIDIA/results/H200-SXM-141GBx8_TRT/gptj-99"
    offline = parse_loadgen_dir(base / "Offline/performance/run_1")
    server = parse_loadgen_dir(base / "Server/performance/run_1")
    assert (offline.headline_value, offline.tokens_inferred) == (20086.1, True)
    assert (server.headline_value, server.tokens_inferred) == (19243.33, True)
    assert server.settings.target_latency_ms == 20000.0
    assert offline.seed_round == server.seed_round == "v4.1"


def test_truncated_detail_line_names_file_and_line(loadgen: Path, tmp_path: Path) -> None:
    run = copy_run(loadgen / "llama2-70b_Server_perf", tmp_path / "run")
    lines = (run / DETAIL_NAME).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[9] = lines[9][: len(lines[9]) // 2] + "\n"
    (run / DETAIL_NAME).write_text("".join(lines), encoding="utf-8")
    with pytest.raises(LoadgenLogError) as info:
        parse_loadgen_dir(run)
    assert info.value.problems[0].startswith(f"{run / DETAIL_NAME}:10: truncated or invalid JSON")


def test_non_mllog_line_is_rejected(loadgen: Path, tmp_path: Path) -> None:
    run = copy_run(loadgen / "gptj_Offline_perf", tmp_path / "run")
    with (run / DETAIL_NAME).open("a", encoding="utf-8") as handle:
        handle.write("Segmentation fault (core dumped)\n")
    with pytest.raises(LoadgenLogError) as info:
        parse_detail(run / DETAIL_NAME)
    assert "not a :::MLLOG record" in info.value.problems[0]


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(LoadgenLogError, match="no mlperf_log_detail.txt or mlperf_log_summary.txt"):
        parse_loadgen_dir(tmp_path)
    with pytest.raises(LoadgenLogError, match="no such file"):
        parse_run(tmp_path / DETAIL_NAME, None)
    with pytest.raises(LoadgenLogError, match="not a folder"):
        parse_loadgen_dir(tmp_path / "nope")


def test_accuracy_summary_alone_is_rejected(shared_data: Path) -> None:
    acc = (
        shared_data
        / "mlperf/v4.1/closed/NVIDIA/results/H200-SXM-141GBx8_TRT/gptj-99/Offline/accuracy"
    )
    with pytest.raises(LoadgenLogError, match="no results in this LoadGen summary"):
        parse_loadgen_dir(acc)
