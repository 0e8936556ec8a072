"""Each re-applied checker rule passes on a real result and fails on a modified copy of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.models import MlperfResult
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

from .conftest import replace_in

RUN = Path("performance/run_1")


def imported(tree: Path, **kwargs: str) -> MlperfResult:
    with Store() as store:
        report = import_path(store, tree, **kwargs)  # type: ignore[arg-type]
        assert report.rejected == ()
        (result,) = load_results(store)
    return result


def status(result: MlperfResult, rule: str) -> str:
    (row,) = [row for row in result.checks if row.rule == rule]
    return row.status


def test_unmodified_real_result_passes_every_rule(copy_result, tmp_path: Path) -> None:
    copy_result()
    result = imported(tmp_path)
    assert result.key == "v5.1/closed/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"
    assert result.checks_ok
    rules = {row.rule: row.status for row in result.checks}
    assert set(rules.values()) == {"pass"}
    for rule in (
        "loadgen.validity",
        "round.seeds",
        "round.min_duration",
        "round.ttft_p99",
        "round.tpot_p99",
        "round.accuracy.rouge1",
        "round.accuracy.tokens_per_sample.max",
        "round.test06",
    ):
        assert rules[rule] == "pass"


def test_ttft_p99_over_the_interactive_limit_fails(copy_result, tmp_path: Path) -> None:
    run = copy_result() / RUN
    # 435.976 ms -> 455.976 ms: over the 450 ms llama2-70b Interactive limit
    replace_in(run / "mlperf_log_detail.txt", "435976100", "455976100")
    replace_in(run / "mlperf_log_summary.txt", "435976100", "455976100")
    result = imported(tmp_path)
    assert result.validity == "VALID"  # LoadGen itself did not object
    (row,) = [row for row in result.checks if row.rule == "round.ttft_p99"]
    assert row.status == "fail"
    assert row.expected == "< 450 ms (llama2-70b-99 Interactive)"
    assert row.actual == "455.976 ms"
    assert row.source.startswith(str(run / "mlperf_log_detail.txt") + ":")
    assert status(result, "round.tpot_p99") == "pass"
    assert not result.checks_ok


def test_tpot_p99_over_the_limit_fails(copy_result, tmp_path: Path) -> None:
    run = copy_result() / RUN
    replace_in(run / "mlperf_log_detail.txt", "39507635", "40507635")
    replace_in(run / "mlperf_log_summary.txt", "39507635", "40507635")
    assert status(imported(tmp_path), "round.tpot_p99") == "fail"


def test_accuracy_under_the_threshold_fails(copy_result, tmp_path: Path) -> None:
    accuracy = copy_result() / "accuracy" / "accuracy.txt"
    # 99% of ROUGE1 44.4312 is 43.9869
    replace_in(accuracy, "'rouge1': 44.4542", "'rouge1': 43.9")
    result = imported(tmp_path)
    (row,) = [row for row in result.checks if row.rule == "round.accuracy.rouge1"]
    assert (row.status, row.actual) == ("fail", "43.9")
    assert row.expected.startswith(">= 43.9869")
    assert status(result, "round.accuracy.rouge2") == "pass"


def test_too_many_tokens_per_sample_fails(copy_result, tmp_path: Path) -> None:
    accuracy = copy_result() / "accuracy" / "accuracy.txt"
    replace_in(accuracy, "'tokens_per_sample': 301.1", "'tokens_per_sample': 330.0")
    result = imported(tmp_path)
    assert status(result, "round.accuracy.tokens_per_sample.max") == "fail"
    assert status(result, "round.accuracy.tokens_per_sample") == "pass"


def test_too_short_a_run_fails(copy_result, tmp_path: Path) -> None:
    run = copy_result() / RUN
    replace_in(
        run / "mlperf_log_detail.txt",
        '"effective_min_duration_ms", "value": 600000',
        '"effective_min_duration_ms", "value": 60000',
    )
    replace_in(
        run / "mlperf_log_summary.txt", "min_duration (ms): 600000", "min_duration (ms): 60000"
    )
    result = imported(tmp_path)
    (row,) = [row for row in result.checks if row.rule == "round.min_duration"]
    assert (row.status, row.actual) == ("fail", "60000 ms")


def test_wrong_seeds_fail(copy_result, tmp_path: Path) -> None:
    run = copy_result() / RUN
    replace_in(run / "mlperf_log_detail.txt", "1780908523862526354", "1780908523862526355")
    replace_in(run / "mlperf_log_summary.txt", "1780908523862526354", "1780908523862526355")
    result = imported(tmp_path)
    assert result.round == "v5.1"  # from the folder; the seeds no longer say so
    assert result.seed_round is None
    assert status(result, "round.seeds") == "fail"


def test_failed_test06_fails(copy_result, tmp_path: Path, v51: Path) -> None:
    copy_result()
    verify = next((tmp_path / "v5.1").rglob("verify_accuracy.txt"))
    replace_in(verify, "EOS check pass: True", "EOS check pass: False")
    result = imported(tmp_path)
    assert result.test06 == "fail"
    assert status(result, "round.test06") == "fail"


def test_summary_contradicting_detail_is_rejected_not_checked(copy_result, tmp_path: Path) -> None:
    run = copy_result() / RUN
    replace_in(
        run / "mlperf_log_detail.txt", "435976100", "455976100"
    )  # the summary still says 435
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert "contradicts" in rejection.reason
    assert rejection.problems[0].startswith(f"{run / 'mlperf_log_summary.txt'}:41: ttft p99")


def test_own_run_without_a_round_reports_no_round(shared_data: Path) -> None:
    result = imported(shared_data / "loadgen" / "llama2-70b_Server_perf")
    assert result.round is None
    assert [(row.rule, row.status, row.actual) for row in result.checks][-1] == (
        "round",
        "skip",
        "no round",
    )
    assert result.checks_ok  # LoadGen said VALID and logged no errors


def test_own_run_checked_against_a_named_round(shared_data: Path) -> None:
    result = imported(shared_data / "loadgen" / "llama2-70b_Server_perf", round="v5.1")
    assert result.round == "v5.1"
    assert result.round_source == "argument"
    # a 2-second sleep-based run: real LoadGen output, but far from a submittable one
    assert status(result, "round.min_duration") == "fail"
    assert status(result, "round.seeds") == "fail"
    assert status(result, "round.performance_sample_count") == "fail"
    assert status(result, "round.ttft_p99") == "pass"
    assert not result.checks_ok


def test_open_division_accuracy_is_not_enforced(v51: Path) -> None:
    tree = v51 / "open/AMD/results/8xMI355X_2xEPYC_9575F/llama3_1-405b_pruned"
    result = imported(tree)
    (row,) = [row for row in result.checks if row.rule == "round.accuracy.exact_match"]
    # 86.6 is under the closed-division 89.23, and the open division allows it
    assert row.status == "skip"
    assert row.actual == "86.5953"
    assert "closed division only" in row.expected


@pytest.mark.parametrize("scenario", ["Offline", "Server"])
def test_gptj_v41_summary_only_rules(shared_data: Path, scenario: str) -> None:
    tree = (
        shared_data / f"mlperf/v4.1/closed/NVIDIA/results/H200-SXM-141GBx8_TRT/gptj-99/{scenario}"
    )
    result = imported(tree)
    assert result.round == "v4.1"
    assert status(result, "round.seeds") == "pass"
    if scenario == "Server":
        assert status(result, "round.latency_p99") == "pass"  # 7.9 s <= 20 s
