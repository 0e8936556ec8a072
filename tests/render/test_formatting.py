"""The report's number filters: deterministic, locale-independent, None as an em dash."""

from __future__ import annotations

import pytest

from evidencepack.render.formatting import (
    MISSING,
    money,
    ms,
    num,
    pct,
    rate,
    score,
    score_interval,
    sha_short,
    size,
    steps,
    yes_no,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.2959, "USD 1.30"),
        (15330.0, "USD 15,330.00"),
        (0.000337, "USD 0.000337"),
        (0.0123, "USD 0.0123"),
        (-0.0, "USD 0.00"),
        (0, "USD 0.00"),
        (None, MISSING),
        (float("nan"), MISSING),
    ],
)
def test_money(value: float | None, expected: str) -> None:
    assert money(value, "USD") == expected


def test_latency_rate_and_plain_numbers_scale_their_decimals() -> None:
    assert ms(2450.0) == "2,450 ms"
    assert ms(71.04) == "71.0 ms"
    assert ms(3.254) == "3.25 ms"
    assert ms(None) == MISSING
    assert rate(7.96) == "7.96 req/s"
    assert rate(2064.0, "tok/s") == "2,064 tok/s"
    assert num(400) == "400"
    assert num(1_843_211) == "1,843,211"
    assert num(4145.175) == "4,145"
    assert num(29.1255, 4) == "29.1255"
    assert num(None) == MISSING


def test_percentages_and_intervals() -> None:
    assert pct(0.875) == "87.5%"
    assert pct(0.0018, 2) == "0.18%"
    assert pct(None) == MISSING
    assert score(0.8, True) == "80.0%"
    assert score(3.14159, False) == "3.142"
    assert score_interval(0.875, 0.839, 0.904, True) == "87.5% [83.9%, 90.4%]"
    # No interval: the estimate alone, never a half-empty bracket.
    assert score_interval(0.875, None, 0.904, True) == "87.5%"
    assert score_interval(None, 0.1, 0.2, True) == MISSING


def test_digests_sizes_and_booleans() -> None:
    digest = "ab" * 32
    assert sha_short(digest) == "abababababab\u2026"
    assert sha_short(digest, 64) == digest
    assert sha_short(None) == MISSING
    assert size(912) == "912 B"
    assert size(14_540) == "14.2 KiB"
    assert size(3_250_000) == "3.1 MiB"
    assert size(5 * 1024**3) == "5.0 GiB"
    assert yes_no(True) == "yes"
    assert yes_no(None) == MISSING


def test_arithmetic_steps_one_per_line() -> None:
    # As the analysis writes it: one line, steps separated by "; ".
    one_line = (
        "X* = 3.630 req/s per replica (evidence/h200-vllm/runs/qps_4.0); required = 14 x "
        "(1 + 0.25) = 17.500 req/s; replicas = ceil(17.500 / 3.630) = 5"
    )
    assert steps(one_line) == [
        "X* = 3.630 req/s per replica (evidence/h200-vllm/runs/qps_4.0)",
        "required = 14 x (1 + 0.25) = 17.500 req/s",
        "replicas = ceil(17.500 / 3.630) = 5",
    ]
    # Line breaks stay; a semicolon inside brackets or without a space after it is not a step.
    assert steps("a = f(x; y)\nb = 2;3; c = 4\n\n") == ["a = f(x; y)", "b = 2;3", "c = 4"]
    assert steps("") == []


def test_finding_text_never_prints_an_exponent() -> None:
    from evidencepack.core._numbers import plain

    assert plain(28684400.0) == "28,684,400"
    assert plain(7.31654e06) == "7,316,540"
    assert plain(44.357) == "44.357"
    assert plain(1.2e-05) == "0.000012"
    assert plain(2000) == "2,000"
    assert plain(0) == "0"
    assert plain(-0.5) == "-0.5"
    assert plain(float("nan")) == "nan"


def test_one_line_cuts_at_a_word() -> None:
    from evidencepack.render.formatting import one_line

    assert one_line("a  b\nc") == "a b c"
    assert one_line("alpha beta gamma", 12) == "alpha beta\u2026"
    assert one_line("x" * 20, 10) == "x" * 9 + "\u2026"
