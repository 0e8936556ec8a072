"""Re-apply the submission checker's rules to one result, one CheckRow per rule.

Rules without a round (LoadGen's own verdict, logged errors) always run; the round's rules
(``rules.ROUND_RULES``) run when a round is known, else one ``round`` row says "no round".
A team's own LoadGen run (no division) is held to the closed-division rules.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..core._numbers import plain
from .accuracy import AccuracyResult, Test06Verdict
from .endpoint_result import EndpointRun
from .loadgen_log import LoadgenLog
from .models import CheckRow, CheckStatus
from .rules import ROUND_RULES, RoundRules

# LoadGen errors the checker tolerates (its ignore_uncommited option)
_TOLERATED_ERRORS = ("Loadgen built with uncommitted changes!",)


def _row(
    rule: str, round_: str | None, expected: str, actual: str, ok: bool | None, source: str = ""
) -> CheckRow:
    status: CheckStatus = "skip" if ok is None else ("pass" if ok else "fail")
    return CheckRow(
        rule=rule, round=round_, expected=expected, actual=actual, status=status, source=source
    )


def _ms(value: float | None) -> str:
    return "absent" if value is None else f"{value:g} ms"


def apply_rules(
    *,
    round_: str | None,
    benchmark: str | None,
    scenario: str,
    division: str | None,
    log: LoadgenLog,
    accuracy: AccuracyResult | None,
    accuracy_expected: bool,
    test06: Test06Verdict | None,
    endpoint: EndpointRun | None = None,
) -> tuple[CheckRow, ...]:
    """Every rule's row for one result, in a fixed order. ``endpoint``: the result was measured
    with the endpoint tool (its own completion, failure, seed and duration rows)."""
    rows = list(_endpoint_rows(endpoint) if endpoint else _loadgen_rows(log))
    rules = ROUND_RULES.get(round_) if round_ else None
    if rules is None:
        rows.append(_row("round", None, "a known MLPerf round", "no round", None))
        return tuple(rows)
    closed = division in (None, "closed")
    rows.extend(_run_rows(rules, benchmark, scenario, closed, log, endpoint))
    if benchmark is not None and benchmark in rules.benchmarks:
        rows.extend(_accuracy_rows(rules, benchmark, closed, accuracy, accuracy_expected))
        rows.extend(_test06_rows(rules, benchmark, closed, test06, accuracy_expected))
    return tuple(rows)


def _loadgen_rows(log: LoadgenLog) -> Iterator[CheckRow]:
    reasons = "; ".join(log.invalid_reasons)
    actual = str(log.validity) + (f" ({reasons})" if reasons else "")
    yield _row(
        "loadgen.validity",
        None,
        "VALID",
        actual,
        log.validity == "VALID",
        log.cite("result_validity"),
    )
    errors = [e for e in log.errors if not any(t in e.message for t in _TOLERATED_ERRORS)]
    count = max(len(errors), log.num_errors or 0) if log.source == "detail" else log.num_errors
    first = f": {errors[0].message} ({errors[0].file}:{errors[0].line})" if errors else ""
    yield _row(
        "loadgen.errors",
        None,
        "0 errors",
        f"{count} error(s){first}" if count is not None else "not reported",
        None if count is None else count == 0,
        log.cite("num_errors"),
    )


def _endpoint_rows(run: EndpointRun) -> Iterator[CheckRow]:
    problems = [p for p in run.problems if "failed" not in p]
    yield _row(
        "endpoint.complete",
        None,
        "complete, every issued sample completed",
        "; ".join(problems) or f"complete, {run.completed} of {run.issued} sample(s)",
        not problems,
        run.path,
    )
    yield _row(
        "endpoint.failed_samples",
        None,
        "0 failed",
        f"{run.failed} failed",
        run.failed == 0,
        run.path,
    )


def _seed_and_duration_rows(rules: RoundRules, run: EndpointRun) -> Iterator[CheckRow]:
    """The endpoint tool logs two of LoadGen's three seeds (dataloader = sample index,
    scheduler = schedule) and its measured duration, not a minimum."""
    seeds = rules.seeds
    wanted = (seeds.sample_index_rng_seed, seeds.schedule_rng_seed)
    found = (run.sample_index_seed, run.schedule_seed)
    yield _row(
        "round.seeds",
        rules.round,
        f"dataloader {wanted[0]} / scheduler {wanted[1]}",
        f"dataloader {found[0]} / scheduler {found[1]}",
        found == wanted,
        run.path,
    )
    yield _row(
        "round.min_duration",
        rules.round,
        f">= {rules.min_duration_ms} ms (the run's measured duration)",
        _ms(run.duration_ms),
        run.duration_ms >= rules.min_duration_ms,
        run.path,
    )


def _run_rows(
    rules: RoundRules,
    benchmark: str | None,
    scenario: str,
    closed: bool,
    log: LoadgenLog,
    endpoint: EndpointRun | None = None,
) -> Iterator[CheckRow]:
    r = rules.round
    known = benchmark is not None and benchmark in rules.benchmarks
    yield _row(
        "round.benchmark",
        r,
        f"one of {', '.join(rules.benchmarks)}",
        benchmark or "unknown",
        None if benchmark is None else known,
    )
    limits = rules.token_limits.get(benchmark or "", {})
    if scenario == "Interactive":
        yield _row(
            "round.scenario",
            r,
            "Interactive limits defined for the benchmark",
            "defined" if "Interactive" in limits else "none in this round",
            "Interactive" in limits if known else None,
        )
    if endpoint is not None:
        yield from _seed_and_duration_rows(rules, endpoint)
    else:
        seeds = rules.seeds
        yield _row(
            "round.seeds",
            r,
            f"{seeds.qsl_rng_seed}/{seeds.sample_index_rng_seed}/{seeds.schedule_rng_seed}",
            "absent"
            if log.seeds is None
            else f"{log.seeds.qsl_rng_seed}/{log.seeds.sample_index_rng_seed}/"
            f"{log.seeds.schedule_rng_seed}",
            log.seeds == seeds if log.seeds is not None else False,
            log.cite("effective_qsl_rng_seed"),
        )
        duration = log.settings.min_duration_ms
        yield _row(
            "round.min_duration",
            r,
            f">= {rules.min_duration_ms} ms",
            _ms(duration),
            duration is not None and duration >= rules.min_duration_ms,
            log.cite("effective_min_duration_ms"),
        )
    if known and benchmark in rules.performance_sample_count:
        needed = rules.performance_sample_count[benchmark]
        found = log.settings.performance_sample_count
        yield _row(
            "round.performance_sample_count",
            r,
            f">= {needed}",
            str(found) if found is not None else "absent",
            None if found is None else found >= needed,
            log.cite("effective_performance_sample_count"),
        )
    if scenario == "Offline" and benchmark in rules.offline_min_samples_per_query:
        needed = rules.offline_min_samples_per_query[benchmark]
        found = log.settings.samples_per_query
        yield _row(
            "round.offline_samples_per_query",
            r,
            f">= {needed}" + ("" if closed else " (closed division only)"),
            str(found) if found is not None else "absent",
            (None if found is None else found >= needed) if closed else None,
            log.cite("effective_samples_per_query"),
        )
    if scenario in ("Server", "Interactive", "SingleStream", "MultiStream"):
        yield _row(
            "round.early_stopping",
            r,
            "early stopping met",
            str(log.early_stopping_met) if log.early_stopping_met is not None else "absent",
            log.early_stopping_met,  # None (skip) where a summary did not print it
            log.cite("early_stopping_met"),
        )
    if scenario in ("Server", "Interactive") and scenario in limits:
        limit = limits[scenario]
        for rule, value, bound, key in (
            (
                "round.ttft_p99",
                log.ttft_p99_ms,
                limit.ttft_ms,
                "result_first_token_99.00_percentile_latency_ns",
            ),
            (
                "round.tpot_p99",
                log.tpot_p99_ms,
                limit.tpot_ms,
                "result_time_per_output_token_99.00_percentile_ns",
            ),
        ):
            yield _row(
                rule,
                r,
                f"< {bound:g} ms ({benchmark} {scenario})",
                _ms(value),
                value is not None and value < bound,
                log.cite(key),
            )
    if scenario == "Server" and benchmark in rules.latency_limit_ms:
        bound = rules.latency_limit_ms[benchmark or ""]
        value = log.latency_p99_ms
        yield _row(
            "round.latency_p99",
            r,
            f"<= {bound:g} ms ({benchmark} Server)",
            _ms(value),
            value is not None and value <= bound,
            log.cite("result_99.00_percentile_latency_ns"),
        )


def _accuracy_rows(
    rules: RoundRules,
    benchmark: str,
    closed: bool,
    accuracy: AccuracyResult | None,
    expected: bool,
) -> Iterator[CheckRow]:
    r = rules.round
    if not expected:
        return  # a team's own LoadGen run carries no accuracy.txt
    if accuracy is None:
        yield _row("round.accuracy", r, "accuracy/accuracy.txt", "not found", None)
        return
    # a JSON accuracy file (the endpoint tool's) has no metrics line: the file alone is cited
    line = f":{accuracy.metrics_line}" if accuracy.metrics_line else ""
    source = f"{accuracy.path}{line}"
    if not rules.accuracy[benchmark]:
        yield _row(
            "round.accuracy",
            r,
            f"no accuracy target known for {benchmark} in {r}",
            ", ".join(f"{k} {plain(v)}" for k, v in sorted(accuracy.metrics.items())),
            None,
            source,
        )
    for target in rules.accuracy[benchmark]:
        value = accuracy.metrics.get(target.metric)
        if target.upper:
            rule, expected_text = f"round.accuracy.{target.metric}.max", f"<= {plain(target.bound)}"
            ok = value is not None and value <= target.bound
        else:
            rule, expected_text = f"round.accuracy.{target.metric}", f">= {plain(target.bound)}"
            ok = value is not None and value >= target.bound
        expected_text += f" ({plain(target.reference)} x {plain(target.factor)})"
        if not closed:
            expected_text += " (closed division only)"
        yield _row(
            rule,
            r,
            expected_text,
            "absent" if value is None else plain(value),
            ok if closed else None,
            source,
        )


def _test06_rows(
    rules: RoundRules,
    benchmark: str,
    closed: bool,
    test06: Test06Verdict | None,
    expected: bool,
) -> Iterator[CheckRow]:
    if not expected or benchmark not in rules.test06:
        return
    wanted = "First token True or Skipped, EOS True, Sample length True"
    if test06 is None:
        yield _row(
            "round.test06",
            rules.round,
            wanted,
            "verify_accuracy.txt not found",
            False if closed else None,
        )
        return
    actual = ", ".join(f"{k} {v}" for k, v in test06.checks.items())
    yield _row("round.test06", rules.round, wanted, actual, test06.verdict == "pass", test06.path)
