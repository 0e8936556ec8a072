"""accuracy.txt, TEST06 verify_accuracy.txt and measurements JSON, real and broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.mlperf.accuracy import read_accuracy, read_precision, read_test06


def test_llama2_accuracy_and_hash(v51: Path) -> None:
    path = (
        v51
        / "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive/accuracy"
        / "accuracy.txt"
    )
    result = read_accuracy(path)
    assert result.metrics["rouge1"] == 44.4542
    assert result.metrics["tokens_per_sample"] == 301.1
    assert result.hash == "8f6a1812b3b71c9e53e99a9f7d73df2a2179ca2aac62ef1ddda8400d744cfac6"
    assert result.metrics_line == 4  # after a blank line and "Results"


def test_quoted_values_are_numbers(v51: Path) -> None:
    path = v51 / "open/NVIDIA/results/Jetson-Thor_TRT/llama3.1-8b-edge/SingleStream/accuracy"
    result = read_accuracy(path / "accuracy.txt")
    assert result.metrics["rouge1"] == 38.8638  # printed as '38.8638'


def test_mixtral_per_language_line_is_not_the_metrics(v51: Path) -> None:
    path = v51 / "closed/Dell/results/XE9680_MI300X_192GBx8/mixtral-8x7b/Server/accuracy"
    result = read_accuracy(path / "accuracy.txt")
    assert result.metrics_line == 7
    assert result.metrics["gsm8k"] == 73.16
    assert result.metrics["mbxp"] == 60.3


def test_accuracy_without_metrics(tmp_path: Path) -> None:
    path = tmp_path / "accuracy.txt"
    path.write_text("Results\n\n{'php': 833}\nhash=abc\n", encoding="utf-8")
    with pytest.raises(InputError, match="no metrics in accuracy.txt"):
        read_accuracy(path)


def test_accuracy_is_never_executed(tmp_path: Path) -> None:
    path = tmp_path / "accuracy.txt"
    path.write_text("{'rouge1': __import__('os').getpid()}\n", encoding="utf-8")
    with pytest.raises(InputError, match="no metrics in accuracy.txt"):
        read_accuracy(path)


def test_test06_real_pass_and_skipped_first_token(v51: Path) -> None:
    verdicts = {read_test06(p).verdict for p in v51.rglob("TEST06/verify_accuracy.txt")}
    assert verdicts == {"pass"}
    path = next(
        v51.rglob("open/AMD/compliance/*/llama2-70b-99.9/Offline/TEST06/verify_accuracy.txt")
    )
    assert read_test06(path).checks["First token"] == "Skipped"


def test_test06_failure_and_garbage(tmp_path: Path) -> None:
    path = tmp_path / "verify_accuracy.txt"
    path.write_text(
        "First token check pass: True\nEOS check pass: False\nSample length check pass: True\n",
        encoding="utf-8",
    )
    assert read_test06(path).verdict == "fail"
    path.write_text("TEST06 verification complete\n", encoding="utf-8")
    with pytest.raises(InputError, match="no '... check pass:' lines"):
        read_test06(path)


def test_precision_from_measurements(v51: Path, tmp_path: Path) -> None:
    path = v51 / "closed/AMD/measurements/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"
    assert read_precision(path / "8xMI300X_2xEPYC_9575F.json") == "fp8"
    broken = tmp_path / "m.json"
    broken.write_text('{"weight_data_types": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"m.json:1:\d+: not valid JSON"):
        read_precision(broken)
    broken.write_text("{}", encoding="utf-8")
    assert read_precision(broken) is None
