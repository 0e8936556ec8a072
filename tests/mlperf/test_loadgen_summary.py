"""LoadGen summaries: label variants across versions, and the cross-check with the detail log."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.mlperf.loadgen_log import DETAIL_NAME, SUMMARY_NAME, LoadgenLogError, parse_detail
from evidencepack.mlperf.loadgen_run import parse_loadgen_dir
from evidencepack.mlperf.loadgen_summary import cross_check, parse_summary_raw

from .conftest import copy_run


def test_loadgen_60_time_per_output_token_label(loadgen: Path) -> None:
    raw = parse_summary_raw(loadgen / "custom_Server_overload_perf" / SUMMARY_NAME)
    log = raw.to_log()
    assert log.tpot_ms["min"] == pytest.approx(1.000444)  # "Min Time per Output Token (ns)"
    assert log.tpot_ms["p99"] == pytest.approx(1.006338)
    assert log.invalid_reasons == ("TTFT constrain not met: Reduce target QPS to improve latency.",)


def test_contradicting_summary_is_rejected(loadgen: Path, tmp_path: Path) -> None:
    run = copy_run(loadgen / "llama2-70b_Server_perf", tmp_path / "run")
    summary = run / SUMMARY_NAME
    text = summary.read_text(encoding="utf-8")
    assert "Completed tokens per second: 6352.22" in text
    summary.write_text(
        text.replace(
            "Completed tokens per second: 6352.22", "Completed tokens per second: 9352.22"
        ),
        encoding="utf-8",
    )
    with pytest.raises(LoadgenLogError) as info:
        parse_loadgen_dir(run)
    assert "tokens per second is 9352.22 in the summary but 6352.22" in info.value.problems[0]
    assert info.value.problems[0].startswith(f"{summary}:")


def test_summary_rounding_is_not_a_contradiction(loadgen: Path) -> None:
    # the summary prints 12973.17 where the detail log has 12973.2 (6 significant digits)
    log = parse_loadgen_dir(loadgen / "custom_Server_overload_perf")
    assert log.tokens_per_s == 12973.2


def test_v41_min_time_to_output_token_label(shared_data: Path) -> None:
    run = (
        shared_data
        / "mlperf/v4.1/open/NeuralMagic/results"
        / "4xH100-SXM-80GB_vLLM_GPTQ-reference-cpu-pytorch-v2.3.1-default_config/llama2-70b-99"
        / "server/performance/run_1"
    )
    raw = parse_summary_raw(run / SUMMARY_NAME)
    log = raw.to_log()
    assert log.tpot_ms["min"] == pytest.approx(25.970476)  # "Min Time to Output Token (ns)"
    assert log.tokens_per_s == 1164.04
    assert cross_check(parse_detail(run / DETAIL_NAME), raw) == []


def test_singlestream_summary_headline_is_p90_latency(shared_data: Path) -> None:
    run = (
        shared_data
        / "mlperf/v5.1/open/NVIDIA/results/Jetson-Thor_TRT/llama3.1-8b-edge"
        / "SingleStream/performance/run_1"
    )
    summary = parse_summary_raw(run / SUMMARY_NAME).to_log()
    detail = parse_detail(run / DETAIL_NAME)
    assert summary.headline_value == detail.headline_value == pytest.approx(4145.546277)
    assert summary.headline_unit == detail.headline_unit == "Latency (ms)"


def test_empty_accuracy_mode_summary_is_not_checked(loadgen: Path) -> None:
    raw = parse_summary_raw(loadgen / "llama2-70b_Offline_acc" / SUMMARY_NAME)
    assert not raw.has_results
    assert cross_check(parse_detail(loadgen / "llama2-70b_Offline_acc" / DETAIL_NAME), raw) == []
    with pytest.raises(LoadgenLogError, match="no results in this LoadGen summary"):
        raw.to_log()
